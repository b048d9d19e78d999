"""Resource use of a process tree during a trial: CPU seconds, memory and open files, sampled with psutil.

CPU is counted per process from the first time it is seen (zero for processes born during the
window), so gunicorn or uWSGI workers that appear or exit mid-trial are still accounted.

Memory is read per process from ``/proc/PID/smaps_rollup`` (one file the kernel sums for us, cheap
at every sample; the full ``smaps`` is a line per mapping and is not).  RSS counts every resident
page a process maps, so pages a pre-fork server's workers share with their parent are counted once
per process; PSS divides each shared page among the processes mapping it (the tree's PSS sums to
what the tree really holds), and USS is the process's private pages (what exiting would free).
Where ``smaps_rollup`` is missing (not Linux, kernels before 4.14) PSS and USS are None.

Open descriptors are counted from ``/proc/PID/fd`` in one pass, and those that are sockets beside them
(the link reads ``socket:[inode]``): a connection a server forgets to close shows as a socket, which a
count of every descriptor mixes with files.  psutil's ``net_connections()`` would also give each
socket's state, but it parses the whole of ``/proc/net/tcp`` per call (every socket on the machine),
too slow four times a second at thousands of connections.

The Python heap is read where the server exposes it: an app run with ``SERVERBENCH_HEAP_DIR`` set
(``apps/injected_work.py``) writes ``<dir>/<pid>`` while it serves, and the sampler reads it for each
process of the tree (``heap_dir``); processes that wrote nothing (a master that serves no request) are
left out of the tree's sum.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

MB = 2**20
SERIES_POINTS = 240  # a long soak keeps every other sample past this many, so a record stays small
# The tree's columns of ``memory.series``, in the order each sample keeps them (heap ones only where exposed).
SERIES = ("rss_mb", "pss_mb", "fds", "sockets", "heap_blocks", "heap_malloc_mb")


@dataclass(frozen=True)
class ProcessMemory:
    """One process at one moment: resident, proportional and unique set sizes (bytes), open files, the
    sockets among them, and its Python heap where it exposes it (allocated blocks, malloc's bytes in use)."""

    pid: int
    rss: int
    pss: int | None
    uss: int | None
    fds: int | None
    sockets: int | None = None
    heap: Heap | None = None


@dataclass(frozen=True)
class Heap:
    """A process's Python heap as it wrote it: ``sys.getallocatedblocks()`` (objects and small allocations
    alive) and the bytes glibc's malloc has handed out (the larger objects; None where it cannot say)."""

    blocks: int
    malloc: int | None


@dataclass(frozen=True)
class Usage:
    cpu_s: float | None  # None: not measured (``unmeasured`` says why), never a 0.0 that was not read
    rss_mb: float
    processes: int
    pss_mb: float | None = None  # the tree's peak PSS
    pss_end_mb: float | None = None  # the tree's PSS at the last sample
    uss_mb: float | None = None  # the tree's USS at its peak PSS
    per_process: tuple[dict, ...] = ()  # each process at the end: pid, parent?, rss/pss/uss MB, peak PSS, fds
    series: dict = field(default_factory=dict)  # over the window: t_s, the tree's rss/pss MB, fds, each pid's PSS
    unmeasured: str | None = None  # why ``cpu_s`` is None
    sampler_cpu_s: float | None = None  # the sampler's own CPU where the server runs, over the window
    sampled_on: str = "this machine"  # where the tree was read: here (psutil), or the server host (over SSH)
    host_cpu: dict | None = None  # read on the server host: its cores' busy and stolen seconds over the window


def smaps_rollup(pid: int) -> tuple[int, int] | None:
    """(PSS, USS) in bytes of one process from /proc/PID/smaps_rollup; None where it cannot be read."""
    fields: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                name, _, rest = line.partition(b":")
                if name in (b"Pss", b"Private_Clean", b"Private_Dirty"):
                    fields[name.decode()] = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    if "Pss" not in fields:
        return None
    return fields["Pss"], fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)


