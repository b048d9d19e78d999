"""The consistency checks at exact equality and on missing counters (issue 22, mutation survivors of judge.checks)."""

from serverbench.judge import checks
from serverbench.records.schema import BackendUsage
from tests.unit.judge.test_checks import record

# 100 rps over 5 s, 1 s of server CPU: 2 ms of CPU per request, the server 20% busy, the generator 2%.
IDLE = dict(rps=100, connections=8, server_cpu_s=1.0, gen_cpu_s=0.1)


def test_a_p50_of_exactly_five_service_times_is_a_stall():
    """p50 equal to STALL_FACTOR x the service time (10 ms on 2 ms) is a stall: the limit is inclusive."""
    assert checks.stall(record(**IDLE, p50=10.0)) is not None


def test_a_p50_exactly_five_ms_beyond_the_service_time_is_a_stall():
    """1 ms of CPU per request and a p50 of 6 ms (5 ms beyond) is a stall; 5.9995 ms is not."""
    half = dict(IDLE, server_cpu_s=0.5)
    assert checks.stall(record(**half, p50=6.0)) is not None
    assert checks.stall(record(**half, p50=5.9995)) is None


def test_a_one_second_window_is_judged_for_a_stall():
    """A window of 1 s is long enough to judge: an idle server with slow requests is a stall."""
    assert checks.stall(record(rps=100, connections=8, server_cpu_s=0.2, gen_cpu_s=0.1, p50=20.0, duration=1.0))


def test_a_record_without_server_cpu_is_not_judged_for_a_stall():
    """No server CPU measured: no stall can be judged (None), not a crash."""
    assert checks.stall(record(**dict(IDLE, server_cpu_s=None), p50=40.0)) is None


def test_a_stall_names_every_process_and_its_share_of_a_core():
    """The stall's message gives the server's, the generator's and each backend's CPU share."""
    redis = BackendUsage("redis", "redis-server", 0.05, 5.0, 1, 500)
    flag = checks.stall(record(**IDLE, p50=40.0, backends=(redis,)))
    assert flag.name == "stall"
    assert flag.message.startswith(
        "p50 40.0 ms against a service time of 2.00 ms (server CPU per request), while "
        "everything was idle (server 20%, generator 2%, redis 1% of one core)"
    )


def test_littles_law_judges_a_one_second_window():
    """A 1 s window whose ratio is a third is flagged like a longer one."""
    assert checks.littles_law(record(rps=2000, connections=8, mean=1.33, duration=1.0)) is not None


def test_syn_drops_reads_a_missing_counter_as_zero():
    """A kernel record with only one of the two counters reads the other as 0."""
    flag = checks.syn_drops(record(kernel={"listen_overflows": 4}))
    assert flag.name == "syn-drops"
    assert flag.message.startswith(
        "the kernel counted 4 listen-queue overflows and 0 listen drops during the window: "
        "connections found the server's listen backlog full and waited for a retransmit "
        "(8 connections)"
    )
    assert (
        "counted 0 listen-queue overflows and 2 listen drops"
        in checks.syn_drops(record(kernel={"listen_drops": 2})).message
    )


def test_syn_drops_retransmit_window_includes_both_ends():
    """Without kernel counters, a p99 at exactly t - 20 ms or t + p50 + 100 ms is at the retransmit time."""
    p50 = 10.0
    early = checks.syn_drops(record(p50=p50, tail={"p90": 1.0, "p99": 980.0, "p999": 1.0}))
    late = checks.syn_drops(record(p50=p50, tail={"p90": 1.0, "p99": 3110.0, "p999": 1.0}))
    assert early.message.startswith("latency p99 980 ms at the SYN retransmit times (1 s, 3 s): connections")
    assert late.message.startswith("latency p99 3,110 ms at the SYN retransmit times")
    assert checks.syn_drops(record(p50=p50, tail={"p90": 1.0, "p99": 979.0, "p999": 1.0})) is None
