"""benchmarks/merge_check.py: docs/hosts.md's exact-merge check is rendered from its results file, and its figures
(a) to (d) are computed as they say."""

from __future__ import annotations

import random

from serverbench.drivers.rank import nearest_rank
from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_merge_check_figures_are_the_rendered_ones():
    """Rendering docs/hosts.md from benchmarks/results/merge-check.json changes nothing: no figure typed by hand."""
    stale = stale_renders(script("merge_check.py"))
    assert not stale, f"{stale}: run `python benchmarks/merge_check.py render` and commit the result"


def test_one_list_of_all_requests_against_the_hosts_averaged():
    """Two hosts of unlike latencies: (a) is the p99 of all their requests, (d) the mean of their own p99s."""
    fast, slow = {1000: 990, 2000: 10}, {"50000": 100}  # in microseconds; JSON's string keys too
    got = script("merge_check.py").figures({"a": fast, "b": slow}, {"p50": 1.0, "p99": 50.0, "p999": 50.0})
    assert got["p99"]["whole"] == 50.0 and got["p99"]["equal"]
    assert got["p99"]["hosts"] == {"a": 1.0, "b": 50.0}
    assert got["p99"]["mean"] == 25.5 and got["p99"]["error_ms"] == -24.5 and got["p99"]["error_pct"] == -49.0
    assert got["p999"]["hosts"] == {"a": 2.0, "b": 50.0} and got["p50"]["whole"] == 1.0


def test_a_record_that_is_not_the_merge_is_told():
    """A record whose percentile is the hosts' average, not that of all the requests, reads as not equal."""
    got = script("merge_check.py").figures(
        {"a": {1000: 99, 9000: 1}, "b": {3000: 100}}, {"p50": 2.0, "p99": 3.0, "p999": 9.0}
    )
    assert got["p50"]["mean"] == 2.0 and got["p50"]["whole"] == 3.0 and not got["p50"]["equal"]
    assert got["p99"]["equal"] and got["p999"]["equal"]


def test_latencies_are_counted_at_the_records_resolution():
    """A latency counts in the microsecond the record rounds it to (half a microsecond included), so a percentile of
    the counts is the record's rounding of the exact one."""
    merge_check = script("merge_check.py")
    for ms in (0.0005, 0.0015, 2.0005, 1.2345, 4.8506600000002, 2.3930199999995):
        (us,) = merge_check.record_us([ms])
        assert us / 1000.0 == round(ms, 3), ms
    rng = random.Random(3)
    exact = sorted(rng.randrange(1_000_000, 9_000_000) / 1e6 for _ in range(5000))  # ms, to the nanosecond
    got = merge_check.figures({"h": merge_check.record_us(exact)}, {"p50": 0.0, "p99": 0.0, "p999": 0.0})
    for key, q in (("p50", 50), ("p99", 99), ("p999", 99.9)):
        assert got[key]["whole"] == round(exact[nearest_rank(q, len(exact)) - 1], 3), key
