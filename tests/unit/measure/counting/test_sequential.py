"""measure.counting.sequential: the process tree a count waits on, the thread states read from /proc (this process and a
sleeping child; no server) and a request's headers and body leaving as one segment (a loopback socket this test
holds).  The client itself is exercised by tests/cost/test_counting.py."""

from __future__ import annotations

import http.client
import os
import select
import socket
import subprocess
import sys
import threading

import psutil
import pytest

from serverbench.measure.counting.callgrind import CountingError
from serverbench.measure.counting.sequential import _one_segment, _thread_states, server_pids

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


def test_headers_and_body_leave_as_one_segment():
    """Inside the block nothing reaches the listener (held, not sent as headers then body); once it ends the
    whole request, headers and body, arrives at once; the connection is uncorked for the next request."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        conn = http.client.HTTPConnection("127.0.0.1", listener.getsockname()[1], timeout=5)
        try:
            with _one_segment(conn):
                served, _ = listener.accept()
                conn.putrequest("POST", "/items", skip_host=True, skip_accept_encoding=True)
                conn.putheader("Content-Length", "7")
                conn.endheaders(b'{"a":1}')
                held = select.select([served], [], [], 0.05)[0]
                corked = conn.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CORK)
            assert not held and corked == 1
            assert select.select([served], [], [], 5)[0]
            assert served.recv(4096).endswith(b'\r\n\r\n{"a":1}')
            assert conn.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CORK) == 0
            served.close()
        finally:
            conn.close()
