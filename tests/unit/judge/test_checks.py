"""The consistency checks (judge.checks) on synthetic records: each rule flags its artefact, passes a healthy one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from serverbench.catalog.shapes import LoadShape
from serverbench.judge import checks
from serverbench.judge.checks import Flag, check, check_session
from serverbench.records.schema import BackendUsage, Generator, Result, RunQueue, SlowClientReport
from tests.unit.synthetic import (
    ERRORS,
    edges_result,
    first_waits_result,
    held_result,
    locust_result,
    record,
    waited_result,
)


def names(result: Result) -> list[str]:
    return [f.name for f in check(result)]


def test_a_healthy_record_raises_no_flag():
    """A record whose numbers agree with each other (Little's law, a busy server) has no flag."""
    assert check(record()) == []


def test_littles_law_flags_connections_idle_outside_timed_requests():
    """rps x mean latency at a third of the connections is flagged, with the numbers that disagree."""
    flag = checks.littles_law(record(rps=2000, connections=8, mean=1.33))
    assert flag is not None and flag.name == "littles-law"
    assert "2,000.0 rps x 1.33 ms mean = 2.7 requests in flight against 8 connections (ratio 0.33" in flag.message
    assert "did not measure a steady state" in flag.message


def test_littles_law_flags_latencies_longer_than_the_cycle_allows():
    """Five times more in flight than connections (wrk on gevent servers) says the latencies are not to be trusted."""
    flag = checks.littles_law(record(rps=4756, connections=8, mean=9.67))
    assert flag is not None and "ratio 5.75" in flag.message and "wg/wrk#438" in flag.message


def test_littles_law_holds_within_five_percent_either_side_and_skips_the_open_model():
    """A ratio of 0.95 or 1.05 passes, 0.94 and 1.06 are flagged; an open-model (rate) record is not a closed system."""
    at = lambda ratio: record(rps=2000, connections=8, mean=8 / 2000 * 1000 * ratio)  # noqa: E731
    assert checks.littles_law(at(0.951)) is None and checks.littles_law(at(1.049)) is None
    assert checks.littles_law(at(0.94)) is not None and checks.littles_law(at(1.06)) is not None
    assert checks.littles_law(record(mean=0.5, shape=LoadShape(8, 5, rate=500.0))) is None


def test_littles_law_flags_a_window_that_started_on_a_drained_server():
    """gunicorn-sync-w2 on /sleep at c64: 19.6 rps x 2.21 s = 0.68 of the connections, no outside cause: flagged,
    and its latencies known wrong (the summary hides them: report/test_terminal.py)."""
    r = record(rps=19.6, connections=64, mean=2210.0, server_cpu_s=0.1, gen_cpu_s=0.05, workload="sleep")
    flag = checks.littles_law(r)
    assert flag is not None and "ratio 0.68" in flag.message and "drained server" in flag.message
    assert checks.latency_known_wrong(r)


def test_littles_law_names_a_measured_cause_outside_the_harness_and_keeps_the_latency():
    """Kernel-counted SYN drops or a saturated generator explain a low ratio: named in the flag, latency shown."""
    low = dict(rps=2000, connections=8, mean=2.0)
    dropped = record(**low, kernel={"listen_overflows": 33, "listen_drops": 33})
    flag = checks.littles_law(dropped)
    assert flag is not None and "measured cause outside the harness" in flag.message and "33 listen" in flag.message
    assert not checks.latency_known_wrong(dropped)
    saturated = record(**low, gen_cpu_s=9.8)
    assert "generator was 98% busy" in checks.littles_law(saturated).message
    assert not checks.latency_known_wrong(saturated)
    assert checks.latency_known_wrong(record(**low))


def test_littles_law_reads_a_steady_state_window_as_consistent():
    """The same cell measured in steady state (64 / 19.6 rps = 3.27 s mean) raises neither littles-law nor stall."""
    r = record(
        rps=19.6,
        connections=64,
        mean=3265.0,
        p50=3265.0,
        server_cpu_s=0.1,
        gen_cpu_s=0.05,
        workload="sleep",
        variant="gunicorn-sync-w2",
    )
    assert checks.littles_law(r) is None and checks.stall(r) is None
    assert "at-capacity" in names(r)


def test_stall_flags_an_idle_server_with_slow_requests():
    """40 ms per request with 0.3 ms of CPU each, server and generator idle: a stall (Nagle vs delayed ACK)."""
    r = record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=0.1)  # mean 40 ms, 6% busy
    flag = checks.stall(r)
    assert flag is not None and "p50 40.0 ms against a service time of 0.30 ms" in flag.message
    assert "TCP_NODELAY" in flag.message


def test_stall_is_not_raised_for_a_busy_server_or_a_designed_wait():
    """A server near one core busy, or /sleep's 100 ms by design, is not a stall."""
    assert checks.stall(record(rps=200, connections=8, server_cpu_s=4.5, gen_cpu_s=0.1)) is None
    assert (
        checks.stall(record(rps=78, connections=8, p50=102, server_cpu_s=0.2, gen_cpu_s=0.1, workload="sleep")) is None
    )


def test_stall_flags_a_wait_no_pool_explains():
    """/sleep at 64 connections, 611 ms against 100.7 ms of service, on a server with no known pool: a stall."""
    flag = checks.stall(record(rps=96, connections=64, p50=611.0, server_cpu_s=0.3, gen_cpu_s=0.05, workload="sleep"))
    assert flag is not None and "plus the endpoint’s designed wait" in flag.message


def test_a_pool_at_its_designed_capacity_is_at_capacity_not_a_stall():
    """gunicorn-gthread-t10 on /sleep at c64, 96 rps of a 10 / 100.6 ms capacity: at-capacity with the queueing
    delay, and no stall."""
    r = record(
        rps=96,
        connections=64,
        p50=611.0,
        mean=667.0,
        server_cpu_s=0.3,
        gen_cpu_s=0.05,
        workload="sleep",
        variant="gunicorn-gthread-t10",
    )
    assert checks.stall(r) is None
    flag = checks.at_capacity(r)
    assert flag is not None and "10 workers/threads / 100.6 ms" in flag.message
    assert "capacity 99.4 rps" in flag.message and "each request waits 644 ms, 543 ms of it queued" in flag.message


def test_at_capacity_boundaries_band_pool_and_designed_wait():
    """Within 10% of the capacity either side is at capacity, beyond is not; no pool (an event loop), connections
    not above the pool, or an endpoint with no designed wait is never at capacity."""

    def sync_w2(rps, **kw):
        return record(
            rps=rps,
            connections=kw.pop("connections", 64),
            server_cpu_s=0.0,
            gen_cpu_s=0.05,
            workload=kw.pop("workload", "sleep"),
            variant=kw.pop("variant", "gunicorn-sync-w2"),
            **kw,
        )

    assert checks.capacity(sync_w2(18.1)) is not None and checks.capacity(sync_w2(21.9)) is not None
    assert checks.capacity(sync_w2(17.9)) is None and checks.capacity(sync_w2(22.1)) is None
    assert checks.capacity(sync_w2(20.0, variant="aiohttp")) is None
    assert checks.capacity(sync_w2(20.0, connections=2)) is None
    assert checks.capacity(sync_w2(20.0, workload="json")) is None
    assert checks.capacity(sync_w2(20.0, workload="upstream")).rps == 20.0


def test_pool_size_comes_from_the_variant_catalog():
    """workers x threads for pools (sync, gthread, uwsgi processes x threads, thread pools), one per process for a C
    event loop running WSGI (a blocking call blocks it); none for asyncio or greenlets."""
    assert [
        checks.pool_size(v)
        for v in (
            "gunicorn-sync-w2",
            "gunicorn-gthread-t100",
            "uwsgi-p2t2",
            "waitress-t4",
            "meinheld",
            "bjoern",
            "gunicorn-meinheld-w2",
            "aiohttp",
            "gunicorn-gevent-w2",
            "no-such-variant",
        )
    ] == [2, 100, 4, 4, 1, 1, 2, None, None, None]


def test_a_c_event_loop_blocked_by_its_app_is_at_capacity_not_a_stall():
    """meinheld (one process) on /upstream at c64: 9.8 rps against 1 / 100 ms is its designed capacity, not a stall."""
    r = record(
        rps=9.8,
        connections=64,
        mean=64 / 9.8 * 1000.0,
        server_cpu_s=0.05,
        gen_cpu_s=0.05,
        workload="upstream",
        variant="meinheld",
        backends=[BackendUsage("upstream", "nginx", 0.05, 5.0, 1, 49)],
    )
    assert "at-capacity" in names(r) and "stall" not in names(r)


def test_a_cell_that_answered_nothing_says_why_in_one_line():
    """0 requests with 16 slowloris clients held: no-answers names the connections, errors, clients and pool."""
    r = replace(
        record(rps=0.0, connections=64, mean=0.0, variant="gunicorn-sync-w2"),
        slow_clients=SlowClientReport("slowloris", 16, 16, (), 5.0),
    )
    r = replace(r, load=replace(r.load, errors={**ERRORS, "timeout": 64}))
    flag = checks.no_answers(r)
    assert flag is not None and "\n" not in flag.message
    assert "no request answered in 5.0 s on 64 connections (errors: timeout 64)" in flag.message
    assert "16 of 16 slowloris clients were held beside them, the server dropped 0" in flag.message
    assert "(a pool of 2)" in flag.message
    assert names(r)[0] == "no-answers" and checks.no_answers(record()) is None


