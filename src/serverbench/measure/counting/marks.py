"""Where a counted window starts and ends in each server process, besides its instruction counts: its valgrind
log's size (the system calls between, :mod:`.systrace`), its socket descriptors and their peers (:mod:`.peers`, at
both ends), and its program's resident memory (:mod:`.clientmemory`).  The segment lists ride on the vgdb calls
that switch counting on and dump it: no extra call.  :func:`measure.counting.cost.measure_cost` passes
:meth:`Marks.on`, :meth:`Marks.end` and :meth:`Marks.off` as the window's switches, then reads :meth:`Marks.system`
and :meth:`Marks.kept`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ...records.cost import SystemCounts
from . import callgrind, clientmemory, systrace
from .peers import Address, opened_between, socket_peers, tcp_connections
from .sequential import SequentialClient


class Marks:
    """One counted window's marks in each process (see the module's text)."""

    def __init__(self, out_dir: Path, backends: Mapping[Address, str] | None = None, ports: Iterable[int] = ()):
        self.out_dir = out_dir
        self.backends = dict(backends or {})  # the session's backends by address: how their peers are named
        self.ports = tuple(ports)  # the server's own ports: a socket on one is a client's
        self.start: dict[int, int] = {}
        self.stop: dict[int, int] = {}
        self.sockets: dict[int, Mapping[int, str]] = {}  # each process's socket descriptors and peers, window open
        self.sockets_at_end: dict[int, Mapping[int, str]] = {}
        self.tcp: dict[tuple, str] = {}  # the namespace's TCP connections (any state) as the window opened
        self.opened: dict[str, int] = {}  # the connections the window opened to each backend (closed: in TIME_WAIT)
        self.memory: list[dict[int, int | None]] = []
        self.server_log: Path | None = None  # where valgrind writes each process's segment list (its stderr)

    def on(self, pids: list[int]) -> None:
        callgrind.control(pids, *clientmemory.COMMAND, "-c", "instrumentation", "on")
        self.start = systrace.log_sizes(self.out_dir, pids)
        self.sockets = {pid: socket_peers(pid, self.backends, self.ports) for pid in pids}
        self.tcp = tcp_connections(pids[0], self.backends, self.ports) if pids else {}
        self.memory.append(self._resident(pids))

    def end(self, pids: list[int], client: SequentialClient) -> None:
        self.stop = systrace.log_sizes(self.out_dir, pids)  # the last request answered, its connection still open
        self.sockets_at_end = {pid: socket_peers(pid, self.backends, self.ports) for pid in pids}
        if pids:  # a backend's only: another session's connections on this machine's loopback would blur the rest
            opened = opened_between(self.tcp, tcp_connections(pids[0], self.backends, self.ports))
            names = set(self.backends.values())
            self.opened = {peer: n for peer, n in opened.items() if peer in names}

    def off(self, pids: list[int]) -> None:
        callgrind.control(pids, *clientmemory.COMMAND, "-c", "dump")
        self.memory.append(self._resident(pids))

    def _resident(self, pids: list[int]) -> dict[int, int | None]:
        log = self.server_log.read_text(errors="replace") if self.server_log is not None else ""
        found = {}
        for pid in pids:
            ranges = clientmemory.client_anon(log, pid)
            found[pid] = clientmemory.resident(clientmemory.read_smaps(pid), ranges) if ranges else None
        return found

    def system(self, pids: list[int], requests: int) -> tuple[SystemCounts | None, str]:
        """The window's system calls per request, or None and why they were not seen."""
        total = systrace.SystemWindow()
        for pid in pids:
            log = self.out_dir / f"valgrind.{pid}.log"
            if not systrace.traced(log):
                return None, (
                    f"{callgrind.valgrind_version()} wrote no system-call trace for pid {pid} ({log.name}): "
                    "system calls, socket bytes and connections are not counted for this cell"
                )
            sockets, at_end = self.sockets.get(pid, {}), self.sockets_at_end.get(pid, {})
            total.add(systrace.read_window(log, self.start[pid], self.stop[pid], sockets, at_end, self.opened))
        return systrace.counts(total, requests), ""

    def kept(self, requests: int) -> tuple[float | None, str]:
        """Bytes the program's resident memory grew by per request across the window, or None and why."""
        before, after = self.memory
        if any(v is None for v in (*before.values(), *after.values())) or set(before) != set(after):
            return None, (
                "valgrind wrote no segment list into the server's log (v.info memory aspacemgr): "
                "the program's memory cannot be told from valgrind's"
            )
        return sum(after[p] - before[p] for p in before) / requests, ""
