"""processes.executors: the last exception a server's log names; a generator interrupted as it starts."""

import threading

import psutil
import pytest

from serverbench.processes import executors
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


def test_ctrl_c_as_a_generator_starts_leaves_no_watchdog_and_no_generator(monkeypatch):
    """Ctrl-C after the watchdog started, before the run is waited on: the generator is killed and reaped, and no
    non-daemon timer is left for the interpreter to wait out at exit (a census session lingered its 30 s)."""

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(executors, "RunQueueSampler", interrupted)
    before = set(threading.enumerate())
    with pytest.raises(KeyboardInterrupt):
        executors.run_generator(["sleep", "30"], timeout=30)
    left = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    assert left == []
    assert executors._GENERATORS == set()
    assert not [p for p in psutil.Process().children() if p.name() == "sleep"]