def test_no_answers_on_a_pool_whose_queue_outlives_the_timeout_says_so():
    """gunicorn-sync-w2 on /sleep at c400 (oha, 5 s timeout): 400 / 20 rps = 20 s in the queue, every request timed out."""
    r = record(
        rps=0.0, connections=400, mean=0.0, variant="gunicorn-sync-w2", workload="sleep", errors={"timeout": 742}
    )
    flag = checks.no_answers(r)
    assert flag is not None and "(2 / 100 ms) each request waits about 20 s in its queue" in flag.message


def test_stall_needs_every_backend_idle_and_known():
    """A busy backend, or one whose CPU was not measured, may be what the requests wait on: no stall."""
    idle = dict(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=0.1, workload="redis")
    assert checks.stall(record(**idle, backends=[BackendUsage("redis", "redis-server", 0.2, 5.0, 1, 1000)]))
    assert checks.stall(record(**idle, backends=[BackendUsage("redis", "redis-server", 4.0, 5.0, 1, 1000)])) is None
    assert checks.stall(record(**idle, backends=[BackendUsage("up", "external", None, 5.0, 1, None)])) is None


def test_syn_drops_flag_latencies_at_the_retransmit_times():
    """Without the kernel's counters, a p99 of 1,003 ms and p99.9 of 3,010 ms with a 2 ms median are SYN retransmits."""
    flag = checks.syn_drops(record(p50=2.0, tail={"p99": 1003.0, "p999": 3010.0}))
    assert flag is not None and "p99 1,003 ms, p999 3,010 ms at the SYN retransmit times (1 s, 3 s)" in flag.message


def test_syn_drops_flag_the_kernels_listen_overflows():
    """ListenOverflows counted during the window is a flag on its own, whatever the latencies."""
    flag = checks.syn_drops(record(kernel={"listen_overflows": 12, "listen_drops": 12}))
    assert flag is not None and "12 listen-queue overflows and 12 listen drops" in flag.message


def test_syn_drops_pass_slow_but_unclustered_latencies_and_zero_counters():
    """A tail of 600 ms or 2 s (not a retransmit time), or a lone max at 1 s, is no SYN drop."""
    assert checks.syn_drops(record(p50=2.0, tail={"p99": 600.0, "p999": 1800.0, "max": 2000.0})) is None
    assert checks.syn_drops(record(p50=0.3, tail={"p99": 511.0, "p999": 700.0, "max": 1066.0})) is None


def test_syn_drops_trust_the_kernels_zero_over_the_latencies():
    """When the record carries the kernel's counters at zero, a p99 near 1 s is not called a SYN drop."""
    r = record(p50=2.0, tail={"p99": 1003.0}, kernel={"listen_overflows": 0, "listen_drops": 0})
    assert checks.syn_drops(r) is None


def test_error_statuses_say_the_origin_cannot_be_told():
    """HTTP error statuses are flagged with why the record cannot separate the app's from the server's."""
    flag = checks.error_statuses(record(errors={"status": 50}))
    assert flag is not None and "50 responses (0.5% of the answered)" in flag.message
    assert "cannot tell the app's errors" in flag.message
    assert checks.error_statuses(record(errors={"timeout": 3})) is None


def test_generator_saturated_and_backend_bound_as_the_record_says():
    """SAT and BND keep their 90% threshold (records.schema) and are flags like the others."""
    assert checks.generator_saturated(record(gen_cpu_s=9.5)).name == "generator-saturated"
    assert checks.generator_saturated(record(gen_cpu_s=8.0)) is None
    bound = record(backends=[BackendUsage("mongo", "secantusdb", 4.6, 5.0, 1, 0)])
    assert "mongo 92% of 1 core(s)" in checks.backend_bound(bound).message
    assert checks.backend_bound(record(backends=[BackendUsage("mongo", "mongod", 4.6, 5.0, 2, 0)])) is None


def test_busy_waiting_compares_a_waiting_workload_with_the_lighter_one():
    """4 ms of CPU per request on /redis against 2.4 ms on /json (same variant and shape) is busy waiting."""
    json = record(rps=1000, server_cpu_s=12.0)  # 2,400 µs per request
    redis = record(rps=250, server_cpu_s=5.0, workload="redis")  # 4,000 µs per request
    flags = check_session([json, redis])
    assert flags[0] == [] and [f.name for f in flags[1]] == ["busy-waiting"]
    assert "4,000 µs of server CPU per request on redis, against 2,400 µs on json" in flags[1][0].message


def test_busy_waiting_needs_the_same_variant_a_waiting_workload_and_a_real_excess():
    """Another variant's json, a heavier non-waiting workload, or +0.2 ms per request are not busy waiting."""
    json = record(rps=1000, server_cpu_s=12.0, variant="other")
    redis = record(rps=250, server_cpu_s=5.0, workload="redis")
    assert check_session([json, redis])[1] == []
    light = record(rps=1000, server_cpu_s=0.4)  # 80 µs per request
    slightly = check_session([light, record(rps=1000, server_cpu_s=0.6, workload="redis")])[1]
    assert "busy-waiting" not in [f.name for f in slightly]
    assert checks.busy_waiting(record(rps=100, server_cpu_s=5.0, workload="plaintext"), [light]) is None
    idle = record(rps=20, server_cpu_s=0.15, workload="upstream")  # 1.5 ms per request, but 3% of a core
    assert checks.busy_waiting(idle, [light]) is None


def test_neighbours_flag_other_processes_and_stolen_time_in_the_window():
    """The machine's busy CPU beyond the server's, generator's and backends' own is flagged from 25% of a core;
    stolen time from 10%; records without the machine's CPU (older files, --perf-target) are not judged."""
    redis = BackendUsage("redis", "started", 1.0, 5.0, 1, 10_000)
    quiet = replace(record(server_cpu_s=4.0, gen_cpu_s=2.0, backends=[redis]), host_cpu_s=7.5, host_steal_s=0.0)
    assert checks.neighbours(quiet) is None  # 0.5 s of 5 s: 10%
    crowded = replace(quiet, host_cpu_s=10.0)  # 3 s of others over 5 s: 60%
    flag = checks.neighbours(crowded)
    assert flag.name == "neighbours" and "other processes used 60% of a core" in flag.message
    assert checks.neighbours(replace(quiet, host_steal_s=1.0)) is not None  # 20% stolen
    assert checks.neighbours(replace(quiet, host_cpu_s=None)) is None
    assert Result.from_record(crowded.to_record()).host_cpu_s == 10.0
    assert Result.from_record(record().to_record()).host_cpu_s is None


def test_flags_round_trip_through_the_record():
    """Flags written with a record are stored as plain name/message pairs; a record without them still loads."""
    r = record(errors={"status": 5})
    stored = r.to_record(None, [f.to_record() for f in check(r)])
    assert [Flag.from_record(f) for f in stored["flags"]] == check(r)
    assert "flags" not in r.to_record()
    old = {k: v for k, v in stored.items() if k not in ("flags", "kernel")}
    assert Result.from_record(old).kernel == {}


def test_locust_users_are_held_to_littles_law_with_their_think_time():
    """64 users at 1,105 rps x 57.6 ms hold (0.99); with a 10 ms think time the same latency is 0.85 of the users,
    and 64 users with 10 ms think at 947 rps x 57.6 ms hold."""
    assert abs(checks.littles_ratio(locust_result(1105, 64, 57.6)) - 0.9945) < 1e-3
    assert checks.littles_law(locust_result(1105, 64, 57.6)) is None
    assert checks.littles_law(locust_result(947, 64, 57.6, think_ms=10.0)) is None
    flag = checks.littles_law(locust_result(947, 64, 57.6))
    assert flag is not None and "64 users" in flag.message and "final statistics" in flag.message


def test_a_locust_record_counted_from_its_csv_over_minus_t_is_flagged_and_its_latency_hidden():
    """The old count (the CSV misses the last second; rps over -t): 2,797 requests / 5 s x 66.2 ms / 64 = 0.58."""
    r = locust_result(2797 / 5, 64, 66.2)
    assert checks.latency_known_wrong(r) and "ratio 0.58" in checks.littles_law(r).message
    thinking = checks.littles_law(locust_result(2797 / 5, 64, 66.2, think_ms=1.0)).message
    assert "559.4 rps x (66.20 ms mean + 1.00 ms think time)" in thinking


def test_a_saturated_locust_is_a_cause_named_and_a_locustfile_of_unknown_wait_is_not_judged():
    """A locust at 99% of its core is the measured cause (latencies stay); an unknown think time is no ratio."""
    busy = locust_result(700, 64, 57.6, gen_cpu_s=4.95)
    assert "generator was 99% busy" in checks.littles_law(busy).message and not checks.latency_known_wrong(busy)
    assert checks.littles_ratio(locust_result(700, 64, 57.6, think_ms=None)) is None


