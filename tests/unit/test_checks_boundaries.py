"""The consistency checks' limits, each pinned just inside and just outside (issue 22).

Kept apart from test_checks.py on purpose: the Little's-law and stall rules are being reworked, and these
tests pin the current limits (LITTLE_LOW/HIGH, the window correction, STALL_IDLE_PCT/FACTOR/MIN_MS, the
retransmit window) so the rework can reconcile them in one place.
"""
from test_checks import record

from serverbench.judge import checks


def _mean_for(ratio, rps=2000.0, connections=8, duration=5.0):
    """The mean latency (ms) that gives this Little's-law ratio, window correction included."""
    m = ratio * connections / (rps + ratio * connections / (2 * duration))
    return m * 1000.0


def test_littles_law_limits_are_inclusive_and_pinned():
    """Ratios 0.69 and 1.26 are flagged; just above 0.70, 0.71, 1.24 and just below 1.25 are not."""
    assert (checks.LITTLE_LOW, checks.LITTLE_HIGH) == (0.7, 1.25)
    flagged = {ratio: checks.littles_law(record(mean=_mean_for(ratio))) is not None
               for ratio in (0.69, 0.70001, 0.71, 1.24, 1.24999, 1.26)}
    assert flagged == {0.69: True, 0.70001: False, 0.71: False, 1.24: False, 1.24999: False, 1.26: True}


def test_littles_law_window_correction_is_what_keeps_a_slow_window_healthy():
    """64 connections, 1 s mean over a 2 s window: 34.5 rps is 0.72 of the corrected 48 expected (healthy)
    but 0.54 of the uncorrected 64, so the record passes only because the correction is applied."""
    r = record(rps=34.5, connections=64, mean=1000.0, duration=2.0)
    assert checks.littles_law(r) is None
    low = checks.littles_law(record(rps=32.5, connections=64, mean=1000.0, duration=2.0))  # 0.68 of 48
    assert low is not None and "against 48.0 expected" in low.message


def test_littles_law_window_correction_cuts_at_most_half():
    """A mean longer than the window: the expected count is half the connections, not less."""
    r = record(rps=1.0, connections=8, mean=3000.0, duration=2.0)  # 3 in flight against 4 (0.75): healthy
    assert checks.littles_law(r) is None
    flag = checks.littles_law(record(rps=1.0, connections=8, mean=2000.0, duration=2.0))  # 2 against 4: 0.5
    assert flag is not None and "against 4.0 expected" in flag.message


def test_stall_idle_limit_is_thirty_percent_of_a_core():
    """Server 29.9% busy with slow requests is a stall; 30% busy is not."""
    slow = dict(rps=200, connections=8, gen_cpu_s=0.1)  # p50 40 ms against ~1.5 ms of CPU per request
    assert checks.stall(record(**slow, server_cpu_s=1.495)) is not None
    assert checks.stall(record(**slow, server_cpu_s=1.5)) is None


def test_stall_factor_is_five_times_the_service_time():
    """2 ms of CPU per request: a p50 of 10.1 ms is a stall, 9.9 ms is not (5x)."""
    base = dict(rps=100, connections=8, server_cpu_s=1.0, gen_cpu_s=0.1)  # 20% busy, 2 ms per request
    assert checks.stall(record(**base, p50=10.1)) is not None
    assert checks.stall(record(**base, p50=9.9)) is None


def test_stall_needs_five_milliseconds_beyond_the_service_time():
    """0.5 ms of CPU per request (5x is 2.5 ms): a p50 of 5.6 ms is a stall, 5.4 ms is not (5 ms floor)."""
    base = dict(rps=200, connections=8, server_cpu_s=0.5, gen_cpu_s=0.1)
    assert checks.stall(record(**base, p50=5.6)) is not None
    assert checks.stall(record(**base, p50=5.4)) is None


def test_stall_counts_a_busy_generator():
    """Negative case: an idle server but a generator 40% busy is not a stall."""
    assert checks.stall(record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=2.0)) is None


def test_syn_drops_listen_drops_alone_are_a_flag():
    """The kernel's ListenDrops without ListenOverflows is still a flag."""
    flag = checks.syn_drops(record(kernel={"listen_overflows": 0, "listen_drops": 3}))
    assert flag is not None and "0 listen-queue overflows and 3 listen drops" in flag.message


def test_syn_drops_retransmit_window_edges():
    """p50 2 ms: a p99 in [980, 1102] ms is at the 1 s retransmit; 979.9 and 1102.1 ms are not."""
    at = lambda p99: checks.syn_drops(record(p50=2.0, tail={"p99": p99, "p999": p99})) is not None  # noqa: E731
    assert [at(v) for v in (979.9, 980.1, 1101.9, 1102.1)] == [False, True, True, False]
    assert [at(v) for v in (2979.9, 2980.1, 3101.9, 3102.1)] == [False, True, True, False]
