"""measure.sequential: the process tree a count waits on and the thread states read from /proc (this process and a
sleeping child; no server).  The client itself is exercised by tests/cost/test_counting.py."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import psutil
import pytest

from serverbench.measure.callgrind import CountingError
from serverbench.measure.sequential import _thread_states, server_pids

GONE = 2**22 + 12345  # above the kernel's largest pid


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc/PID/task")
def test_thread_states_read_one_state_letter_per_thread():
    """Every thread of this process has its letter (the reading thread R, a second one waiting); a gone pid none."""
    release = threading.Event()
    waiting = threading.Thread(target=release.wait, daemon=True)
    waiting.start()
    try:
        states = _thread_states([os.getpid()])
        assert len(states) == psutil.Process().num_threads() >= 2
    finally:
        release.set()
        waiting.join()
    assert "R" in states and all(len(s) == 1 and s.isupper() for s in states)
    assert _thread_states([GONE]) == []


def test_the_server_is_its_leader_and_every_descendant():
    """This process first, then its child; a leader that is gone is a CountingError naming its pid."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        pids = server_pids(os.getpid())
        assert pids[0] == os.getpid() and child.pid in pids
    finally:
        child.kill()
        child.wait()
    with pytest.raises(CountingError, match=f"the server \\(pid {GONE}\\) exited before counting began"):
        server_pids(GONE)