def test_locusts_own_cpu_per_request_names_the_time_between_an_answer_and_the_next_request():
    """5 users at 1,386 rps x 2.80 ms (0.78): 0.80 ms a request uncovered, locust burnt 1.5 ms a request: named;
    the old CSV count (0.58 at 64 users: 48 ms a request uncovered) is not explained by 1.4 ms of CPU."""
    fast = locust_result(1386.5, 5, 2.80, gen_cpu_s=1386.5 * 5 * 1.5 / 1000)
    assert "locust spent 1.50 ms of its own CPU per request" in checks.littles_law(fast).message
    assert not checks.latency_known_wrong(fast)
    old = locust_result(2797 / 5, 64, 66.2, gen_cpu_s=4.0)
    assert checks.latency_known_wrong(old)


def test_connections_held_through_the_window_are_named_when_they_account_for_the_ratio():
    """bjoern /upstream at 64 connections: 49 held through the window leave 15 of 64 (0.23) to the window's requests;
    at ratio 0.23 (and 0.19, 0.28: within 5%) the flag names them and keeps the latencies hidden."""
    for ratio in (0.23, 0.19, 0.28):
        flag = checks.littles_law(held_result(ratio, 49))
        assert flag is not None and "49 of 64 connections sent no request in the window" in flag.message, ratio
        assert checks.latency_known_wrong(held_result(ratio, 49))


def test_held_connections_that_do_not_account_for_the_ratio_are_not_the_story():
    """One held connection leaves 63 of 64 (0.98): it does not explain a ratio of 0.5; 49 held (0.23) do not explain
    0.17 or 0.29 (outside 5%); no held connection, no such story."""
    for ratio, held in ((0.5, 1), (0.17, 49), (0.29, 49), (0.5, 0)):
        flag = checks.littles_law(held_result(ratio, held))
        assert flag is not None and "sent no request in the window" not in flag.message, (ratio, held)
        assert "steady-state window" in flag.message and "left its connections idle" in flag.message


def test_waits_on_the_runs_first_requests_are_named_when_they_account_for_the_ratio():
    """bjoern /upstream at 64 connections, lead-in 16 s, window 32 s: it took its connections one a round, so the
    window spent 48% of its connection-time on first requests (22 through it): 0.55 + 0.48 is within 5% of 1, and so
    are 0.48 + 0.48 and 0.56 + 0.48; the flag names the wait and the latencies stay hidden."""
    window = 64 * 5.0
    for ratio in (0.55, 0.48, 0.56):
        flag = checks.littles_law(first_waits_result(ratio, 0.48 * window, held=22))
        assert flag is not None and "waiting on the run's first requests" in flag.message, ratio
        assert "spent 48% of the window" in flag.message and "22 of 64 connections" in flag.message
        assert f"covers {ratio + 0.48:.0%} of it" in flag.message
        assert checks.latency_known_wrong(first_waits_result(ratio, 0.48 * window))


def test_first_waits_that_do_not_account_for_the_ratio_are_not_the_story():
    """0.46 + 0.48 and 0.58 + 0.48 are outside 5% of 1; no first wait (0 or unknown) is no such story."""
    window = 64 * 5.0
    for ratio, wait in ((0.46, 0.48 * window), (0.58, 0.48 * window), (0.9, 0.0), (0.9, None)):
        flag = checks.littles_law(first_waits_result(ratio, wait))
        assert flag is not None and "first requests" not in flag.message, (ratio, wait)
        assert "left its connections idle" in flag.message


def test_the_first_wait_share_is_of_the_connections_whole_window():
    """first_wait_s over connections x the window: 80 s of 64 x 5 s is 0.25; unknown is 0."""
    assert checks._first_wait_share(first_waits_result(0.5, 80.0)) == 0.25
    assert checks._first_wait_share(first_waits_result(0.5, None)) == 0.0


def test_latencies_above_the_cycle_are_the_same_story_in_every_kind_of_window():
    """Ratio 1.5 (more in flight than connections) in a run window, oha's steady window and a locust run: the
    above-1 message each time, never a below-1 story."""
    r = record(rps=2000, connections=8, mean=6.0)
    steady = replace(r, load=replace(r.load, window="steady"))
    locust = replace(r, shape=LoadShape(8, 5, workers=0))
    for case in (r, steady, locust):
        flag = checks.littles_law(case)
        assert (
            flag is not None and "ratio 1.50" in flag.message and "more time than its connections had" in flag.message
        )


def test_several_causes_outside_the_harness_are_listed_in_one_line():
    """Dropped SYNs and timed-out connections at ratio 0.5: the flag names both after its prefix, joined by "; "."""
    r = record(
        rps=2000, connections=8, mean=2.0, errors={"timeout": 5}, kernel={"listen_drops": 9, "listen_overflows": 9}
    )
    flag = checks.littles_law(r)
    assert (
        flag is not None
        and "(ratio 0.50, healthy 0.95-1.05): measured cause outside the harness: the kernel" in flag.message
    )
    assert "outside any timed request; 5 connections failed or timed out" in flag.message


def _waiting_locust(runnable_pct: float, busy_pct: float = 55.0) -> Result:
    """granian-wsgi's locust cell on a shared machine: 0.67 of Little's law, locust on its core ``busy_pct`` of the
    window and runnable ``runnable_pct`` (the rest waiting for a core, from schedstat)."""
    r = locust_result(1310.0, 50, 25.75)
    queue = RunQueue(cpu_s=busy_pct / 100 * 3.2, wait_s=(runnable_pct - busy_pct) / 100 * 3.2, wall_s=3.2)
    return replace(r, generator=replace(r.generator, cpu_s=busy_pct / 100 * r.generator.wall_s, run_queue=queue))


def test_a_locust_kept_off_its_core_is_saturated_from_90_percent_runnable():
    """Runnable 90% of the window (55% on a core, 35% waiting for one) is saturated and names the cause with both
    parts; 89.9% is not, and its no-cause message gives the runnable share measured."""
    at_limit = _waiting_locust(90.0)
    assert at_limit.generator.saturated
    message = checks.littles_law(at_limit).message
    assert "runnable 90% of the time (on a core 55%, waiting for one 35%" in message
    assert "measured cause outside the harness" in message and not checks.latency_known_wrong(at_limit)
    assert "runnable 90%" in checks.generator_saturated(at_limit).message
    under = _waiting_locust(89.9)
    assert not under.generator.saturated and checks.generator_saturated(under) is None
    assert "locust was runnable 90% of the window (under the 90% limit)" in checks.littles_law(under).message
    assert checks.latency_known_wrong(under)


def test_a_busy_generator_is_still_named_busy_when_it_also_waited():
    """A generator at 95% of its core is named by its busy share, whatever it waited."""
    busy = _waiting_locust(99.0, busy_pct=95.0)
    assert "95% busy" in checks.generator_saturated(busy).message


def test_the_waiting_share_is_per_usable_core_and_busy_at_exactly_the_limit_is_named_busy():
    """Two threads on two cores, on a core 40% and waiting 60% of each: "waiting for one 60%", runnable 100%; a
    generator exactly 90% busy is named by its busy share."""
    two = Generator("oha", "1.16.0", 2, 4.0, 5.0, 2, run_queue=RunQueue(cpu_s=4.0, wait_s=6.0, wall_s=5.0))
    message = checks.generator_saturated(replace(record(), generator=two)).message
    assert "runnable 100% of the time (on a core 40%, waiting for one 60%" in message
    at_limit = Generator("oha", "1.16.0", 1, 4.5, 5.0, 2, run_queue=RunQueue(cpu_s=4.5, wait_s=0.5, wall_s=5.0))
    assert "oha was 90% busy" in checks.generator_saturated(replace(record(), generator=at_limit)).message


def test_a_locust_ratio_above_one_is_latencies_too_long_whatever_its_run_queue():
    """1.2 of Little's law on a locust record with its run queue measured is the over-long latencies' story."""
    r = _waiting_locust(50.0)
    long = replace(r, load=replace(r.load, latency_ms={**r.load.latency_ms, "mean": 50 / 1310.0 * 1000 * 1.2}))
    assert "add up to more time than its connections had" in checks.littles_law(long).message


def test_neighbours_divide_by_the_wall_time_the_hosts_counters_covered():
    """locust's users answered for 2.5 s of a run whose 8.6 s the host's counters covered: 2 s of others is 23% of a
    core over 8.6 s (not flagged), where over 2.5 s it read 137%; the host's wall time survives the record."""
    r = replace(locust_result(920.0, 50, 4.0), server_cpu_s=3.0, host_cpu_s=7.0, host_steal_s=0.0, host_wall_s=8.6)
    r = replace(r, load=replace(r.load, duration_s=2.5), generator=replace(r.generator, cpu_s=2.0, wall_s=8.6))
    assert checks.neighbours(r) is None
    assert "other processes used 137% of a core" in checks.neighbours(replace(r, host_wall_s=None)).message
    assert Result.from_record(r.to_record()).host_wall_s == 8.6 and "wall_s" not in record().to_record().get("host", {})


