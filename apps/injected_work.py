"""The per-request knobs shared by every reference app: injected work, burn, delay, leak and planted calls.

``SERVERBENCH_WORK_ITERS=N`` makes each request run N iterations of one pure-Python loop.  The burn
knob (``SERVERBENCH_BURN_US``) spins for a time, so the instructions it adds change with the CPU's
speed; the work knob adds a fixed amount of work, so a counted-instruction (valgrind) cost rises by
the same amount on any machine.  An app with the work knob set answers every response it shapes
with the header ``X-Serverbench-Work: <iterations> <checksum>``: the checksum keeps the loop's
result alive (an optimizing interpreter such as PyPy's JIT may drop an unused one) and lets a test
see that the loop ran N times.

``SERVERBENCH_BURN_US=N`` burns N microseconds of CPU before each request (proves the A/B verdict
detects a known cost); ``SERVERBENCH_DELAY_US=N`` waits N microseconds without CPU (a latency-only
regression, off the CPU: the aiohttp app awaits ``asyncio.sleep``, every other app calls ``time.sleep`` in
the request, as a view that sleeps would); ``SERVERBENCH_LEAK_BYTES=N`` makes each request keep N bytes for good in
a module-level list (a deterministic memory leak, for the memory signal: the process's RSS grows by
about N bytes per request).

Planted off-CPU changes, each what a real view might add and each counted as system calls
(``benchmarks/cost_system.py plants``): ``SERVERBENCH_STAT_PER_REQUEST=N`` looks at a file N times a request
(``os.stat`` of this module, as a view that checks a template's mtime); ``SERVERBENCH_GETADDRINFO=N`` resolves
``localhost`` N times a request (``socket.getaddrinfo``, as a client that resolves its backend's name on each
call).  Two act on ``/redis`` only (apps/sync_workloads.py, apps/async_workloads.py):
``SERVERBENCH_REDIS_EXTRA_GET=N`` sends N more ``GET`` round trips after the pipeline, and
``SERVERBENCH_REDIS_CONNECT=1`` runs the request's pipeline on a connection opened for it and closed after it
(a client made per request instead of the app's pooled one).

``SERVERBENCH_HEAP_DIR=<folder>`` exposes the Python heap without touching what the app serves: while
requests come, each process writes ``<folder>/<pid>`` at most every 0.2 s, two whole numbers,
``sys.getallocatedblocks()`` (objects and small allocations alive) and the bytes glibc's malloc has
handed out (``mallinfo2``: larger objects; -1 where there is no glibc 2.33+).  serverbench's sampler
reads the files of the server's processes (``measure/host/sampling.py``).  A file, not an endpoint: the
endpoint contract stays the same, the server's own signals (gunicorn's USR1, uWSGI's) stay its own,
and no thread is added to a gevent or eventlet worker.  Each write is a new file renamed over the old
one, so a reader never sees half of it, and the pid is read at each write, so a pre-fork server's
workers each write their own.

Every knob is off when unset or 0, and then the apps install no hook at all (no cost): the work knob
as an after-response hook (``ITERS``), the others as one before-request hook (``per_request``,
installed when ``PER_REQUEST``), and the Redis ones only change what ``/redis`` does.
"""

import ctypes
import os
import re
import socket
import sys
import threading
import time

ENV_VAR = "SERVERBENCH_WORK_ITERS"
HEADER = "X-Serverbench-Work"
BURN_VAR = "SERVERBENCH_BURN_US"
DELAY_VAR = "SERVERBENCH_DELAY_US"
LEAK_VAR = "SERVERBENCH_LEAK_BYTES"
STAT_VAR = "SERVERBENCH_STAT_PER_REQUEST"
GETADDRINFO_VAR = "SERVERBENCH_GETADDRINFO"
REDIS_EXTRA_GET_VAR = "SERVERBENCH_REDIS_EXTRA_GET"
REDIS_CONNECT_VAR = "SERVERBENCH_REDIS_CONNECT"
# The running sum stays below 2**30: one CPython digit, so every iteration costs the same at any N.
_MASK = (1 << 30) - 1


