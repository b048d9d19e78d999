"""Stopping a command the way Ctrl-C stops it: SIGTERM (a CI runner's cancel, ``kill``, a supervisor) exits through
every ``finally``, so the servers, the backends and the git worktrees a gate or a bisection started are stopped and
removed.  Python's default SIGTERM ends the process at once and leaves them (a gate's base worktree was left).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def terminating_through_finally() -> Iterator[None]:
    """While the block runs, SIGTERM exits like Ctrl-C does, through every ``finally``: the servers, the
    backends and the worktrees are stopped and removed (Python's default would end at once)."""
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def sigterm_interrupts() -> Callable[[], None]:
    """From now on SIGTERM stops this process as Ctrl-C does (KeyboardInterrupt, which pytest ends its session on
    through every teardown: the servers, backends and the load hosts' processes are stopped); returns what puts the
    previous handler back.  Off the main thread, where no handler can be set, it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, _interrupt_on_sigterm)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _interrupt_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum} (SIGTERM)")