def test_neighbours_count_the_generators_cpu_over_the_covered_time_only():
    """oha ran 8 s (2 s lead-in, 5 s window, its tail) on 4 s of CPU; the host's counters covered the 5 s window:
    2.5 s of it is the generator's, so 7.5 busy - 4 server - 2.5 generator = 1 s of others, 20%: not flagged;
    over 5.5 s of busy CPU beyond it, 1.5 s of others (30%) is."""
    r = replace(record(server_cpu_s=4.0), host_cpu_s=7.5, host_steal_s=0.0, host_wall_s=5.0)
    r = replace(r, generator=replace(r.generator, cpu_s=4.0, wall_s=8.0))
    assert checks.neighbours(r) is None
    assert "other processes used 30% of a core" in checks.neighbours(replace(r, host_cpu_s=8.0)).message


def test_neighbours_take_a_generator_without_wall_time_or_a_short_run_as_it_is():
    """A generator with no wall time counts no CPU (no division by zero); one whose run was shorter than the covered
    time (half a second, or 5 s of 8.6) counts all of its CPU, never more."""
    r = replace(record(server_cpu_s=4.0), host_cpu_s=7.5, host_steal_s=0.0, host_wall_s=5.0)
    none = replace(r, generator=replace(r.generator, cpu_s=2.0, wall_s=0.0))
    assert "other processes used 70% of a core" in checks.neighbours(none).message  # 3.5 s of others over 5 s
    short = replace(r, generator=replace(r.generator, cpu_s=0.4, wall_s=0.5), host_cpu_s=5.4)
    assert checks.neighbours(short) is None  # 5.4 - 4.0 - 0.4 = 1.0 s of others: 20%
    longer = replace(r, host_wall_s=8.6, generator=replace(r.generator, cpu_s=2.0, wall_s=5.0), host_cpu_s=8.15)
    assert "other processes used 25% of a core" in checks.neighbours(longer).message  # 8.15 - 4 - 2 = 2.15 s / 8.6


def test_a_window_whose_edges_did_not_cancel_says_so_either_way_and_hides_its_latencies():
    """1.09 with 35 s carried out and 8 s in (+0.08): the edges, not wrk's synthetic samples; 0.91 with 8 s out and
    40 s in (-0.10): the edges, not idle connections."""
    over = checks.littles_law(edges_result(1.09, 8.0, 35.0))
    assert over is not None and "edges did not cancel" in over.message and "+0.08" in over.message
    assert "11% of it out" in over.message and "2% in" in over.message and "a 5 s window" in over.message
    assert "synthetic" not in over.message and checks.latency_known_wrong(edges_result(1.09, 8.0, 35.0))
    under = checks.littles_law(edges_result(0.91, 40.0, 8.0))
    assert under is not None and "edges did not cancel" in under.message and "-0.10" in under.message
    assert "12% in" in under.message and "idle" not in under.message
    first = checks.littles_law(edges_result(1.09, 8.0, 51.0, first=24.0))  # the first waits are carried in too
    assert first is not None and "10% in" in first.message and "+0.06" in first.message


def test_edges_within_the_tolerance_or_unknown_are_not_the_story():
    """Edges that moved the ratio by 0.03 exactly, or unknown, leave the ratio to the other stories."""
    for load in ((0.0, 9.6), (9.6, 0.0), (None, 35.0), (8.0, None)):
        flag = checks.littles_law(edges_result(0.91, *load))
        assert flag is not None and "edges did not cancel" not in flag.message, load
        assert "left its connections idle" in flag.message


def test_a_window_less_precise_than_asked_is_flagged_with_what_it_reached():
    """imprecise: the throughput reached beyond the precision asked, named with both; none at the precision asked,
    where none was asked or known, or for a mean latency alone (it follows from the throughput by Little's law)."""
    from serverbench.judge.checks import imprecise

    r = record()
    at = dict(slices=10, rps=0.05, latency_mean=0.01, asked=0.05)
    assert imprecise(replace(r, load=replace(r.load, precision=at))) is None
    assert imprecise(replace(r, load=replace(r.load, precision={**at, "latency_mean": 0.5}))) is None
    assert imprecise(replace(r, load=replace(r.load, precision={"rps": 0.2}))) is None
    assert imprecise(r) is None
    flag = imprecise(replace(r, load=replace(r.load, precision={**at, "rps": 0.071})))
    assert flag.name == "imprecise"
    assert "throughput within ±7.1% over 5 s (10 slices), asked ±5.0%" in flag.message


# Merged from test_checks_boundaries.py: The consistency checks' limits, each pinned just inside and just outside
# (issue 22). Pinned here: LITTLE_TOLERANCE (Little's law as an acceptance check, issue 23),
# STALL_BUSY_SHARE/FACTOR/MIN_MS and the retransmit window.
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


@pytest.mark.parametrize(
    "base, stalled, not_stalled",
    [
        pytest.param(  # p50 and mean 40 ms against ~2.5 ms of CPU per request: 8 x 2.5 ms / 40 ms = 0.5
            dict(rps=200, connections=8, gen_cpu_s=0.1),
            dict(server_cpu_s=2.495),
            dict(server_cpu_s=2.5),
            id="busy share: a server 49.9% busy of what the latency left it is a stall, 50% is not",
        ),
        pytest.param(  # 20% busy, 2 ms per request
            dict(rps=100, connections=8, server_cpu_s=1.0, gen_cpu_s=0.1),
            dict(p50=10.1),
            dict(p50=9.9),
            id="factor: 2 ms of CPU per request, a p50 of 10.1 ms is a stall, 9.9 ms is not (5x)",
        ),
        pytest.param(
            dict(rps=200, connections=8, server_cpu_s=0.5, gen_cpu_s=0.1),
            dict(p50=5.6),
            dict(p50=5.4),
            id="floor: 0.5 ms of CPU per request (5x is 2.5 ms), a p50 of 5.6 ms is a stall, 5.4 ms is not (5 ms)",
        ),
    ],
)
def test_stall_limits_are_pinned_just_inside_and_outside(base, stalled, not_stalled):
    """Each stall limit: the record just inside it is a stall, the one just outside is not."""
    assert checks.stall(record(**base, **stalled)) is not None
    assert checks.stall(record(**base, **not_stalled)) is None


def test_stall_counts_a_busy_generator():
    """Negative case: an idle server but a generator half busy of the cores it can use (2 threads, 2 cores) is not a
    stall; 40% of one core (20% of its two) is still idle."""
    assert checks.stall(record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=5.0)) is None
    assert checks.stall(record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=2.0)) is not None


def test_syn_drops_listen_drops_alone_are_a_flag():
    """The kernel's ListenDrops without ListenOverflows is still a flag."""
    flag = checks.syn_drops(record(kernel={"listen_overflows": 0, "listen_drops": 3}))
    assert flag is not None and "0 listen-queue overflows and 3 listen drops" in flag.message


def test_syn_drops_retransmit_window_edges():
    """p50 2 ms: a p99 in [980, 1102] ms is at the 1 s retransmit; 979.9 and 1102.1 ms are not."""
    at = lambda p99: checks.syn_drops(record(p50=2.0, tail={"p99": p99, "p999": p99})) is not None  # noqa: E731
    assert [at(v) for v in (979.9, 980.1, 1101.9, 1102.1)] == [False, True, True, False]
    assert [at(v) for v in (2979.9, 2980.1, 3101.9, 3102.1)] == [False, True, True, False]


# Merged from test_checks_edges.py: The consistency checks' remaining edges (issue 22: the whole of judge.checks under
# mutation testing). Each limit just inside and just outside, a window of no length (not judged, no crash) against a 1
# s one (judged), counters and CPU figures a record may lack, and the words a flag's message is built from.
def _no_window(r):
    """The same record with a window of no length (its requests kept): nothing can be judged per second."""
    return replace(r, load=replace(r.load, duration_s=0.0))


# --- Little's law ------------------------------------------------------------------------------------------------


def test_littles_ratio_needs_requests_connections_and_a_window():
    """No requests, no connections, or a window of no length: no ratio (None), never a division by zero."""
    assert checks.littles_ratio(record(rps=0.0, mean=1.0)) is None
    assert checks.littles_ratio(record(connections=0, mean=1.0)) is None
    assert checks.littles_ratio(_no_window(record())) is None
    assert checks.littles_ratio(record(duration=1.0)) == 1.0


def test_a_healthy_records_latency_is_not_known_wrong():
    """A ratio of 1 (and 0.96, 1.04) leaves the latencies shown; 0.9 hides them."""
    for ratio in (1.0, 0.96, 1.04):
        assert not checks.latency_known_wrong(record(mean=ratio * 8 / 2000 * 1000)), ratio
    assert checks.latency_known_wrong(record(mean=0.9 * 8 / 2000 * 1000))


def test_either_kernel_counter_alone_is_a_cause_outside_the_harness():
    """ListenDrops without ListenOverflows, or the other way round, explains a low ratio; the missing one reads 0."""
    low = dict(rps=2000, connections=8, mean=2.0)
    drops = checks.littles_law(record(**low, kernel={"listen_drops": 9})).message
    overflows = checks.littles_law(record(**low, kernel={"listen_overflows": 7})).message
    assert "the kernel dropped connection attempts (0 listen overflows, 9 drops" in drops
    assert "the kernel dropped connection attempts (7 listen overflows, 0 drops" in overflows
    assert not checks.latency_known_wrong(record(**low, kernel={"listen_drops": 9}))