def iterations(environ=os.environ, name=ENV_VAR) -> int:
    """A knob's value: 0 when unset; a value that is not a whole number >= 0 is refused."""
    value = environ.get(name)
    if value is None:
        return 0
    if not re.fullmatch(r"[0-9]+", value):
        raise ValueError(
            f"{name}={value!r} is not a whole number >= 0: set it to a whole number "
            f"(e.g. {name}=1000), or unset it for none"
        )
    return int(value)


ITERS = iterations()
BURN_S = int(os.environ.get(BURN_VAR, "0")) / 1e6
DELAY_S = int(os.environ.get(DELAY_VAR, "0")) / 1e6
LEAK_BYTES = iterations(name=LEAK_VAR)
STATS = iterations(name=STAT_VAR)
LOOKUPS = iterations(name=GETADDRINFO_VAR)
REDIS_EXTRA_GETS = iterations(name=REDIS_EXTRA_GET_VAR)  # read by the /redis handlers, not per_request
REDIS_CONNECT = bool(iterations(name=REDIS_CONNECT_VAR))
HEAP_VAR = "SERVERBENCH_HEAP_DIR"
HEAP_DIR = os.environ.get(HEAP_VAR) or None
HEAP_EVERY_S = 0.2  # at the sampler's 0.25 s each sample finds a fresh figure while requests come
PER_REQUEST = bool(BURN_S or LEAK_BYTES or HEAP_DIR or DELAY_S or STATS or LOOKUPS)
_leaked = []  # what the leak knob keeps: never emptied while the process lives
_heap_due = [0.0]  # when the next heap figure is due (a list: written by whichever thread serves)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _mallinfo2():
    try:
        function = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):  # not glibc, or glibc before 2.33
        return None
    function.restype = _Mallinfo2
    return function


_MALLINFO2 = _mallinfo2() if HEAP_DIR else None


def malloc_in_use() -> int:
    """Bytes malloc has handed out and not had back (its heap's chunks in use plus mmapped chunks); -1 unknown."""
    if _MALLINFO2 is None:
        return -1
    info = _MALLINFO2()
    return info.uordblks + info.hblkhd


def write_heap(folder: str, now: float) -> None:
    """Write this process's heap figures to ``<folder>/<pid>`` when due (at most every HEAP_EVERY_S)."""
    if now < _heap_due[0]:
        return
    _heap_due[0] = now + HEAP_EVERY_S
    path = os.path.join(folder, str(os.getpid()))
    temporary = f"{path}.{threading.get_ident()}"  # two threads writing at once never share one
    with open(temporary, "w") as f:
        f.write(f"{sys.getallocatedblocks()} {malloc_in_use()}\n")
    os.replace(temporary, path)


def run(iters: int = ITERS) -> str:
    """Run the loop ``iters`` times; the header value ``"<iterations> <checksum>"``."""
    total = 0
    for i in range(iters):
        total = (total + i) & _MASK
    return f"{iters} {total}"


def per_request(sleep: bool = True) -> None:
    """The before-request knobs: burn the CPU for BURN_S (thread time), keep LEAK_BYTES bytes, write the heap,
    stat a file STATS times, resolve localhost LOOKUPS times, then sleep DELAY_S (``sleep=False``: the caller
    awaits it instead, as the aiohttp app does)."""
    end = time.thread_time() + BURN_S
    while time.thread_time() < end:
        pass
    if LEAK_BYTES:
        _leaked.append(b"\x01" * LEAK_BYTES)  # written, not calloc'd zero pages: the bytes count in RSS
    if HEAP_DIR:
        write_heap(HEAP_DIR, time.monotonic())
    for _ in range(STATS):
        os.stat(__file__)
    for _ in range(LOOKUPS):
        socket.getaddrinfo("localhost", None)
    if DELAY_S and sleep:
        time.sleep(DELAY_S)
