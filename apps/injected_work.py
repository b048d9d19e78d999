"""The deterministic injection knob, shared by every reference app: ``SERVERBENCH_WORK_ITERS=N`` makes each
request run N iterations of one pure-Python loop.

The burn knob (SERVERBENCH_BURN_US) spins for a time, so the instructions it adds change with the CPU's
speed; this one adds a fixed amount of work, so a counted-instruction (valgrind) cost rises by the same
amount on any machine.  Unset or 0: the apps install no hook at all.  An app with the knob set answers
every response it shapes with the header ``X-Serverbench-Work: <iterations> <checksum>``: the checksum
keeps the loop's result alive (an optimizing interpreter such as PyPy's JIT may drop an unused one) and
lets a test see that the loop ran N times.
"""
import os
import re

ENV_VAR = "SERVERBENCH_WORK_ITERS"
HEADER = "X-Serverbench-Work"
# The running sum stays below 2**30: one CPython digit, so every iteration costs the same at any N.
_MASK = (1 << 30) - 1


def iterations(environ=os.environ) -> int:
    """The knob's value: 0 when unset; a value that is not a whole number >= 0 is refused."""
    value = environ.get(ENV_VAR)
    if value is None:
        return 0
    if not re.fullmatch(r"[0-9]+", value):
        raise ValueError(f"{ENV_VAR}={value!r} is not a whole number >= 0: set it to the loop iterations "
                         f"each request runs (e.g. {ENV_VAR}=1000), or unset it for none")
    return int(value)


ITERS = iterations()


def run(iters: int = ITERS) -> str:
    """Run the loop ``iters`` times; the header value ``"<iterations> <checksum>"``."""
    total = 0
    for i in range(iters):
        total = (total + i) & _MASK
    return f"{iters} {total}"


# The leak knob (docs/memory.md): SERVERBENCH_LEAK_BYTES=N makes each request keep N bytes for the life of
# the process, a deterministic leak the soak's growth judge must catch.  Unset or 0: no hook is installed.
LEAK_ENV_VAR = "SERVERBENCH_LEAK_BYTES"
LEAK_BYTES = int(os.environ.get(LEAK_ENV_VAR) or 0)
_retained = []


def leak(size: int = LEAK_BYTES) -> None:
    """Keep ``size`` fresh bytes forever.  Written, not zeroed: a zeroed buffer can come from calloc'd pages
    the kernel never maps until touched, so the leak would not show in memory at all."""
    _retained.append(b"\x01" * size)