def test_failed_connections_do_not_explain_latencies_above_the_cycle():
    """Ratio 1.5 with timed-out connections: reconnecting adds idle time, it cannot add latency, so the flag tells
    the above-1 story and the latencies stay hidden."""
    r = record(rps=2000, connections=8, mean=6.0, errors={"timeout": 5})
    flag = checks.littles_law(r)
    assert "connections failed" not in flag.message and "more time than its connections had" in flag.message
    assert checks.latency_known_wrong(r)


def test_locusts_cpu_explains_the_uncovered_time_up_to_exactly_its_own():
    """1 user at 100 rps x 5 ms (0.5): 5 ms a request uncovered; 5 ms of locust CPU a request explains it, 4.999 ms
    does not."""
    assert checks.littles_ratio(locust_result(100, 1, 5.0)) == 0.5
    equal = checks.littles_law(locust_result(100, 1, 5.0, gen_cpu_s=2.5))
    assert "locust spent 5.00 ms of its own CPU per request" in equal.message
    assert "against 5.00 ms per request the latencies do not cover" in equal.message
    short = locust_result(100, 1, 5.0, gen_cpu_s=2.4995)
    assert "locust spent" not in checks.littles_law(short).message and checks.latency_known_wrong(short)


# --- at capacity -------------------------------------------------------------------------------------------------


def test_capacity_service_time_is_the_designed_wait_plus_the_cpu_per_request():
    """gunicorn-gthread-t10 on /sleep: 100 ms by design plus 625 µs of CPU a request is 100.625 ms, and the flag
    says what share of that capacity the throughput is."""
    r = record(
        rps=96,
        connections=64,
        p50=611.0,
        mean=667.0,
        server_cpu_s=0.3,
        gen_cpu_s=0.05,
        workload="sleep",
        variant="gunicorn-gthread-t10",
    )
    assert abs(checks.capacity(r).service_ms - 100.625) < 1e-9
    assert checks.at_capacity(r).message.startswith("96.0 rps is 97% of the pool's designed capacity 99.4 rps")


def test_capacity_is_judged_on_a_one_second_window():
    """A 1 s window at gunicorn-sync-w2's capacity on /sleep (2 / 100 ms = 20 rps) is at capacity."""
    cap = checks.capacity(
        record(rps=20.0, connections=64, server_cpu_s=0.0, workload="sleep", variant="gunicorn-sync-w2", duration=1.0)
    )
    assert cap is not None and cap.rps == 20.0


# --- no answers --------------------------------------------------------------------------------------------------


def test_no_answers_needs_a_window():
    """A window of no length is not judged; one second with no answer is."""
    assert checks.no_answers(record(rps=0.0, mean=0.0, duration=0.0)) is None
    assert checks.no_answers(record(rps=0.0, mean=0.0, duration=1.0)).name == "no-answers"


def test_no_answers_without_pool_clients_or_errors_says_so_plainly():
    """No pool known, no slow clients, no error: the message names neither a pool nor clients, and says no error."""
    flag = checks.no_answers(record(rps=0.0, mean=0.0))
    assert flag.message.startswith(
        "no request answered in 5.0 s on 8 connections (errors: no error either): the "
        "server accepted or read no request to the end"
    )


def test_no_answers_lists_every_kind_of_error():
    """Connect and timeout errors both named, joined by a comma."""
    flag = checks.no_answers(record(rps=0.0, mean=0.0, errors={"connect": 3, "timeout": 2}))
    assert "(errors: connect 3, timeout 2): the server accepted" in flag.message


def test_no_answers_blames_the_pools_queue_only_with_more_connections_than_the_pool():
    """gunicorn-sync-w2 (a pool of 2) on /sleep with every request timed out: 2 connections is not the queue's
    story, 3 is."""

    def timed_out(connections):
        return checks.no_answers(
            record(
                rps=0.0,
                mean=0.0,
                connections=connections,
                variant="gunicorn-sync-w2",
                workload="sleep",
                errors={"timeout": 10},
            )
        )

    assert "the server (a pool of 2) accepted or read no request" in timed_out(2).message
    queued = timed_out(3)
    assert queued.name == "no-answers" and "each request waits about 0 s in its queue" in queued.message


def test_no_answers_queue_time_is_connections_times_the_wait_over_the_pool():
    """1,501 connections on a pool of 100 with 100 ms each: 1.501 s in the queue, said as about 2 s."""
    flag = checks.no_answers(
        record(
            rps=0.0,
            mean=0.0,
            connections=1501,
            variant="gunicorn-gthread-t100",
            workload="sleep",
            errors={"timeout": 1501},
        )
    )
    assert flag.name == "no-answers" and "(100 / 100 ms) each request waits about 2 s in its queue" in flag.message


# --- stall -------------------------------------------------------------------------------------------------------


def test_stall_needs_a_window():
    """A window of no length is not judged for a stall (no division by zero)."""
    assert checks.stall(_no_window(record(rps=100, connections=8, server_cpu_s=1.0, gen_cpu_s=0.1, p50=40.0))) is None


def test_an_unknown_or_mixed_workload_has_no_designed_wait():
    """A stall on a workload the catalog does not know, or on a mix of URLs, counts the server's CPU alone."""
    for workload in ("no-such-workload", "site"):
        flag = checks.stall(
            record(rps=100, connections=8, server_cpu_s=1.0, gen_cpu_s=0.1, p50=40.0, workload=workload)
        )
        assert flag.message.startswith("p50 40.0 ms against a service time of 2.00 ms (server CPU per request), "), (
            workload
        )


# --- error statuses, backends ------------------------------------------------------------------------------------


def test_error_statuses_share_is_of_the_answered_requests():
    """One request answered, with an error status: 100% of the answered, under the flag's own name."""
    flag = checks.error_statuses(record(rps=0.2, errors={"status": 1}))
    assert flag.name == "error-statuses" and flag.message.startswith("1 responses (100.0% of the answered)")


def test_backend_bound_names_every_bound_backend():
    """Two backends at 92% and 94% of their core: both named, joined by a comma, under backend-bound."""
    flag = checks.backend_bound(
        record(
            backends=[
                BackendUsage("mongo", "secantusdb", 4.6, 5.0, 1, 0),
                BackendUsage("redis", "redis-server", 4.7, 5.0, 1, 0),
            ]
        )
    )
    assert flag.name == "backend-bound"
    assert flag.message.startswith("mongo 92% of 1 core(s), redis 94% of 1 core(s) (limit 90%)")


# --- neighbours --------------------------------------------------------------------------------------------------


def _machine(host_cpu_s, steal_s=0.0, backends=(), duration=5.0, server_cpu_s=4.0):
    """A record whose server used 4 s and generator 2 s of CPU, with the machine's busy and stolen time."""
    r = record(server_cpu_s=server_cpu_s, gen_cpu_s=2.0 * duration / 5.0, backends=backends, duration=duration)
    return replace(r, host_cpu_s=host_cpu_s, host_steal_s=steal_s)


def test_neighbours_limit_is_twenty_five_percent_of_a_core_inclusive():
    """Others at exactly 25% of a core are flagged; 24.95% is not."""
    assert checks.neighbours(_machine(7.25)) is not None
    assert checks.neighbours(_machine(7.2475)) is None


def test_neighbours_stolen_time_limit_is_ten_percent_inclusive():
    """The hypervisor stealing exactly 10% of a core is flagged, 9.95% is not; with no other process the message says
    others used 0%."""
    flag = checks.neighbours(_machine(5.0, steal_s=0.5))
    assert flag is not None and "other processes used 0% of a core" in flag.message
    assert "the hypervisor stole 10%" in flag.message
    assert checks.neighbours(_machine(6.0, steal_s=0.4975)) is None


def test_neighbours_count_a_backend_of_unknown_cpu_as_none_of_ours():
    """A backend whose CPU was not measured adds nothing to ours: 1.5 s of the machine's busy time left over is 30%."""
    unknown = BackendUsage("up", "external", None, 5.0, 1, None)
    flag = checks.neighbours(_machine(7.5, backends=[unknown]))
    assert flag is not None and "other processes used 30% of a core" in flag.message


def test_neighbours_need_the_servers_cpu_and_a_window():
    """No server CPU, or a window of no length: not judged; a 1 s window is."""
    assert checks.neighbours(_machine(7.5, server_cpu_s=None)) is None
    assert checks.neighbours(_no_window(_machine(10.0))) is None
    assert checks.neighbours(_machine(2.0, duration=1.0, server_cpu_s=0.5)) is not None


# --- busy waiting ------------------------------------------------------------------------------------------------


def _cost(us_per_request, workload, rps=256, duration=4.0, **kw):
    """A record whose server spent ``us_per_request`` µs of CPU per request (1,024 requests by default)."""
    requests = int(rps * duration)
    return record(rps=rps, duration=duration, server_cpu_s=us_per_request * requests / 1e6, workload=workload, **kw)


