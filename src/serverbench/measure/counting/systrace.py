"""System calls, socket bytes and connections of a counted window, from valgrind's own system-call trace.

Valgrind runs every system call of the program it counts, so with ``--trace-syscalls=yes`` it writes
each one to the process's log (``valgrind.<pid>.log``), in the same run that counts instructions::

    SYSCALL[4711,1](45) sys_recvfrom ( 5, 0x5475c70, 100, 0, 0x0, 0x0 ) --> [async] ...
    SYSCALL[4711,1](45) ... [async] --> Success(0x2)
    SYSCALL[4711,1](3) sys_close ( 5 )[sync] --> Success(0x0)

A blocking call is written twice: when it starts, and (``... [async] -->``) when it returns.  The window
is the stretch of each log between two offsets taken while the server was quiet (every thread blocked in
the kernel), so it holds only the counted requests' calls; vgdb's wake-ups leave no line.  A call is
counted where it starts; its bytes where it returns.  Which descriptors are sockets, and their peers, are read
from ``/proc`` when the window opens (:mod:`.peers`), then followed through the window (accept, socket, connect,
close): each call whose first argument is a socket, its bytes and its connection count for that socket's peer too.
A socket opened in the window is named by what ``/proc`` shows when the window ends; one that had closed by then
(the trace writes a ``connect``'s address as a pointer) by the one peer the kernel's table shows new connections to
(:func:`.peers.opened_between`), or ``unseen`` when they went to none or to several.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ...records.cost import CLIENTS, UNSEEN, SystemCounts
from .peers import OTHER

_LINE = re.compile(r"^SYSCALL\[(\d+),(\d+)\]\((\d+)\) (.*)$")
_RESULT = re.compile(r"--> (?:\[[a-z-]+\] )?(Success|Failure)\(0x([0-9a-f]+)\)")
_ARGS = re.compile(r"\( ?([^,)]*), ?([^,)]*)")  # a call's first two arguments: sys_socket ( 2, 526337, 6 )
_CALL = re.compile(r"^([A-Za-z0-9_]+)(?:\[[^\]]*\])? ?\( ?([^,)]*)")  # sys_fcntl[ARG3=='arg'] ( 5, ...

SENDS = frozenset({"sendto", "sendmsg", "write", "writev", "pwritev", "pwritev2", "sendfile", "sendfile64"})
RECEIVES = frozenset({"recvfrom", "recvmsg", "read", "readv", "preadv", "preadv2"})
OPENS = frozenset({"accept", "accept4", "connect"})
NEW_SOCKETS = frozenset({"accept", "accept4", "socket"})
EINPROGRESS = 115  # a non-blocking connect that was started: a connection opened all the same


@dataclass
class SystemWindow:
    """What a window asked of the kernel, summed over processes: calls by name, socket bytes, connections; and the
    same per peer of the sockets they were made on (:mod:`.peers`: ``clients``, ``redis``, ``127.0.0.1:8125``)."""

    calls: Counter = field(default_factory=Counter)
    sent: int = 0
    received: int = 0
    connections: int = 0
    peers: dict[str, SystemWindow] = field(default_factory=dict)

    def add(self, other: SystemWindow) -> None:
        self.calls.update(other.calls)
        self.sent += other.sent
        self.received += other.received
        self.connections += other.connections
        for peer, window in other.peers.items():
            self.peers.setdefault(peer, SystemWindow()).add(window)


@dataclass
class _Socket:
    """One socket descriptor from its opening (or the window's) to its close: its peer (None: opened in the window,
    named when the window ends if it is still open) and what was asked of it."""

    peer: str | None
    window: SystemWindow = field(default_factory=SystemWindow)
    tcp: bool = False  # made by socket(AF_INET or AF_INET6, SOCK_STREAM) in the window: a TCP connection's


@dataclass
class _Sockets:
    """The process's open sockets by descriptor, and those closed in the window."""

    open: dict[int, _Socket]
    closed: list[_Socket] = field(default_factory=list)

    def opened(self, fd: int, peer: str | None) -> _Socket:
        if fd in self.open:  # a close the trace did not show: the descriptor was reused
            self.closed.append(self.open[fd])
        self.open[fd] = _Socket(peer)
        return self.open[fd]

    def close(self, fd: int) -> None:
        if fd in self.open:
            self.closed.append(self.open.pop(fd))

    def by_peer(self, at_end: Mapping[int, str], opened: Mapping[str, int] = {}) -> dict[str, SystemWindow]:
        """Each peer's share of the window; a socket opened in the window is named by what was read when it ended
        (``at_end``), else by the one peer the window's new connections went to (``opened``: by peer), else
        ``unseen``."""
        found: dict[str, SystemWindow] = {}
        named = [(s.peer or at_end.get(fd), s) for fd, s in self.open.items()] + [(s.peer, s) for s in self.closed]
        unnamed_tcp = sum(1 for peer, s in named if peer is None and s.tcp and s.window.connections)
        only = next(iter(opened)) if len(opened) == 1 else None
        gone = only if only is not None and unnamed_tcp and opened[only] >= unnamed_tcp else UNSEEN
        named = [(peer or (gone if s.tcp and s.window.connections else UNSEEN), s) for peer, s in named]
        for peer, sock in named:
            if sock.window.calls or sock.window.connections:
                found.setdefault(peer, SystemWindow()).add(sock.window)
        return found


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


