"""A server's process tree on the server host, sampled over SSH: one round trip per sample, nothing of ours left there.

A session apart from the server host (docs/hosts.md) starts the server there on a tether (measure.serving.remote): the
tether leads a process group of its own, and the server and every process it forks are in it.  Every ``interval``
seconds one round trip over the host's master connection reads every ``/proc/PID/stat`` there (hosts.procstat, as the
backends host's CPU is read), through one shell kept open there for the server's life (:class:`StatChannel`): the tree
is the group less the tether itself.  CPU is counted per process from the first time it is seen (zero for a process
born during the window), as :class:`~.sampling.TreeSampler` counts it here, and RSS is the group's sum at its peak.
PSS, descriptors and the heap are not read there (None: not measured).

The sampler's own CPU on the server host is measured and kept beside: that shell's CPU with its waited-for children's
(each sample's ``cat``: ``/proc/PID/stat`` fields 14-17), and the sshd process that carries this controller's
connection there (its parent) with its own, from the window's first sample to its last.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from ...hosts import procstat
from ...hosts.channel import StatChannel
from .sampling import MB, Periodic, Usage


@dataclass
class TreeTally:
    """The tree of process group ``group`` (less its ``leader``, the tether) over successive samples.  Pure."""

    group: int
    leader: int
    tick: int = 100
    page: int = 4096
    samples: int = 0
    failed: int = 0  # round trips that read nothing (the host did not answer in time)
    _first: dict = field(default_factory=dict)
    _last: dict = field(default_factory=dict)
    _peak_rss: int = 0
    _own_first: dict = field(default_factory=dict)  # the sampler's shell and its sshd: ticks with their children's
    _own_last: dict = field(default_factory=dict)
    cores: tuple[int, ...] | None = None  # the server host's cores (the inventory's), whose busy time is kept
    _cpu_first: tuple[int, int] | None = None  # those cores' busy and stolen ticks, at the first sample and the last
    _cpu_last: tuple[int, int] | None = None
    _at_first: float | None = None
    _at_last: float | None = None

    def add(self, sampled: procstat.Sampled, initial: bool = False, at: float | None = None) -> None:
        """One sample; ``initial``: the window's first, whose processes count from what they had used by then;
        ``at``: when it was read (seconds, any clock), for the wall time the cores' readings cover."""
        self.samples += 1
        if at is not None:
            self._at_first = at if self._at_first is None else self._at_first
            self._at_last = at
        rss = 0
        for stat in sampled.stats.values():
            if stat.pgrp != self.group or stat.pid == self.leader:
                continue
            self._first.setdefault(stat.key, stat.ticks if initial else 0)
            self._last[stat.key] = stat.ticks
            rss += stat.rss_pages * self.page
        self._peak_rss = max(self._peak_rss, rss)
        names = ["cpu"] if self.cores is None else [f"cpu{c}" for c in self.cores]
        if sampled.cpus and all(n in sampled.cpus for n in names):
            read = tuple(sum(sampled.cpus[n][k] for n in names) for k in (0, 1))
            self._cpu_first = self._cpu_first or read
            self._cpu_last = read
        for pid in (sampled.shell, sampled.sshd):  # the sampler's shell there and the sshd carrying it
            own = sampled.stats.get(pid) if pid is not None else None
            if own is not None:
                self._own_first.setdefault(own.key, own.ticks + own.children_ticks)
                self._own_last[own.key] = own.ticks + own.children_ticks

    @property
    def unmeasured(self) -> str | None:
        """Why the tree's CPU was not measured (None: it was)."""
        if self.samples < 2:
            return f"{self.samples} of the server host's samples were read ({self.failed} round trips failed)"
        if not self._last:
            return f"no process of the server's group {self.group} was found on the server host"
        return None

    def cpu_s(self) -> float | None:
        if self.unmeasured is not None:
            return None
        return round(sum(self._last[k] - self._first[k] for k in self._last) / self.tick, 3)

    def own_cpu_s(self) -> float | None:
        """The CPU serverbench itself used on the server host between the first sample and the last (None: neither
        its shell nor its sshd was found in the samples)."""
        if not self._own_last:
            return None
        return round(sum(self._own_last[k] - self._own_first[k] for k in self._own_last) / self.tick, 3)

    def host_cpu(self) -> dict | None:
        """The server host's cores over the window, as the kernel counts them: busy (every process there and its
        interrupts) and stolen CPU seconds; None with fewer than two readings."""
        if self._cpu_first is None or self._cpu_last is None or self.samples < 2:
            return None
        busy, steal = (round((b - a) / self.tick, 3) for a, b in zip(self._cpu_first, self._cpu_last))
        wall = None if self._at_first is None or self._at_last is None else round(self._at_last - self._at_first, 3)
        cores = list(self.cores) if self.cores is not None else "all"
        return {"cores": cores, "busy_s": busy, "steal_s": steal, "wall_s": wall}

    def usage(self) -> Usage:
        return Usage(
            cpu_s=self.cpu_s(),
            rss_mb=round(self._peak_rss / MB, 1),
            processes=len(self._last),
            unmeasured=self.unmeasured,
            sampler_cpu_s=self.own_cpu_s(),
            sampled_on="server host",
            host_cpu=self.host_cpu(),
        )


class RemoteTreeSampler(Periodic):
    """Samples process group ``group`` (less ``leader``) through ``channel`` every ``interval`` seconds, from a daemon
    thread here; the same context-manager contract as :class:`~.sampling.TreeSampler`."""

    def __init__(
        self,
        channel: StatChannel,
        group: int,
        leader: int,
        units: tuple[int, int] = (100, 4096),
        interval: float = 0.25,
        cores: tuple[int, ...] | None = None,
    ):
        self._channel, self._interval = channel, interval
        self.tally = TreeTally(group, leader, *units, cores=cores)
        self._lock = threading.Lock()
        self._start_thread("serverbench-remote-sampler")

    def usage(self) -> Usage:
        with self._lock:
            return self.tally.usage()

    def _sample(self, initial: bool) -> None:
        sampled = self._channel.ask()
        at = time.monotonic()  # as its answer came: the cores' reading is then at most a round trip old
        with self._lock:
            if sampled is None:
                self.tally.failed += 1
                return
            self.tally.add(sampled, initial=initial or self.tally.samples == 0, at=at)
