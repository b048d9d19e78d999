"""A server's process tree once its workers are there: a pre-fork server (gunicorn, Node's cluster) answers as soon as
its first worker does and forks the others while it already answers, which on a busy machine takes seconds."""

from __future__ import annotations

import time

import psutil


def settled_tree(pid: int, size: int, within_s: float = 15.0) -> list[psutil.Process]:
    """``pid`` and its descendants, once there are ``size`` of them or ``within_s`` has passed (the caller asserts)."""
    deadline = time.monotonic() + within_s
    while True:
        root = psutil.Process(pid)
        tree = [root] + root.children(recursive=True)
        if len(tree) >= size or time.monotonic() > deadline:
            return tree
        time.sleep(0.05)
