"""A load generator's time on a core and waiting for one, from the kernel's scheduler statistics.

A generator's CPU time (wait4) says how much it ran, not how much it wanted to run.  On a machine the
server shares, a closed-model generator that is always ready (its users' answers are in and their next
requests are due) gets only its share of the cores: the rest of the time it waits in the run queue,
and its users' next requests go out late, in no response time.  Its CPU over the wall time then reads
60% where it was runnable 100% of the window.  ``/proc/PID/task/TID/schedstat`` keeps, per thread,
the nanoseconds spent on a core and waiting on a run queue (Documentation/scheduler/sched-stats.rst);
the sampler reads the sum over the generator's threads every ``interval`` seconds with the wall clock,
so a driver can take the part that covers its own window (locust's users answered for less than its
run: it imports and spawns first).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence

from ..records.schema import RunQueue

# (wall-clock time, seconds on a core, seconds waiting for one): summed over a process's threads.
Sample = tuple[float, float, float]


def read(pid: int, main_thread: bool = False) -> tuple[float, float] | None:
    """Seconds on a core and waiting for one, summed over the threads ``pid`` has now (its main thread only with
    ``main_thread``: locust's users all run on it, its other threads are gevent's and locust's helpers); None when
    the kernel keeps no schedstat (CONFIG_SCHED_INFO off) or the process is gone."""
    try:
        tids = [str(pid)] if main_thread else os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    on_cpu = waiting = 0
    seen = False
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                fields = f.read().split()
        except OSError:
            continue  # the thread ended between the listing and the read
        on_cpu += int(fields[0])
        waiting += int(fields[1])
        seen = True
    return (on_cpu / 1e9, waiting / 1e9) if seen else None


def between(samples: Sequence[Sample], start: float | None = None, end: float | None = None) -> RunQueue | None:
    """The scheduler time between the samples nearest inside [start, end] (the whole run when None); None when
    fewer than two samples fall there.  The samples of one process, in time order."""
    inside = [s for s in samples if (start is None or s[0] >= start) and (end is None or s[0] <= end)]
    if len(inside) < 2:
        return None
    (t0, cpu0, wait0), (t1, cpu1, wait1) = inside[0], inside[-1]
    if t1 <= t0 or cpu1 < cpu0 or wait1 < wait0:
        return None  # not one process's counters (the pid was reused)
    return RunQueue(cpu1 - cpu0, wait1 - wait0, t1 - t0)


def combined(parts: Sequence[RunQueue | None]) -> RunQueue | None:
    """Processes that ran side by side (locust's workers): their times added, over the longest span; None unless
    every part was measured."""
    if not parts or any(p is None for p in parts):
        return None
    return RunQueue(sum(p.cpu_s for p in parts), sum(p.wait_s for p in parts), max(p.wall_s for p in parts))


class RunQueueSampler:
    """Reads a process's scheduler statistics every ``interval`` seconds in a thread, until ``stop()``.  The last
    reading before it exits is the run's end (a thread's statistics go with it).  ``main_thread``: read only the
    process's main thread (see :func:`read`)."""

    def __init__(self, pid: int, interval: float = 0.1, main_thread: bool = False):
        self.pid = pid
        self.interval = interval
        self.main_thread = main_thread
        self._samples: list[Sample] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"runqueue-{pid}", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            reading = read(self.pid, self.main_thread)
            last = self._samples[-1] if self._samples else None
            if reading is not None and (last is None or (reading[0] >= last[1] and reading[1] >= last[2])):
                self._samples.append((time.time(), *reading))  # not an exited process's zeroed counters
            if self._done.wait(self.interval):
                return

    def stop(self) -> tuple[Sample, ...]:
        self._done.set()
        self._thread.join()
        return tuple(self._samples)