def descriptors(pid: int) -> tuple[int, int] | None:
    """(open descriptors, sockets among them) of one process from /proc/PID/fd; None where it cannot be read."""
    fds = sockets = 0
    try:
        with os.scandir(f"/proc/{pid}/fd") as entries:
            for entry in entries:
                fds += 1
                try:
                    sockets += os.readlink(entry.path).startswith("socket:")
                except OSError:  # closed between the listing and the read
                    fds -= 1
    except OSError:
        return None
    return fds, sockets


def heap_file(heap_dir: str | Path, pid: int) -> Heap | None:
    """The heap figures a process wrote to ``<heap_dir>/<pid>`` ("blocks malloc-bytes"; malloc -1 when
    unknown); None when it wrote none (yet) or the file is not that."""
    try:
        fields = (Path(heap_dir) / str(pid)).read_text().split()
        blocks, malloc = int(fields[0]), int(fields[1])
    except (OSError, ValueError, IndexError):
        return None
    return Heap(blocks, None if malloc < 0 else malloc)


def process_memory(proc: psutil.Process, heap_dir: str | Path | None = None) -> ProcessMemory:
    """One process's memory now (psutil.Error if it is gone)."""
    rss = proc.memory_info().rss
    counted = descriptors(proc.pid)
    sizes = smaps_rollup(proc.pid)
    return ProcessMemory(
        proc.pid,
        rss,
        sizes[0] if sizes else None,
        sizes[1] if sizes else None,
        counted[0] if counted else None,
        counted[1] if counted else None,
        heap_file(heap_dir, proc.pid) if heap_dir is not None else None,
    )


def _mb(value: int | None) -> float | None:
    return None if value is None else round(value / MB, 2)


