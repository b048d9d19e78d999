"""The tether (hosts.tether), run here: it reports its pid and the command's CPU, and ends the group when its
input closes (the controller's SSH session gone)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

from serverbench.hosts.tether import MARK


def _tether(*argv: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "serverbench.hosts.tether", "--", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _gone(pid: int, within_s: float = 10.0) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} outlived its tether")


def _ends_with(process: subprocess.Popen, child: int) -> None:
    """The tether ends, and ``child`` with it; our own group is killed when the tether failed to end it."""
    try:
        process.wait(timeout=30)
        _gone(child)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def test_the_tether_reports_its_pid_the_exit_status_and_the_cpu():
    """A command that exits 3 after some work: the pid line first, then its status and CPU seconds."""
    process = _tether(sys.executable, "-c", "sum(range(3_000_000)); raise SystemExit(3)")
    process.wait(timeout=60)  # its input stays open, as an SSH channel does while the controller runs
    err = process.stderr.read()
    for pipe in (process.stdin, process.stdout, process.stderr):
        pipe.close()
    lines = [line for line in err.splitlines() if line.startswith(MARK)]
    assert lines[0].startswith(f"{MARK} pid={process.pid}")
    ended = json.loads(lines[-1].split("exit=", 1)[1])
    assert ended["returncode"] == 3 and ended["cpu_s"] > 0 and process.returncode == 3


def test_closing_its_input_stops_the_whole_group():
    """The controller's side gone (stdin closed): the command and its child are stopped, none is left."""
    process = _tether("sh", "-c", "sleep 60 & echo $!; wait")
    child = int(process.stdout.readline())
    process.stdin.close()
    _ends_with(process, child)
    assert "lost" in process.stderr.read()
    process.stdout.close()
    process.stderr.close()


def test_a_session_gone_with_its_output_still_stops_the_group():
    """A controller killed with SIGKILL takes the session's every pipe: stderr's reader gone before stdin closes,
    the tether cannot say "lost" and still stops the command (it died of the broken pipe before, leaving it)."""
    process = _tether("sh", "-c", "sleep 60 & echo $!; wait")
    child = int(process.stdout.readline())
    process.stderr.close()
    process.stdout.close()
    process.stdin.close()
    _ends_with(process, child)
