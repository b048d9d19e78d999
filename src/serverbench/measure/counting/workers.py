"""The workers of a pre-fork server, found by the listening socket they hold, and pausing them.

Pre-fork workers (gunicorn, uWSGI's processes) race for each connection, so which worker serves
which request changes from run to run, and with it when each worker's garbage collections fall.
The cost count takes the race out: each worker warms up alone while the others are stopped
(SIGSTOP), then one worker serves the whole window.  Every worker then starts the window with
the same history on every run.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Callable

_LISTEN = "0A"  # TCP state LISTEN in /proc/net/tcp


def listening_inode(port: int) -> str | None:
    """The socket inode listening on ``port`` (IPv4 or IPv6), from /proc/net/tcp*."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == _LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        return fields[9]
        except OSError:
            continue
    return None


def holders(pids: Sequence[int], inode: str) -> list[int]:
    """The processes among ``pids`` that hold the socket ``inode`` open."""
    target = f"socket:[{inode}]"
    found = []
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    found.append(pid)
                    break
            except OSError:
                continue
    return found


def accepting_workers(pids: Sequence[int], leader: int, port: int) -> list[int]:
    """The children of the server that hold its listening socket: its pre-fork workers.

    The leader (gunicorn's arbiter, uWSGI's master) holds the socket too but does not accept; a
    router in front of the workers (uWSGI --http) is the only holder, so nothing is paused there.
    """
    inode = listening_inode(port)
    if inode is None:
        return []
    return sorted(p for p in holders(pids, inode) if p != leader)


SETTLE_S = 2.0  # the process tree unchanged this long (a fork under valgrind takes a few tenths of a second)
SETTLE_WORKERS_S = 0.3  # ... or this long once as many workers as the variant declares hold the socket (0: the leader)
SETTLE_CAP_S = 60.0


def settled(
    leader: int,
    port: int,
    tree: Callable[[int], list[int]],
    workers: int | None = None,
    settle_s: float = SETTLE_S,
    cap_s: float = SETTLE_CAP_S,
    workers_settle_s: float = SETTLE_WORKERS_S,
) -> list[int]:
    """The server's pids once its process tree has stopped changing for ``settle_s`` or, when the variant
    says how many pre-fork workers it runs, once that many hold the listening socket and the tree has not
    changed for ``workers_settle_s`` (at most ``cap_s``).  ``workers=0``: a server that never forks (the catalog's
    ``one_process``) is read once its leader alone holds the socket, with no child, or after ``settle_s`` as any
    other if a child appears.

    A master that preloads the app (gunicorn --preload) answers as soon as its first worker is forked and
    forks the rest one by one; under valgrind that takes seconds, and a worker forked after the pids were
    read served part of the window unpaused and uncounted (the count fell by half, or by 90%).  A worker holds
    the socket from its fork on, so the declared count holding it is the whole tree: waiting the full settle
    time after that took 2 s of each count of gunicorn-sync-w2.  Those two waits count from the youngest process's
    start, not from the first look: the tree is read after the server answered and was verified, by when its
    processes have usually been as they are for longer than the wait (gunicorn-sync-w2's last worker forked seconds
    before), so it is read at once.  The generic settle (no declared workers) still counts from the first look."""
    deadline = time.monotonic() + cap_s
    pids, since = tree(leader), time.monotonic()
    unchanged = since - youngest_age(pids)  # the tree as first read has been as it is since its youngest started
    declared = workers is not None and workers >= 1
    while True:
        still = time.monotonic() - unchanged
        if declared:
            if still >= workers_settle_s and len(accepting_workers(pids, leader, port)) >= workers:
                break
        elif workers == 0 and still >= workers_settle_s and pids == [leader] and _holds(leader, port):
            break
        elif time.monotonic() - since >= settle_s:
            break
        if time.monotonic() >= deadline:
            break
        time.sleep(min(0.1, settle_s, workers_settle_s))
        now = tree(leader)
        if now != pids:
            pids, since = now, time.monotonic()
            unchanged = since
    return pids


def youngest_age(pids: Sequence[int]) -> float:
    """Seconds since the youngest of ``pids`` started (0 when one cannot be read: it is taken as just started), on
    the clock the kernel stamps a process's start with (since boot, in clock ticks: /proc/<pid>/stat's 22nd field)."""
    ticks = os.sysconf("SC_CLK_TCK")
    try:
        started = []
        for pid in pids:
            with open(f"/proc/{pid}/stat") as f:
                started.append(int(f.read().rsplit(")", 1)[1].split()[19]) / ticks)
    except (OSError, ValueError, IndexError):
        return 0.0
    return max(time.clock_gettime(time.CLOCK_BOOTTIME) - max(started, default=float("inf")), 0.0)


def _holds(pid: int, port: int) -> bool:
    """Whether ``pid`` holds the socket listening on ``port``."""
    inode = listening_inode(port)
    return inode is not None and holders([pid], inode) == [pid]


@contextmanager
def paused(pids: Sequence[int]) -> Iterator[None]:
    """Stop these processes for the block (SIGSTOP), continue them after (SIGCONT), on every exit path."""
    stopped = []
    try:
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
        yield
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
