"""A noisy neighbour: one process per core that steals CPU in random bursts, as a shared runner's neighbours do.

    python benchmarks/neighbours.py SEED LOW HIGH      # one neighbour: spin LOW..HIGH s, idle LOW..HIGH s, forever

Each neighbour alternates a busy spell (a pure-Python spin) and an idle one (a sleep), each of a length drawn
uniformly from [LOW, HIGH] seconds by its own seeded generator, so a run can be made again.  Neighbours are not
pinned: the scheduler puts them where it likes, beside the servers and the load generators.  :class:`Noise` starts
one per core before a decision and stops them by pid after it, and says what share of the machine's CPU they took
(their CPU seconds from /proc over wall seconds times cores).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def neighbour(seed: int, low: float, high: float) -> None:
    """Busy, then idle, each for a uniformly random time in [low, high] s, until killed."""
    rng = random.Random(seed)
    while True:
        end = time.monotonic() + rng.uniform(low, high)
        while time.monotonic() < end:
            pass
        time.sleep(rng.uniform(low, high))


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` (Linux: /proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Noise:
    """``with Noise(seed, cores, low, high) as noise:`` one neighbour per core for the block; ``noise.record()``
    after it: the parameters and the CPU share they took."""

    def __init__(self, seed: int, cores: int | None = None, low: float = 0.05, high: float = 1.0):
        self.seed, self.cores, self.low, self.high = seed, cores or os.cpu_count() or 1, low, high
        self.processes: list[subprocess.Popen] = []
        self.cpu_s = self.wall_s = 0.0

    def __enter__(self) -> Noise:
        self.started = time.monotonic()
        for i in range(self.cores):
            argv = [sys.executable, __file__, str(self.seed * 100 + i), str(self.low), str(self.high)]
            self.processes.append(subprocess.Popen(argv, start_new_session=True, stdin=subprocess.DEVNULL))
        return self

    def __exit__(self, *exc) -> None:
        self.wall_s = time.monotonic() - self.started
        for p in self.processes:
            try:
                self.cpu_s += cpu_seconds(p.pid)
            except (OSError, IndexError, ValueError):  # already gone: its CPU is not known, counted as none
                pass
            os.kill(p.pid, signal.SIGTERM)
        for p in self.processes:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.kill(p.pid, signal.SIGKILL)
                p.wait()
        self.processes = []

    def record(self) -> dict:
        return {
            "neighbours": self.cores,
            "busy_s": [self.low, self.high],
            "idle_s": [self.low, self.high],
            "seed": self.seed,
            "cpu_share": round(self.cpu_s / max(self.wall_s * self.cores, 1e-9), 3),
        }


if __name__ == "__main__":
    neighbour(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]))
