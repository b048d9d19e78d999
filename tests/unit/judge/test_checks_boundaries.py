"""The consistency checks' limits, each pinned just inside and just outside (issue 22).

Pinned here: LITTLE_TOLERANCE (Little's law as an acceptance check, issue 23), STALL_IDLE_PCT/FACTOR/MIN_MS
and the retransmit window.
"""

from serverbench.judge import checks
from tests.unit.judge.test_checks import record


def _mean_for(ratio, rps=2000.0, connections=8):
    """The mean latency (ms) that gives this Little's-law ratio (rps x mean / connections)."""
    return ratio * connections / rps * 1000.0


def test_littles_law_tolerance_is_pinned_just_inside_and_outside():
    """Ratios 0.9501 and 1.0499 pass; 0.9499 and 1.0501 are flagged (LITTLE_TOLERANCE = 5%, no window correction)."""
    assert checks.LITTLE_TOLERANCE == 0.05
    flagged = {
        ratio: checks.littles_law(record(mean=_mean_for(ratio))) is not None
        for ratio in (0.9499, 0.9501, 1.0, 1.0499, 1.0501)
    }
    assert flagged == {0.9499: True, 0.9501: False, 1.0: False, 1.0499: False, 1.0501: True}


def test_littles_law_has_no_window_correction_any_more():
    """64 connections, 1 s mean, 34.5 rps over a 2 s window (0.54): flagged; the old edge correction excused it."""
    assert checks.littles_law(record(rps=34.5, connections=64, mean=1000.0, duration=2.0)) is not None


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