def _busy(cost_us, base_us, **kw):
    return checks.busy_waiting(_cost(cost_us, "redis", **kw), [_cost(base_us, "json")])


@pytest.mark.parametrize(
    "base_us, at_limit_us",
    [
        pytest.param(2400, 3600, id="against 2,400 µs on json: 3,600 µs (1.5x, 1,200 µs more) is, 3,599 µs is not"),
        pytest.param(100, 1100, id="against 100 µs on json: 1,100 µs (11x, 1,000 µs more) is, 1,099 µs is not"),
    ],
)
def test_busy_waiting_limits_are_inclusive(base_us, at_limit_us):
    """1.5 times the lighter workload's cost and 1 ms more: at the limit busy waiting, 1 µs below it not."""
    assert _busy(at_limit_us, base_us) is not None
    assert _busy(at_limit_us - 1, base_us) is None


def test_busy_waiting_needs_the_server_twenty_percent_busy_inclusive():
    """2,000 µs a request against 100 µs: at 20% of a core busy waiting, at 19.95% not."""
    assert checks.busy_waiting(record(rps=100, server_cpu_s=1.0, workload="redis"), [_cost(100, "json")])
    assert checks.busy_waiting(record(rps=100, server_cpu_s=0.9975, workload="redis"), [_cost(100, "json")]) is None


def test_busy_waiting_needs_a_window():
    """A 1 s window is judged; a window of no length is not (no division by zero)."""
    assert _busy(3600, 2400, duration=1.0) is not None
    assert checks.busy_waiting(_no_window(_cost(3600, "redis")), [_cost(2400, "json")]) is None


def test_busy_waiting_compares_with_the_cheapest_lighter_record():
    """json at 2,400 µs and plaintext at 1,000 µs: 4,000 µs on redis is compared with plaintext's; two equally cheap
    ones are no error (the first is named)."""
    flag = checks.busy_waiting(_cost(4000, "redis"), [_cost(2400, "json"), _cost(1000, "plaintext")])
    assert "against 1,000 µs on plaintext" in flag.message
    tie = checks.busy_waiting(_cost(4000, "redis"), [_cost(1000, "json"), _cost(1000, "plaintext")])
    assert "against 1,000 µs on json" in tie.message


def test_busy_waiting_compares_only_the_same_python():
    """A json record on another Python implementation or version is not the lighter reference."""
    json, redis = _cost(1000, "json"), _cost(4000, "redis")
    assert [f.name for f in check_session([json, redis])[1]] == ["busy-waiting"]
    for python in ({"implementation": "pypy", "version": "3.11"}, {"implementation": "cpython", "version": "3.12"}):
        assert check_session([replace(json, python=python), redis])[1] == [], python


def test_the_users_measured_wait_names_the_cause_when_it_accounts_for_their_time_within_5_percent():
    """Ratio 0.9: a measured gap of 10 ms makes the users' cycle 100 ms a request (1.00): named, latencies kept;
    5.01 ms (0.9501) and 14.99 ms (1.0499) are just inside the band, 4.99 ms (0.9499) and 15.01 ms (1.0501) just
    outside it, and name nothing."""
    named = checks.littles_law(waited_result(10.0))
    assert (
        "locust's users waited 10.00 ms per request between an answer and their next request" in named.message
        and "their time covers 100% of the window" in named.message
    )
    assert not checks.latency_known_wrong(waited_result(10.0))
    assert "locust's users waited 5.01 ms" in checks.littles_law(waited_result(5.01)).message
    assert "locust's users waited 14.99 ms" in checks.littles_law(waited_result(14.99)).message
    for gap in (4.99, 15.01, None):
        assert "users waited" not in checks.littles_law(waited_result(gap)).message, gap
        assert checks.latency_known_wrong(waited_result(gap)), gap


def test_the_users_wait_is_counted_per_user():
    """64 users at 576 rps x 100 ms (0.90): a 11.1 ms gap makes 576 x 111.1 ms / 64 = 1.00, named; the same gap does
    not account for 16 users at the same rps (4.0)."""
    r = locust_result(576, 64, 100.0, gen_cpu_s=0.0)
    assert "users waited 11.10 ms" in checks.littles_law(replace(r, load=replace(r.load, gap_ms=11.1))).message
    few = locust_result(576, 16, 100.0, gen_cpu_s=0.0)
    assert "users waited" not in checks.littles_law(replace(few, load=replace(few.load, gap_ms=11.1))).message


def test_the_users_wait_beyond_their_think_time_is_what_the_message_names():
    """A 20 ms think time and a 30 ms measured gap: 10 rps x (70 + 20) ms = 0.9; the gap makes it 1.00 and the wait
    beyond thinking is 10 ms."""
    flag = checks.littles_law(waited_result(30.0, think_ms=20.0, mean=70.0))
    assert "locust's users waited 10.00 ms per request" in flag.message


def test_a_measured_gap_replaces_the_cpu_bound_and_does_not_name_a_ratio_above_1():
    """With the gap measured, locust's CPU per request no longer names a cause (the measurement decides); a ratio
    above 1 is never explained by users waiting."""
    r = waited_result(0.0)
    cpu = replace(r, generator=replace(r.generator, cpu_s=0.5))  # 10 ms a request: the bound would name it
    assert "locust spent" not in checks.littles_law(cpu).message and checks.latency_known_wrong(cpu)
    fast = locust_result(12, 1, 100.0, gen_cpu_s=0.0)
    over = replace(fast, load=replace(fast.load, gap_ms=0.0))
    assert checks.littles_ratio(over) > 1.05 and "users waited" not in checks.littles_law(over).message


# Merged from test_mutation_checks.py: The consistency checks at exact equality and on missing counters (issue 22,
# mutation survivors of judge.checks).
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


def test_a_stall_names_every_process_and_its_busy_share():
    """The stall's message gives the server's busy share of what the latency left it, the generator's and each
    backend's of their cores."""
    redis = BackendUsage("redis", "redis-server", 0.05, 5.0, 1, 500)
    flag = checks.stall(record(**IDLE, p50=40.0, backends=(redis,)))
    assert flag.name == "stall"
    assert flag.message.startswith(
        "p50 40.0 ms against a service time of 2.00 ms (server CPU per request), while the server's CPU was 20% of "
        "what the latency left it (100 rps x 2.00 ms of CPU each, on the 1 core(s) it could use), the generator 1% of "
        "its cores, redis 1% of theirs; each under 50%"
    )


def test_a_stall_beside_busy_neighbours_does_not_say_everything_was_idle():
    """A stalled cell while other processes used 58% of a core (both flags raised): the stall's message says the
    machine was not idle, with the neighbours' figures; a quiet machine's stall does not."""
    crowded = replace(record(**IDLE, p50=40.0), host_cpu_s=4.0, host_steal_s=0.0)  # 4.0 - 1.0 - 0.1 = 2.9 s of 5
    assert [f.name for f in check(crowded) if f.name in ("stall", "neighbours")] == ["stall", "neighbours"]
    message = checks.stall(crowded).message
    assert "everything was idle" not in message
    assert (
        "the machine was not idle: other processes used 58% of a core and the hypervisor stole 0% (neighbours), so "
        "the wait may be theirs"
    ) in message
    quiet = replace(crowded, host_cpu_s=1.2)
    assert "neighbours" not in [f.name for f in check(quiet)]
    assert "machine was not idle" not in checks.stall(quiet).message


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


def test_littles_law_gives_its_cause_as_a_stable_code_beside_the_message():
    """Each story's code (what the time census counts): the first cause outside the harness the record measured,
    else the harness's reason, "unexplained" where the record measured nothing that accounts for the gap."""
    low = dict(rps=2000, connections=8, mean=2.0)
    window = 64 * 5.0
    cases = {
        "syn-drops": record(**low, kernel={"listen_drops": 9}, errors={"timeout": 5}),
        "generator-saturated": record(**low, gen_cpu_s=9.8),
        "generator's users waited": waited_result(10.0),
        "locust's CPU": locust_result(100, 1, 5.0, gen_cpu_s=2.5),
        "failed connections": record(**low, errors={"timeout": 5}),
        "held connections": held_result(0.23, 49),
        "first requests waited": first_waits_result(0.55, 0.48 * window, held=22),
        "window edges": edges_result(1.09, 8.0, 35.0),
        "unexplained": record(rps=2000, connections=8, mean=1.33),
    }
    for code, r in cases.items():
        flag = checks.littles_law(r)
        assert flag is not None and flag.cause == code, (code, flag)
    assert {checks.littles_law(r).cause for r in (held_result(0.5, 1), record(rps=4756, connections=8, mean=9.67))} == {
        "unexplained"
    }
    assert checks.generator_saturated(record(gen_cpu_s=9.8)).cause is None  # the other rules: their name says it
    stored = checks.littles_law(cases["held connections"])
    assert Flag.from_record(stored.to_record()) == stored and Flag.from_record(stored.to_record()).cause is None


def _soak(pss_mb: list[float]) -> Result:
    """A healthy record whose window sampled its server's PSS once a second for 11 s (a soak)."""
    r = record()
    series = {"t_s": [float(t) for t in range(len(pss_mb))], "pss_mb": pss_mb}
    return replace(r, memory={**r.memory, "series": series})


