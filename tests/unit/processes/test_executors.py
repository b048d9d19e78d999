"""processes.executors: the last exception a server's log names; a generator interrupted as it starts; how a process
is started (no Python at fork; its session, cores and parent-death signal)."""

import threading
import time

import psutil
import pytest

from serverbench.processes import executors
from serverbench.processes.executors import guarded, last_exception
from tests.unit.child_probe import child_probe


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


def test_guarded_puts_setpriv_then_taskset_before_the_command():
    """The parent-death signal is set by setpriv, the cores by taskset's list, then the command runs as given."""
    argv = guarded(["wrk", "-t1", "http://x"], cpus=[1, 3])
    assert argv[1:4] == ["--pdeathsig", "TERM", "--"] and argv[0].endswith("setpriv")
    assert argv[4].endswith("taskset") and argv[5:] == ["-c", "1,3", "wrk", "-t1", "http://x"]
    assert guarded(["redis-server"])[4:] == ["redis-server"]


START_ALL_THREE_WAYS = """
import json, os, socket, sys
calls = []
os.register_at_fork(before=lambda: calls.append("before"), after_in_parent=lambda: calls.append("parent"))
from serverbench.processes.executors import BackgroundProcess, ManagedProcess, free_port, run_generator
from pathlib import Path
run = run_generator(["true"], timeout=10)
BackgroundProcess.start(["true"], Path(sys.argv[1])).reap(5)
port = free_port()
code = f"import socket, time; s = socket.socket(); s.bind(('127.0.0.1', {port})); s.listen(); time.sleep(30)"
server = ManagedProcess("listener", [sys.executable, "-c", code], port, ready_path=None, log_dir=Path(sys.argv[1]).parent)
server.start()
server.stop()
print("PROBE " + json.dumps({"calls": calls, "argv": list(run.argv), "returncode": run.returncode}))
"""


def test_starting_a_generator_a_helper_or_a_server_runs_no_python_at_fork(tmp_path):
    """No at-fork hook runs in the parent for any of the three ways a process starts: a Ctrl-C that arrived during such
    a fork was handled inside the hook and lost (the session went on to its end).  The run records the command as
    given, not its wrappers."""
    seen = child_probe(START_ALL_THREE_WAYS, str(tmp_path / "helper.log"))
    assert seen == {"calls": [], "argv": ["true"], "returncode": 0}


ORPHAN = """
import json, os, sys
from pathlib import Path
from serverbench.processes.executors import BackgroundProcess
child = BackgroundProcess.start(["sleep", "30"], Path(sys.argv[1]), cpus=[0])
import psutil, time
deadline = time.monotonic() + 5
while psutil.Process(child.process.pid).name() != "sleep" and time.monotonic() < deadline:
    time.sleep(0.01)
p = psutil.Process(child.process.pid)
print("PROBE " + json.dumps({"pid": p.pid, "sid": os.getsid(p.pid), "cores": p.cpu_affinity(), "name": p.name()}),
      flush=True)
os._exit(0)  # no atexit sweep: only the parent-death signal can end the sleep
"""


def test_a_started_process_has_its_session_and_cores_and_ends_with_its_parent(tmp_path):
    """A helper started on core 0 runs there in its own session as the command itself (the wrappers exec'd away),
    and when the process that started it dies without any cleanup it gets SIGTERM and ends."""
    seen = child_probe(ORPHAN, str(tmp_path / "sleep.log"))
    assert seen["name"] == "sleep" and seen["sid"] == seen["pid"] and seen["cores"] == [0]
    deadline = time.monotonic() + 10
    while psutil.pid_exists(seen["pid"]) and time.monotonic() < deadline:
        try:
            if psutil.Process(seen["pid"]).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    alive = psutil.pid_exists(seen["pid"]) and psutil.Process(seen["pid"]).status() != psutil.STATUS_ZOMBIE
    assert not alive, f"sleep {seen['pid']} outlived the process that started it"
