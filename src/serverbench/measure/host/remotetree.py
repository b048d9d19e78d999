"""A server's process tree on the server host, sampled over SSH: one round trip per sample, nothing of ours left there.

A session apart from the server host (docs/hosts.md) starts the server there on a tether (measure.serving.remote): the
tether leads a process group of its own, and the server and every process it forks are in it.  Every ``interval``
seconds one command over the host's master connection prints every ``/proc/PID/stat`` there (hosts.procstat, as the
backends host's CPU is read): the tree is the group less the tether itself.  CPU is counted per process from the first
time it is seen (zero for a process born during the window), as :class:`~.sampling.TreeSampler` counts it here, and
RSS is the group's sum at its peak.  PSS, descriptors and the heap are not read there (None: not measured).

The sampler's own CPU on the server host is measured and kept beside: every round trip's shell and ``cat`` end as
children of the sshd process that carries this controller's connection there, so that process's CPU with its
waited-for children's (``/proc/PID/stat`` fields 14-17), from the first sample to the last, is what serverbench
itself used there during the window.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from ...errors import HostError
from ...hosts import procstat
from ...hosts.inventory import Host
from ...hosts.ssh import Connections
from .sampling import MB, Periodic, Usage

SAMPLE_TIMEOUT_S = 15.0


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
    _own_first: dict = field(default_factory=dict)  # the sshd carrying our connection: its ticks with its children's
    _own_last: dict = field(default_factory=dict)

    def add(self, sampled: procstat.Sampled, initial: bool = False) -> None:
        """One sample; ``initial``: the window's first, whose processes count from what they had used by then."""
        self.samples += 1
        rss = 0
        for stat in sampled.stats.values():
            if stat.pgrp != self.group or stat.pid == self.leader:
                continue
            self._first.setdefault(stat.key, stat.ticks if initial else 0)
            self._last[stat.key] = stat.ticks
            rss += stat.rss_pages * self.page
        self._peak_rss = max(self._peak_rss, rss)
        sshd = sampled.stats.get(sampled.sshd) if sampled.sshd is not None else None
        if sshd is not None:
            self._own_first.setdefault(sshd.key, sshd.ticks + sshd.children_ticks)
            self._own_last[sshd.key] = sshd.ticks + sshd.children_ticks

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
        """The CPU serverbench itself used on the server host between the first sample and the last (None: its sshd
        was not found in the samples)."""
        if not self._own_last:
            return None
        return round(sum(self._own_last[k] - self._own_first[k] for k in self._own_last) / self.tick, 3)

    def usage(self) -> Usage:
        return Usage(
            cpu_s=self.cpu_s(),
            rss_mb=round(self._peak_rss / MB, 1),
            processes=len(self._last),
            unmeasured=self.unmeasured,
            sampler_cpu_s=self.own_cpu_s(),
            sampled_on="server host",
        )


class RemoteTreeSampler(Periodic):
    """Samples process group ``group`` (less ``leader``) on ``host`` every ``interval`` seconds, from a daemon thread
    here; the same context-manager contract as :class:`~.sampling.TreeSampler`."""

    def __init__(
        self,
        connections: Connections,
        host: Host,
        group: int,
        leader: int,
        units: tuple[int, int] = (100, 4096),
        interval: float = 0.25,
    ):
        self._connections, self._host, self._interval = connections, host, interval
        self.tally = TreeTally(group, leader, *units)
        self._lock = threading.Lock()
        self._start_thread("serverbench-remote-sampler")

    def usage(self) -> Usage:
        with self._lock:
            return self.tally.usage()

    def _sample(self, initial: bool) -> None:
        try:
            done = self._connections.run(self._host, procstat.SAMPLE, timeout=SAMPLE_TIMEOUT_S)
        except HostError:
            with self._lock:
                self.tally.failed += 1
            return
        sampled = procstat.parse(done.stdout.decode(errors="replace"))
        with self._lock:
            self.tally.add(sampled, initial=initial or self.tally.samples == 0)