def test_memory_growth_flags_a_soak_whose_pss_keeps_growing_and_not_a_flat_one():
    """A soak whose PSS grows 2 MB a second after warm-up is flagged memory-growth, naming the fix; the same soak at a
    flat PSS, and a window too short to judge, are not."""
    growing = check(_soak([50.0 + 2.0 * t for t in range(12)]))
    (flag,) = [f for f in growing if f.name == "memory-growth"]
    assert "the server keeps memory per request" in flag.message and "docs/memory.md" in flag.message
    assert "memory-growth" not in names(_soak([50.0] * 12))
    assert "memory-growth" not in names(_soak([50.0 + 2.0 * t for t in range(5)]))


def test_a_harness_causes_meaning_fills_its_template_with_the_record_the_ratio_and_the_limit():
    """A meaning made by ``_said`` reads the record, the ratio and the saturation limit by name (the module's own are
    made at import, before a test can reach them: this one is made here)."""
    said = checks._said("{r.generator.name} covered {ratio:.0%}, limit {limit:.0f}%")
    assert said(record(), 0.68) == "wrk covered 68%, limit 90%"


def test_a_ratio_above_one_is_never_the_users_wait_even_when_their_gap_would_bring_it_to_one():
    """Users measured a 10 ms gap beside a 30 ms think time: 10 rps x (90 + 30) ms is 1.2 of the user's time, 1.0
    with the gap in its place; latencies longer than the cycle are not explained by a wait, so the flag says so and
    names no users' wait (nor a negative one)."""
    over = waited_result(10.0, think_ms=30.0)
    assert checks.littles_ratio(over) == pytest.approx(1.2)
    flag = checks.littles_law(over)
    assert flag is not None and "users waited" not in flag.message and flag.cause == "unexplained"
    assert "add up to more time than its connections had" in flag.message and checks.latency_known_wrong(over)


def test_a_busy_load_host_is_named_and_the_fix_is_another_load_host():
    """Across load hosts the busiest host decides saturation, and the flag names it and says to add a load host."""
    from serverbench.records.schema import HostLoad

    hosts = (HostLoad("load1", "198.18.0.11", 1, 1, 4.7, 5.0), HostLoad("load2", "198.18.0.12", 1, 1, 2.0, 5.0))
    busy = replace(record(), generator=replace(record().generator, hosts=hosts))
    flag = checks.generator_saturated(busy)
    assert flag is not None and "load host load1 94% of 1 core(s)" in flag.message and "Add a load host" in flag.message
    calm = replace(record(), generator=replace(record().generator, hosts=hosts[1:]))
    assert checks.generator_saturated(calm) is None


def _on_two_cores(r: Result, host_cpu_s: float | None = None) -> Result:
    """The record on a 2-core machine, with the host's CPU over its 5 s window where given."""
    return replace(r, machine={"cores": 2}, host_cpu_s=host_cpu_s, host_wall_s=5.0 if host_cpu_s is not None else None)


def test_stall_flags_gevent_pywsgi_at_c64_with_a_third_of_a_core_busy():
    """Stock gevent-pywsgi on /json at c64 (measured): p50 44 ms on 0.28 ms of CPU per request, the server 38% of a
    core busy: a stall (the old 30%-of-a-core limit missed it)."""
    r = record(rps=1366, connections=64, p50=44.05, mean=45.59, server_cpu_s=1.89, gen_cpu_s=0.2)
    flag = checks.stall(r)
    assert flag is not None and "the server's CPU was 38% of what the latency left it" in flag.message


@pytest.mark.parametrize("cpu_ms", [0.12, 0.18, 0.25, 0.33])
def test_a_fixed_wait_is_a_stall_on_a_faster_or_slower_cpu(cpu_ms):
    """A 44 ms wait per request at 64 connections is a stall whether the CPU needs 0.12 or 0.33 ms per request (17%
    to 48% of a core busy): the rule reads the server's share of what the latency leaves it, not a share of a core."""
    rps = 64 / 0.044
    r = record(rps=rps, connections=64, p50=44.0, server_cpu_s=rps * 5 * cpu_ms / 1000, gen_cpu_s=0.2)
    assert checks.stall(r) is not None


@pytest.mark.parametrize("speed", [0.25, 0.5, 1.0, 2.0, 4.0])
def test_a_server_its_cpu_holds_up_is_no_stall_at_any_cpu_speed(speed):
    """A server whose CPU sets the latency (64 connections x 0.3 ms = 19.2 ms, 95% busy) is no stall on a CPU four
    times slower or faster: its busy share stays 0.95."""
    cpu_ms, mean = 0.3 * speed, 64 * 0.3 * speed / 0.95
    r = record(rps=64 / mean * 1000, connections=64, mean=mean, server_cpu_s=64 / mean * 1000 * 5 * cpu_ms / 1000)
    assert checks.server_busy_share(r) == pytest.approx(0.95, rel=1e-3)
    assert checks.stall(r) is None


def test_a_servers_busy_share_is_of_the_cores_it_could_use():
    """Two processes on two cores, 80% of one core busy and nothing else running: 42% of the 1.9 cores the machine
    left it, a stall; with other processes holding a core, the one core left is 80% busy: no stall."""
    stalled = record(rps=1450, connections=64, p50=44.0, server_cpu_s=4.0, gen_cpu_s=0.5, variant="gunicorn-sync-w2")
    assert checks.server_cores(_on_two_cores(stalled, host_cpu_s=4.5)) == pytest.approx(1.9)
    assert checks.stall(_on_two_cores(stalled, host_cpu_s=4.5)) is not None
    assert checks.server_cores(_on_two_cores(stalled, host_cpu_s=9.5)) == 1.0
    assert checks.stall(_on_two_cores(stalled, host_cpu_s=9.5)) is None
    assert checks.server_cores(stalled) == 2.0  # no machine cores recorded: its processes


def test_busy_waiting_needs_the_server_busy_on_the_cores_it_could_use():
    """A 4-process server 60% of one core busy on a 4-core machine is 15% of what it could use: no busy-waiting
    (its processes' own ticks); on one core left to it the same 60% is."""
    waiting = record(rps=100, server_cpu_s=3.0, gen_cpu_s=0.5, workload="redis", variant="gunicorn-sync-w4")
    light = record(rps=3000, server_cpu_s=3.0, gen_cpu_s=0.5, variant="gunicorn-sync-w4")
    assert checks.busy_waiting(replace(waiting, machine={"cores": 4}), [light]) is None
    assert checks.busy_waiting(replace(waiting, machine={"cores": 4}, host_cpu_s=18.0, host_wall_s=5.0), [light])


def test_a_machine_others_keep_busy_still_leaves_the_server_one_core():
    """Stock gevent-pywsgi at c8 (measured) while another session's processes held both cores: 6% of the one core
    the scheduler still gives it, a stall."""
    r = record(rps=184, connections=8, p50=44.0, mean=42.75, server_cpu_s=0.3, gen_cpu_s=0.05)
    busy = _on_two_cores(r, host_cpu_s=10.0)
    assert checks.server_cores(busy) == 1.0
    assert checks.stall(busy) is not None


def test_without_the_hosts_counters_the_server_gets_what_the_generator_and_backends_left():
    """Four processes on four cores beside a generator at half a core, a backend at one core and one at a URL (not
    measured, counted as nothing): 2.5 cores; a host CPU without its wall time is not read."""
    up = BackendUsage("up", "external", None, 5.0, 1, None)
    r = record(gen_cpu_s=2.5, variant="gunicorn-sync-w4", backends=[BackendUsage("redis", "redis", 5.0, 5.0, 1, 9), up])
    assert checks.server_cores(replace(r, machine={"cores": 4})) == pytest.approx(2.5)
    assert checks.server_cores(replace(r, machine={"cores": 4}, host_cpu_s=9.0, host_wall_s=None)) == pytest.approx(2.5)


def test_a_backends_busy_share_is_of_its_own_cores():
    """mongod at 48% of one core on its two cores is 24% busy, as the stall's message says; at 52% on one core it is
    past the stall's 50% and no stall."""
    idle = dict(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=0.1, workload="mongo")
    r = record(**idle, backends=[BackendUsage("mongo", "mongod", 2.4, 5.0, 2, 1000)])
    assert checks.stall_shares(r)["mongo"] == pytest.approx(0.24)
    assert "the generator 1% of its cores, mongo 24% of theirs" in checks.stall(r).message
    assert checks.stall(record(**idle, backends=[BackendUsage("mongo", "mongod", 2.6, 5.0, 1, 1000)])) is None


def test_every_load_host_at_the_limit_is_named():
    """Two load hosts, one at exactly 90% (the limit) and one at 96%: both are named, in the inventory's order."""
    from serverbench.records.schema import HostLoad

    hosts = (HostLoad("load1", "198.18.0.11", 1, 1, 4.5, 5.0), HostLoad("load2", "198.18.0.12", 1, 1, 4.8, 5.0))
    flag = checks.generator_saturated(replace(record(), generator=replace(record().generator, hosts=hosts)))
    assert "on load host load1 90% of 1 core(s), load2 96% of 1 core(s) (limit 90%)" in flag.message


