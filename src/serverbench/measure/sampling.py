"""Resource use of a process tree during a trial: CPU seconds and peak RSS, sampled with psutil.

CPU is counted per process from the first time it is seen (zero for processes born during the
window), so gunicorn or uWSGI workers that appear or exit mid-trial are still accounted.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import psutil


@dataclass(frozen=True)
class Usage:
    cpu_s: float
    rss_mb: float
    processes: int


class TreeSampler:
    """Samples a process and all its descendants every ``interval`` seconds in a daemon thread."""

    def __init__(self, pid: int, interval: float = 0.25):
        self._root = psutil.Process(pid)
        self._interval = interval
        self._first: dict[tuple[int, float], float] = {}
        self._last: dict[tuple[int, float], float] = {}
        self._peak_rss = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="serverbench-sampler", daemon=True)
        self._started_at = 0.0

    def __enter__(self) -> "TreeSampler":
        self._started_at = psutil.time.time()
        self._sample(initial=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample(initial=False)

    def usage(self) -> Usage:
        cpu = sum(self._last[key] - self._first[key] for key in self._last)
        return Usage(cpu_s=round(cpu, 3), rss_mb=round(self._peak_rss / 2**20, 1), processes=len(self._last))

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample(initial=False)

    def _sample(self, initial: bool) -> None:
        try:
            procs = [self._root] + self._root.children(recursive=True)
        except psutil.Error:
            return
        rss = 0
        for proc in procs:
            try:
                with proc.oneshot():
                    times = proc.cpu_times()
                    key = (proc.pid, proc.create_time())
                    rss += proc.memory_info().rss
            except psutil.Error:
                continue
            cpu = times.user + times.system
            if key not in self._first:
                self._first[key] = cpu if initial or key[1] < self._started_at else 0.0
            self._last[key] = cpu
        self._peak_rss = max(self._peak_rss, rss)
