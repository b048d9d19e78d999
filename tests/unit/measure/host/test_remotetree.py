"""A server's tree on the server host from successive samples (measure.host.remotetree.TreeTally): pure."""

from __future__ import annotations

from serverbench.hosts.procstat import Sampled, Stat
from serverbench.measure.host.remotetree import TreeTally

TETHER, SERVER, WORKER, SSHD, OTHER = 500, 501, 502, 400, 9


def sample(*stats: Stat, sshd: int | None = SSHD) -> Sampled:
    return Sampled(900, sshd, {s.pid: s for s in stats})


def stat(pid: int, ticks: int, pgrp: int = TETHER, rss: int = 256, children: int = 0, start: int = 1) -> Stat:
    return Stat(pid, TETHER, pgrp, ticks, children, start, rss)


def test_the_tree_is_the_tethers_group_less_the_tether_counted_from_the_first_sample():
    """The server and its worker count from what they had used as the window opened; the tether and another
    group's process are left out; RSS is the tree's peak."""
    tally = TreeTally(TETHER, TETHER, tick=100, page=4096)
    tally.add(sample(stat(TETHER, 90), stat(SERVER, 100), stat(WORKER, 50), stat(OTHER, 10, pgrp=OTHER)), initial=True)
    tally.add(sample(stat(TETHER, 900), stat(SERVER, 130), stat(WORKER, 250, rss=1024), stat(OTHER, 999, pgrp=OTHER)))
    usage = tally.usage()
    assert usage.cpu_s == 2.3 and usage.processes == 2 and usage.unmeasured is None
    assert usage.rss_mb == round((256 + 1024) * 4096 / 2**20, 1) and usage.sampled_on == "server host"


def test_a_process_born_in_the_window_counts_from_zero_and_a_reused_pid_is_another_process():
    """A worker first seen after the window opened counts all it used; the same pid with a later start is new."""
    tally = TreeTally(TETHER, TETHER)
    tally.add(sample(stat(SERVER, 100)), initial=True)
    tally.add(sample(stat(SERVER, 100), stat(WORKER, 40)))
    tally.add(sample(stat(SERVER, 100), stat(WORKER, 5, start=2)))
    assert tally.cpu_s() == 0.45


def test_the_samplers_own_cpu_is_its_shell_and_its_sshd_with_the_children_they_waited_for():
    """The shell kept open there (with each sample's reaped cat) and the sshd carrying it: their CPU with their
    children's, from the first sample to the last; neither found: None."""
    tally = TreeTally(TETHER, TETHER)
    shell = 900
    tally.add(sample(stat(SERVER, 1), stat(SSHD, 10, pgrp=SSHD), stat(shell, 3, pgrp=SSHD, children=20)), initial=True)
    tally.add(sample(stat(SERVER, 2), stat(SSHD, 12, pgrp=SSHD), stat(shell, 4, pgrp=SSHD, children=33)))
    assert tally.own_cpu_s() == 0.16
    assert TreeTally(TETHER, TETHER).own_cpu_s() is None


def test_a_cpu_not_measured_is_none_with_its_reason_never_zero():
    """One sample read, or none of the server's group found there: no CPU figure, and the reason why."""
    once = TreeTally(TETHER, TETHER, failed=3)
    once.add(sample(stat(SERVER, 100)), initial=True)
    assert once.cpu_s() is None and once.usage().cpu_s is None
    assert once.unmeasured == "1 of the server host's samples were read (3 round trips failed)"
    gone = TreeTally(TETHER, TETHER)
    gone.add(sample(stat(OTHER, 1, pgrp=OTHER)), initial=True)
    gone.add(sample(stat(OTHER, 2, pgrp=OTHER)))
    assert gone.cpu_s() is None and "no process of the server's group 500" in gone.unmeasured


def test_the_server_hosts_cores_busy_time_is_kept_over_the_window():
    """The inventory's cores (or all of them): their busy and stolen ticks from the first sample to the last."""
    tally = TreeTally(TETHER, TETHER, cores=(0,))
    first = Sampled(900, SSHD, {SERVER: stat(SERVER, 1)}, {"cpu": (100, 0), "cpu0": (50, 1), "cpu1": (50, 0)})
    last = Sampled(900, SSHD, {SERVER: stat(SERVER, 2)}, {"cpu": (400, 0), "cpu0": (230, 3), "cpu1": (170, 0)})
    tally.add(first, initial=True, at=10.0)
    assert tally.host_cpu() is None  # one reading: nothing to subtract
    tally.add(last, at=12.5)
    assert tally.host_cpu() == {"cores": [0], "busy_s": 1.8, "steal_s": 0.02, "wall_s": 2.5}
    everything = TreeTally(TETHER, TETHER)
    everything.add(first, initial=True)
    everything.add(last)
    assert everything.usage().host_cpu == {"cores": "all", "busy_s": 3.0, "steal_s": 0.0, "wall_s": None}
