"""The per-request knobs shared by every reference app: injected work, burn, delay and leak.

``SERVERBENCH_WORK_ITERS=N`` makes each request run N iterations of one pure-Python loop.  The burn
knob (``SERVERBENCH_BURN_US``) spins for a time, so the instructions it adds change with the CPU's
speed; the work knob adds a fixed amount of work, so a counted-instruction (valgrind) cost rises by
the same amount on any machine.  An app with the work knob set answers every response it shapes
with the header ``X-Serverbench-Work: <iterations> <checksum>``: the checksum keeps the loop's
result alive (an optimizing interpreter such as PyPy's JIT may drop an unused one) and lets a test
see that the loop ran N times.

``SERVERBENCH_BURN_US=N`` burns N microseconds of CPU before each request (proves the A/B verdict
detects a known cost); ``SERVERBENCH_DELAY_US=N`` (aiohttp) waits N microseconds without CPU (a
latency-only regression); ``SERVERBENCH_LEAK_BYTES=N`` makes each request keep N bytes for good in
a module-level list (a deterministic memory leak, for the memory signal: the process's RSS grows by
about N bytes per request).

Every knob is off when unset or 0, and then the apps install no hook at all (no cost): the work knob
as an after-response hook (``ITERS``), the others as one before-request hook (``per_request``,
installed when ``PER_REQUEST``).
"""
import os
import re
import time

ENV_VAR = "SERVERBENCH_WORK_ITERS"
HEADER = "X-Serverbench-Work"
BURN_VAR = "SERVERBENCH_BURN_US"
DELAY_VAR = "SERVERBENCH_DELAY_US"
LEAK_VAR = "SERVERBENCH_LEAK_BYTES"
# The running sum stays below 2**30: one CPython digit, so every iteration costs the same at any N.
_MASK = (1 << 30) - 1


def iterations(environ=os.environ, name=ENV_VAR) -> int:
    """A knob's value: 0 when unset; a value that is not a whole number >= 0 is refused."""
    value = environ.get(name)
    if value is None:
        return 0
    if not re.fullmatch(r"[0-9]+", value):
        raise ValueError(f"{name}={value!r} is not a whole number >= 0: set it to a whole number "
                         f"(e.g. {name}=1000), or unset it for none")
    return int(value)


ITERS = iterations()
BURN_S = int(os.environ.get(BURN_VAR, "0")) / 1e6
DELAY_S = int(os.environ.get(DELAY_VAR, "0")) / 1e6
LEAK_BYTES = iterations(name=LEAK_VAR)
PER_REQUEST = bool(BURN_S or LEAK_BYTES)
_leaked = []  # what the leak knob keeps: never emptied while the process lives


def run(iters: int = ITERS) -> str:
    """Run the loop ``iters`` times; the header value ``"<iterations> <checksum>"``."""
    total = 0
    for i in range(iters):
        total = (total + i) & _MASK
    return f"{iters} {total}"


def per_request() -> None:
    """The before-request knobs: burn the CPU for BURN_S (thread time), then keep LEAK_BYTES bytes."""
    end = time.thread_time() + BURN_S
    while time.thread_time() < end:
        pass
    if LEAK_BYTES:
        _leaked.append(b"\x01" * LEAK_BYTES)  # written, not calloc'd zero pages: the bytes count in RSS
