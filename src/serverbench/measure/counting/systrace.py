"""System calls, socket bytes and connections of a counted window, from valgrind's own system-call trace.

Valgrind runs every system call of the program it counts, so with ``--trace-syscalls=yes`` it writes
each one to the process's log (``valgrind.<pid>.log``), in the same run that counts instructions::

    SYSCALL[4711,1](45) sys_recvfrom ( 5, 0x5475c70, 100, 0, 0x0, 0x0 ) --> [async] ...
    SYSCALL[4711,1](45) ... [async] --> Success(0x2)
    SYSCALL[4711,1](3) sys_close ( 5 )[sync] --> Success(0x0)

A blocking call is written twice: when it starts, and (``... [async] -->``) when it returns.  The window
is the stretch of each log between two offsets taken while the server was quiet (every thread blocked in
the kernel), so it holds only the counted requests' calls; vgdb's wake-ups leave no line.  A call is
counted where it starts; its bytes where it returns.  Which descriptors are sockets is read from
``/proc/<pid>/fd`` when the window opens, then followed through the window (accept, socket, close).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

_LINE = re.compile(r"^SYSCALL\[(\d+),(\d+)\]\((\d+)\) (.*)$")
_RESULT = re.compile(r"--> (?:\[[a-z-]+\] )?(Success|Failure)\(0x([0-9a-f]+)\)")
_CALL = re.compile(r"^([A-Za-z0-9_]+)(?:\[[^\]]*\])? ?\( ?([^,)]*)")  # sys_fcntl[ARG3=='arg'] ( 5, ...

SENDS = frozenset({"sendto", "sendmsg", "write", "writev", "pwritev", "pwritev2", "sendfile", "sendfile64"})
RECEIVES = frozenset({"recvfrom", "recvmsg", "read", "readv", "preadv", "preadv2"})
OPENS = frozenset({"accept", "accept4", "connect"})
NEW_SOCKETS = frozenset({"accept", "accept4", "socket"})
EINPROGRESS = 115  # a non-blocking connect that was started: a connection opened all the same


@dataclass
class SystemWindow:
    """What a window asked of the kernel, summed over processes: calls by name, socket bytes, connections."""

    calls: Counter = field(default_factory=Counter)
    sent: int = 0
    received: int = 0
    connections: int = 0

    def add(self, other: SystemWindow) -> None:
        self.calls.update(other.calls)
        self.sent += other.sent
        self.received += other.received
        self.connections += other.connections


def call_name(text: str) -> str:
    """``sys_clock_nanosleep(`` -> ``clock_nanosleep``; ``arch_prctl (`` -> ``arch_prctl``;
    ``sys_fcntl[ARG3=='arg'] (`` -> ``fcntl``."""
    match = _CALL.match(text)
    name = match.group(1) if match else text.split()[0].split("[")[0]
    for prefix in ("sys_", "linux_"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def traced(log: Path) -> bool:
    """Whether valgrind wrote a system-call trace into this log (it was run with ``--trace-syscalls=yes``)."""
    with open(log, errors="replace") as f:
        return any(line.startswith("SYSCALL[") for line in f)


def socket_fds(pid: int) -> set[int]:
    """The descriptors of ``pid`` that are sockets now (``/proc/<pid>/fd``); empty when unreadable."""
    found = set()
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return found
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                found.add(int(name))
        except (OSError, ValueError):
            continue
    return found


def read_window(log: Path, start: int, end: int, sockets: Iterable[int]) -> SystemWindow:
    """The calls between byte offsets ``start`` and ``end`` of one process's log; ``sockets`` are its socket
    descriptors when the window opened.  Calls pending at ``start`` are read from the lines before it."""
    window = SystemWindow()
    socks = set(sockets)
    pending: dict[tuple[str, str], tuple[str, str]] = {}  # thread -> (name, first argument) of a blocked call
    with open(log, "rb") as f:
        before = f.read(start).decode(errors="replace")
        during = f.read(max(end - start, 0)).decode(errors="replace")
    for text in before.splitlines():
        _follow(text, pending, None, socks)
    for text in during.splitlines():
        _follow(text, pending, window, socks)
    return window


def _follow(
    text: str, pending: dict[tuple[str, str], tuple[str, str]], window: SystemWindow | None, socks: set[int]
) -> None:
    line = _LINE.match(text.rstrip())
    if not line:
        return
    pid, tid, number, rest = line.groups()
    thread = (pid, tid)
    if rest.startswith("..."):  # a blocking call returning: its name and arguments were on its first line
        if thread not in pending:
            return
        name, first = pending.pop(thread)
    else:
        match = _CALL.match(rest)
        name, first = call_name(rest), (match.group(2).strip() if match else "")
        if name == "unimplemented":  # one valgrind does not know, refused without reaching the kernel
            name = f"syscall {number}"
        if window is not None:
            window.calls[name] += 1
        if rest.rstrip().endswith("--> [async] ..."):
            pending[thread] = (name, first)
            return
    result = _RESULT.search(rest)
    if result is None or window is None:
        return
    ok, value = result.group(1) == "Success", int(result.group(2), 16)
    _account(window, name, first, ok, value, socks)


def _account(window: SystemWindow, name: str, first: str, ok: bool, value: int, socks: set[int]) -> None:
    """What a call that returned in the window did: bytes on sockets, a connection opened (counted where it
    returns: an accept waiting before the window takes the window's connection), socket descriptors opened
    and closed."""
    try:
        fd = int(first, 0)
    except ValueError:
        fd = -1
    if name in OPENS and (ok or (name == "connect" and value == EINPROGRESS)):
        window.connections += 1
    if ok and name in NEW_SOCKETS:
        socks.add(value)
    elif ok and name == "close":
        socks.discard(fd)
    elif ok and fd in socks and name in SENDS:
        window.sent += value
    elif ok and fd in socks and name in RECEIVES:
        window.received += value


def log_sizes(out_dir: Path, pids: Iterable[int]) -> dict[int, int]:
    """Each process's log size now: where its window starts or ends."""
    return {pid: (Path(out_dir) / f"valgrind.{pid}.log").stat().st_size for pid in pids}


def per_request(window: SystemWindow, requests: int) -> Mapping[str, float]:
    """Calls by name per request, largest first."""
    return {name: count / requests for name, count in window.calls.most_common()}
