"""What the integration tests ask of the processes they started: a server's tree once its workers are there, and
whether a process is gone (exited, or a zombie its parent has not reaped yet)."""

from __future__ import annotations

import time

import psutil


def gone(pid: int) -> bool:
    """The process has exited, or is a zombie: nothing of it runs."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def still_running(pids: list[int], within_s: float = 15.0) -> list[int]:
    """Of ``pids``, those still running after up to ``within_s`` (a stopped service may take seconds to exit)."""
    deadline = time.monotonic() + within_s
    while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in pids if not gone(pid)]


def settled_tree(pid: int, size: int, within_s: float = 15.0) -> list[psutil.Process]:
    """``pid`` and its descendants, once there are ``size`` of them or ``within_s`` has passed (the caller asserts).
    A pre-fork server (gunicorn, Node's cluster) answers as soon as its first worker does and forks the others while
    it already answers, which on a busy machine takes seconds."""
    deadline = time.monotonic() + within_s
    while True:
        root = psutil.Process(pid)
        tree = [root] + root.children(recursive=True)
        if len(tree) >= size or time.monotonic() > deadline:
            return tree
        time.sleep(0.05)