FREE_THREADED = {"implementation": "cpython", "version": "3.13.1", "free_threaded": True, "gil_enabled": False}


def test_a_free_threaded_window_with_the_gil_turned_on_is_flagged_naming_the_module():
    """A faked 3.13t build whose probe saw httptools turn the GIL on: gil-enabled, naming the module and the fix."""
    r = replace(record(), python=FREE_THREADED, gil={"enabled": True, "enabled_by": ["httptools.parser.parser"]})
    (flag,) = [f for f in check(r) if f.name == "gil-enabled"]
    assert "importing httptools.parser.parser turned it on" in flag.message
    assert "cpython 3.13.1 free-threaded" in flag.message and "a release of httptools that declares it" in flag.message


def test_the_gil_flag_names_python_gil_when_no_module_turned_it_on():
    """On from the start with PYTHON_GIL=1 (no module named): the flag says so and how to start without it."""
    r = replace(record(), python=FREE_THREADED, gil={"enabled": True, "enabled_by": [], "gil_env": "1"})
    (flag,) = [f for f in check(r) if f.name == "gil-enabled"]
    assert "on from the start (PYTHON_GIL=1)" in flag.message and "without PYTHON_GIL=1" in flag.message


def test_no_gil_flag_on_a_gil_build_or_a_free_threaded_window_without_the_gil():
    """A GIL build's GIL is its design; a free-threaded window that kept it off, or one not probed, is not flagged."""
    for python, gil in (
        ({"implementation": "cpython", "version": "3.13.1"}, {"enabled": True, "enabled_by": ["x"]}),
        (FREE_THREADED, {"enabled": False, "enabled_by": []}),
        (FREE_THREADED, None),
    ):
        assert "gil-enabled" not in names(replace(record(), python=python, gil=gil))


def test_the_gil_flag_joins_every_module_that_turned_it_on():
    """Two modules named by the probe: both in the flag, in order, comma-separated; the fix names the first's package."""
    gil = {"enabled": True, "enabled_by": ["greenlet._greenlet", "lxml.etree"]}
    flag = checks.gil_enabled(replace(record(), python=FREE_THREADED, gil=gil))
    assert "importing greenlet._greenlet, lxml.etree turned it on" in flag.message
    assert "a release of greenlet that declares it" in flag.message


def test_the_gil_flag_says_no_module_was_named_when_neither_a_module_nor_python_gil_was():
    """On, with no module and no PYTHON_GIL in the record: the flag says none was named and how to start without it."""
    flag = checks.gil_enabled(replace(record(), python=FREE_THREADED, gil={"enabled": True, "enabled_by": []}))
    assert "free-threaded: no module was named. The figures are a GIL build's" in flag.message
    assert ": start the server without PYTHON_GIL=1 / -X gil=1 (PYTHON_GIL=0" in flag.message


def test_apart_from_the_server_host_neighbours_are_judged_on_its_cores_less_ours_there():
    """A session apart: its own machine's CPU (the generator, pytest) is not the server's neighbour; the server host's
    cores are, less the server, the sampler's own and backends that shared the host. 2.0 busy over 2.5 s less 1.5
    server, 0.1 sampler and 0.2 Redis (shared) is 8%: quiet; Redis elsewhere, 16%; 3.0 busy, 48%: flagged there."""
    redis = BackendUsage("redis", "started", 0.2, 2.5, 1, 10_000)
    sampler = {"cpu_s": 0.1, "server_host_cpu": {"cores": [0], "busy_s": 2.0, "steal_s": 0.0, "wall_s": 2.5}}
    hosts = {"backends": {"host": "app", "shared_with_server": True}}
    base = replace(record(server_cpu_s=1.5, gen_cpu_s=2.0, backends=[redis]), host_cpu_s=9.0, host_steal_s=0.0)
    apart = replace(base, extra={"sampler": sampler, "hosts": hosts})
    assert checks.neighbours(base) is not None and checks.neighbours(apart) is None  # this machine's 9 s is not it
    elsewhere = replace(apart, extra={"sampler": sampler, "hosts": {"backends": {"shared_with_server": False}}})
    assert checks.neighbours(elsewhere) is None  # 0.4 s of 2.5: 16%
    crowded = {**sampler, "server_host_cpu": {**sampler["server_host_cpu"], "busy_s": 3.0}}
    flag = checks.neighbours(replace(apart, extra={"sampler": crowded, "hosts": hosts}))
    assert "other processes used 48% of a core on the server host's cores" in flag.message
    assert Result.from_record(replace(apart, extra={"sampler": crowded, "hosts": hosts}).to_record()).extra["sampler"]


def _apart(busy_s, steal_s=0.0, wall_s=2.5, sampler=None, shared=True, backend_cpu_s=0.25, server_cpu_s=1.25):
    """A 5 s session apart from the server host: its own machine busy 9 s over 4 s, the server host's cores as told."""
    redis = BackendUsage("redis", "started", backend_cpu_s, 5.0, 1, 10_000)
    r = replace(record(server_cpu_s=server_cpu_s, backends=[redis]), host_cpu_s=9.0, host_wall_s=4.0, host_steal_s=0.0)
    cores = {"cores": [0], "busy_s": busy_s, "steal_s": steal_s, "wall_s": wall_s}
    sampler = {"cpu_s": 0.125} if sampler is None else sampler
    hosts = {"backends": {"host": "app", "shared_with_server": shared}}
    return replace(r, extra={"sampler": {**sampler, "server_host_cpu": cores}, "hosts": hosts})


def test_apart_neighbours_limit_is_twenty_five_percent_of_the_server_hosts_cores_inclusive():
    """2.25 s busy less 1.25 server, 0.125 sampler and 0.25 Redis over 2.5 s is 25%: flagged; 24.95% is not."""
    flag = checks.neighbours(_apart(2.25))
    assert "other processes used 25% of a core on the server host's cores during the window" in flag.message
    assert "beside the server's 50% and" in flag.message  # 1.25 s over the server host's 2.5 s, not this machine's 4 s
    assert checks.neighbours(_apart(2.24875)) is None


def test_apart_neighbours_stolen_time_limit_is_ten_percent_of_the_server_hosts_wall_time_inclusive():
    """No other process there, 0.25 s stolen over 2.5 s is 10%: flagged; 9.95% is not."""
    flag = checks.neighbours(_apart(1.625, steal_s=0.25))
    assert "other processes used 0% of a core on the server host's cores" in flag.message
    assert "the hypervisor stole 10%, limit 10%" in flag.message
    assert checks.neighbours(_apart(1.625, steal_s=0.24875)) is None


def test_apart_neighbours_count_as_ours_only_what_ran_on_the_server_host_and_was_measured():
    """A sampler without its CPU, a shared backend of unknown CPU and one on its own host add nothing: 30%, 35%, 35%."""
    assert "used 30% of a core on" in checks.neighbours(_apart(2.25, sampler={})).message
    assert "used 35% of a core on" in checks.neighbours(_apart(2.25, backend_cpu_s=None)).message
    assert "used 35% of a core on" in checks.neighbours(_apart(2.25, shared=False)).message


def test_apart_without_a_whole_reading_of_the_server_host_neighbours_are_judged_on_this_machine():
    """No busy time or no wall time from the server host: this machine's 9 s over 4 s is judged; no server CPU: none."""
    for partial in (_apart(None), _apart(2.25, wall_s=None), _apart(2.25, wall_s=0.0)):
        flag = checks.neighbours(partial)
        assert "of a core during the window" in flag.message and "beside the server's 31% and" in flag.message
    assert checks.neighbours(_apart(2.25, server_cpu_s=None)) is None


def test_apart_the_server_gets_the_server_hosts_cores_less_what_else_used_them_there():
    """gunicorn-sync-w4 apart: four cores there busy 6.25 s over 2.5 s beside its 1.25 s leave it 2 cores, not this
    machine's 2 of 4 (its 9 s over 4 s), and all 4 when the host read less than the server; one core there, full, still
    leaves it one; no cores read there: this machine's."""
    four = _apart(6.25)
    four = replace(
        four,
        variant="gunicorn-sync-w4",
        machine={"cores": 4},
        extra={**four.extra, "sampler": {"server_host_cpu": {"cores": [0, 1, 2, 3], "busy_s": 6.25, "wall_s": 2.5}}},
    )
    assert checks.server_cores(four) == pytest.approx(2.0)
    coarse = replace(
        four,
        extra={**four.extra, "sampler": {"server_host_cpu": {"cores": [0, 1, 2, 3], "busy_s": 1.0, "wall_s": 2.5}}},
    )
    assert checks.server_cores(coarse) == 4.0  # the host read less than the server: nothing else used it
    one = replace(_apart(2.5), variant="gunicorn-sync-w4", machine={"cores": 4})
    assert checks.server_cores(one) == 1.0
    unread = replace(one, extra={"sampler": {"server_host_cpu": {"busy_s": 2.5, "wall_s": 2.5}}})
    assert checks.server_cores(unread) == pytest.approx(2.0625)  # 4 cores less (9 - 1.25) s over 4 s
