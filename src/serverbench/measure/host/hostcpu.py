"""The whole machine's CPU during a measured window, from the kernel's counters (psutil.cpu_times).

A shared machine runs other work beside a trial: a compiler, another test session, a neighbour's VM.
Those take cores from the server and the generator without showing in either's CPU; the record keeps
what every process on the machine used (``busy_s``) and what the hypervisor gave to other guests
(``steal_s``), so a judge can tell a quiet window from a crowded one (judge.checks.neighbours).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import psutil

BUSY_FIELDS = ("user", "nice", "system", "irq", "softirq")


@dataclass(frozen=True)
class HostCPU:
    """CPU seconds summed over all cores: busy (every process and the kernel's interrupt work) and stolen."""

    busy_s: float
    steal_s: float
    wall_s: float = 0.0  # the wall time between the two readings


def _read() -> tuple[float, float]:
    times = psutil.cpu_times()
    return sum(getattr(times, f, 0.0) for f in BUSY_FIELDS), getattr(times, "steal", 0.0)


class HostSampler:
    """Reads the machine's CPU counters when made; ``stop()`` reads them again and returns the difference."""

    def __init__(self) -> None:
        self._start = _read()
        self._started = time.monotonic()

    def stop(self) -> HostCPU:
        end = _read()
        return HostCPU(
            round(end[0] - self._start[0], 3),
            round(end[1] - self._start[1], 3),
            round(time.monotonic() - self._started, 3),
        )