class Periodic:
    """A sampler that reads once as it is entered, every ``interval`` seconds from a daemon thread, and once more as
    it is left: a subclass says what one reading is (``_sample``)."""

    _interval = 0.25

    def _start_thread(self, name: str) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def __enter__(self):
        self._sample(initial=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample(initial=False)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample(initial=False)

    def _sample(self, initial: bool) -> None:
        raise NotImplementedError


class TreeSampler(Periodic):
    """Samples a process and all its descendants every ``interval`` seconds in a daemon thread."""

    def __init__(self, pid: int, interval: float = 0.25, memory: bool = True, heap_dir: str | Path | None = None):
        self._root = psutil.Process(pid)
        self._interval = interval
        self._memory = memory  # PSS/USS and fds too (a backend's sampler needs only CPU)
        self._heap_dir = heap_dir  # where the server's processes write their heap figures (None: they do not)
        self._first: dict[tuple[int, float], float] = {}
        self._last: dict[tuple[int, float], float] = {}
        self._peak_rss = 0
        self._peak_pss: int | None = None
        self._uss_at_peak: int | None = None
        self._end: list[ProcessMemory] = []
        self._peak_by_pid: dict[int, int] = {}
        self._t: list[float] = []
        self._tree: list[tuple] = []  # per sample: rss MB, pss MB, fds, sockets, heap blocks, heap malloc MB
        self._by_pid: dict[int, dict[int, float]] = {}  # pid -> {sample index: PSS MB}
        self._start_thread("serverbench-sampler")
        self._started_at = 0.0
        self._clock = 0.0
        self._own_s = 0.0  # the CPU its own samples took (each thread's own clock, summed)

    def __enter__(self) -> TreeSampler:
        self._started_at = psutil.time.time()
        self._clock = time.monotonic()
        return super().__enter__()

    def usage(self) -> Usage:
        cpu = sum(self._last[key] - self._first[key] for key in self._last)
        root = self._root.pid
        per_process = tuple(
            {
                "pid": m.pid,
                "parent": m.pid == root,
                "rss_mb": _mb(m.rss),
                "pss_mb": _mb(m.pss),
                "uss_mb": _mb(m.uss),
                "peak_pss_mb": _mb(self._peak_by_pid.get(m.pid)),
                "fds": m.fds,
                "sockets": m.sockets,
                **({"heap_blocks": m.heap.blocks, "heap_malloc_mb": _mb(m.heap.malloc)} if m.heap else {}),
            }
            for m in self._end
        )
        end_pss = None if not self._end or any(m.pss is None for m in self._end) else sum(m.pss for m in self._end)
        unmeasured = None if self._last else f"the server's process {root} was not found by any sample"
        return Usage(
            cpu_s=round(cpu, 3) if unmeasured is None else None,
            rss_mb=round(self._peak_rss / MB, 1),
            processes=len(self._last),
            pss_mb=_mb(self._peak_pss),
            pss_end_mb=_mb(end_pss),
            uss_mb=_mb(self._uss_at_peak),
            per_process=per_process,
            series=self._series() if self._memory else {},
            unmeasured=unmeasured,
            sampler_cpu_s=round(self._own_s, 3),
        )

    def _series(self) -> dict:
        """The samples over the window, thinned to at most SERIES_POINTS (every k-th one)."""
        step = max(1, -(-len(self._t) // SERIES_POINTS))
        keep = range(0, len(self._t), step)
        columns = {name: [self._tree[i][k] for i in keep] for k, name in enumerate(SERIES)}
        if all(v is None for v in columns["heap_blocks"]):  # the server exposes no heap: no columns of None
            del columns["heap_blocks"], columns["heap_malloc_mb"]
        return {
            "t_s": [round(self._t[i], 2) for i in keep],
            **columns,
            "pss_mb_by_pid": {str(pid): [values.get(i) for i in keep] for pid, values in self._by_pid.items()},
        }

    def _sample(self, initial: bool) -> None:
        began = time.thread_time()
        try:
            self._read(initial)
        finally:
            self._own_s += time.thread_time() - began

    def _read(self, initial: bool) -> None:
        try:
            procs = [self._root] + self._root.children(recursive=True)
        except psutil.Error:
            return
        rss = 0
        memories = []
        for proc in procs:
            try:
                with proc.oneshot():
                    times = proc.cpu_times()
                    key = (proc.pid, proc.create_time())
                    if self._memory:
                        memory = process_memory(proc, self._heap_dir)
                        memories.append(memory)
                        rss += memory.rss
                    else:
                        rss += proc.memory_info().rss
            except psutil.Error:
                continue
            cpu = times.user + times.system
            if key not in self._first:
                self._first[key] = cpu if initial or key[1] < self._started_at else 0.0
            self._last[key] = cpu
        self._peak_rss = max(self._peak_rss, rss)
        if self._memory and memories:
            self._record(memories, rss)

    def _record(self, memories: list[ProcessMemory], rss: int) -> None:
        pss = None if any(m.pss is None for m in memories) else sum(m.pss or 0 for m in memories)
        fds = None if any(m.fds is None for m in memories) else sum(m.fds or 0 for m in memories)
        sockets = None if any(m.sockets is None for m in memories) else sum(m.sockets or 0 for m in memories)
        heaps = [m.heap for m in memories if m.heap is not None]
        mallocs = [h.malloc for h in heaps]
        index = len(self._t)
        self._t.append(time.monotonic() - self._clock)
        self._tree.append(
            (
                round(rss / MB, 2),
                _mb(pss),
                fds,
                sockets,
                sum(h.blocks for h in heaps) if heaps else None,
                _mb(sum(mallocs)) if heaps and None not in mallocs else None,
            )
        )
        self._end = memories
        for m in memories:
            if m.pss is not None:
                self._peak_by_pid[m.pid] = max(self._peak_by_pid.get(m.pid, 0), m.pss)
                self._by_pid.setdefault(m.pid, {})[index] = round(m.pss / MB, 2)
        if pss is not None and (self._peak_pss is None or pss > self._peak_pss):
            self._peak_pss = pss
            self._uss_at_peak = sum(m.uss or 0 for m in memories)
