"""processes.executors' pure parts: the last exception a server's log names."""

from serverbench.processes.executors import last_exception


def test_the_last_exception_line_of_a_log_is_named():
    """Of a log with two tracebacks, the last exception line is quoted; a log without one gives nothing."""
    log = [
        "[INFO] Booting worker with pid: 7",
        "Traceback (most recent call last):",
        '  File "app.py", line 3, in app',
        "KeyError: 'DB'",
        "[ERROR] Error handling request /notes",
        "Traceback (most recent call last):",
        "sqlite3.OperationalError: no such table: note",
        "[INFO] Worker exiting",
    ]
    assert last_exception(log) == "; the last exception in its log: sqlite3.OperationalError: no such table: note"
    assert last_exception(["[INFO] Listening at: http://127.0.0.1:8000"]) == ""
