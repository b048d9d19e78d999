"""Calls that run at the same time, each in a thread of its own (a bisection's two ends, a gate's two counted arms),
and that stop when the command is stopped.

Ctrl-C and SIGTERM reach the main thread only.  A count running in another thread went on to its end (a minute and
more under valgrind) while the command seemed stopped, and a supervisor that then killed it outright left the count's
git worktree behind.  So an interrupted wait kills the servers and load generators running now, from every thread
(:func:`.executors.kill_running`), again until each thread has ended through its own ``finally`` blocks (server
stopped, worktree and temporary folder removed), and only then lets the interruption go on.

Each thread says it is done with an event of its own, not ``Thread.join``: a join that a signal interrupts marks the
thread it waited for as stopped while it still runs (CPython 3.11's fix for bpo-45274), and the interpreter then
exits under it, its ``finally`` blocks never run (a count's temporary folder was left).  And the wait wakes every
tenth of a second: a process's signal may be given to any of its threads, and one given to a counting thread does
not interrupt a main thread blocked on a lock, so its handler ran only when the counts ended (a gate stopped by
SIGTERM counted on for minutes, 1 run in 15).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from .executors import kill_running

T = TypeVar("T")
# How often the main thread wakes while it waits: a signal the kernel gave another thread sets Python's flag but
# does not interrupt the main thread's wait, whose handler (Ctrl-C, SIGTERM) then runs only when it wakes.
WAKE_EVERY_S = 0.1
# How often the kill is repeated while the threads end: a server one of them started just after a kill lives no longer.
KILL_EVERY_S = 0.2


def at_once(calls: Sequence[Callable[[], T]], name: str = "serverbench-at-once") -> list[T]:
    """Each call's result, in order, the calls run at the same time in threads; the first failure re-raised once
    all have ended.  Interrupted while waiting (KeyboardInterrupt, SIGTERM's SystemExit), the threads are ended
    first: every server and generator running now is killed until none of the threads runs on."""
    out: list = [None] * len(calls)
    errors: list[BaseException] = []
    done = [threading.Event() for _ in calls]

    def run(i: int) -> None:
        try:
            out[i] = calls[i]()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            errors.append(exc)
        finally:
            done[i].set()

    threads = [threading.Thread(target=run, args=(i,), name=f"{name}-{i}") for i in range(len(calls))]
    try:
        for t in threads:
            t.start()
        for event in done:
            while not event.wait(WAKE_EVERY_S):
                pass
    except BaseException:
        end_all([e for t, e in zip(threads, done) if t.ident is not None])
        raise
    for t in threads:
        t.join()  # each has set its event: nothing is left to wait for but its exit
    if errors:
        raise errors[0]
    return out


def end_all(done: Sequence[threading.Event]) -> None:
    """Kill what the threads run until each has said it is done (each cleans up in its own ``finally``)."""
    while not all(event.is_set() for event in done):
        kill_running()
        for event in done:
            event.wait(KILL_EVERY_S)