def read_window(
    log: Path,
    start: int,
    end: int,
    sockets: Mapping[int, str] | Iterable[int],
    at_end: Mapping[int, str] = {},
    opened: Mapping[str, int] = {},
) -> SystemWindow:
    """The calls between byte offsets ``start`` and ``end`` of one process's log; ``sockets`` are its socket
    descriptors when the window opened, with their peers (:func:`.peers.socket_peers`; a bare set: peers unknown),
    ``at_end`` those read when it ended, ``opened`` the TCP connections the kernel's table shows opened in the
    window, by peer (:func:`.peers.opened_between`).  Calls pending at ``start`` are read from the lines before it."""
    window = SystemWindow()
    peers = sockets if isinstance(sockets, Mapping) else dict.fromkeys(sockets, OTHER)
    socks = _Sockets({fd: _Socket(peer) for fd, peer in peers.items()})
    pending: dict[tuple[str, str], tuple[str, str]] = {}  # thread -> (name, first argument) of a blocked call
    with open(log, "rb") as f:
        before = f.read(start).decode(errors="replace")
        during = f.read(max(end - start, 0)).decode(errors="replace")
    for text in before.splitlines():
        _follow(text, pending, None, socks)
    for text in during.splitlines():
        _follow(text, pending, window, socks)
    window.peers = socks.by_peer(at_end, opened)
    return window


def _follow(
    text: str, pending: dict[tuple[str, str], tuple[str, str]], window: SystemWindow | None, socks: _Sockets
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
            if name == "connect" and _fd(first) not in socks.open:  # a socket from before the trace's reach
                socks.opened(_fd(first), None)
            sock = socks.open.get(_fd(first))
            if sock is not None and name not in NEW_SOCKETS - {"accept", "accept4"}:
                sock.window.calls[name] += 1
        if rest.rstrip().endswith("--> [async] ..."):
            pending[thread] = (name, first)
            return
    result = _RESULT.search(rest)
    if result is None or window is None:
        return
    ok, value = result.group(1) == "Success", int(result.group(2), 16)
    _account(window, name, _fd(first), ok, value, socks, name == "socket" and _tcp(rest))


def _fd(first: str) -> int:
    try:
        return int(first, 0)
    except ValueError:
        return -1


def _tcp(call: str) -> bool:
    """Whether a ``socket(...)`` call's line makes a TCP socket: domain AF_INET (2) or AF_INET6 (10), type
    SOCK_STREAM (1, its flags masked off)."""
    match = _ARGS.search(call)
    if match is None:
        return False
    domain, kind = (_fd(a.strip()) for a in match.groups())
    return domain in (2, 10) and kind >= 0 and kind & 0xF == 1


def _account(
    window: SystemWindow, name: str, fd: int, ok: bool, value: int, socks: _Sockets, tcp: bool = False
) -> None:
    """What a call that returned in the window did: bytes on sockets, a connection opened (counted where it
    returns: an accept waiting before the window takes the window's connection), socket descriptors opened
    and closed, each on its socket too."""
    if name in OPENS and (ok or (name == "connect" and value == EINPROGRESS)):
        window.connections += 1
        if name == "connect":
            (socks.open.get(fd) or socks.opened(fd, None)).window.connections += 1
    if ok and name in NEW_SOCKETS:
        accepted = name != "socket"
        sock = socks.opened(value, CLIENTS if accepted else None)
        sock.tcp = tcp
        sock.window.connections += accepted
        if not accepted:
            sock.window.calls[name] += 1
    elif ok and name == "close":
        socks.close(fd)
    elif ok and fd in socks.open and name in SENDS:
        window.sent += value
        socks.open[fd].window.sent += value
    elif ok and fd in socks.open and name in RECEIVES:
        window.received += value
        socks.open[fd].window.received += value


def log_sizes(out_dir: Path, pids: Iterable[int]) -> dict[int, int]:
    """Each process's log size now: where its window starts or ends."""
    return {pid: (Path(out_dir) / f"valgrind.{pid}.log").stat().st_size for pid in pids}


def per_request(window: SystemWindow, requests: int) -> Mapping[str, float]:
    """Calls by name per request, largest first."""
    return {name: count / requests for name, count in window.calls.most_common()}


def counts(window: SystemWindow, requests: int, peers: bool = True) -> SystemCounts:
    """The window's figures per request, and (``peers``) each peer's."""
    return SystemCounts(
        per_request(window, requests),
        window.sent / requests,
        window.received / requests,
        window.connections / requests,
        {peer: counts(w, requests, False) for peer, w in sorted(window.peers.items())} if peers else None,
    )
