"""The consistency checks (judge.checks) on synthetic records: each rule flags its artefact, passes a healthy one."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from serverbench.catalog.shapes import LoadShape
from serverbench.judge import checks
from serverbench.judge.checks import Flag, check, check_session
from serverbench.judge.verdict import Verdict
from serverbench.measure.kernel import parse_netstat, window
from serverbench.records.results import ResultsFile, Stored
from serverbench.records.schema import BackendUsage, Generator, LoadReport, Result, RunQueue, SlowClientReport
from serverbench.report.charts import Fold
from serverbench.report.inputs import Inputs
from serverbench.report.sections import select
from serverbench.report.terminal import summary_table

ERRORS = {"connect": 0, "read": 0, "write": 0, "timeout": 0, "status": 0}


def record(
    rps=2000.0,
    connections=8,
    p50=None,
    mean=None,
    tail=None,
    server_cpu_s=4.0,
    gen_cpu_s=2.0,
    workload="json",
    shape=None,
    backends=(),
    errors=None,
    kernel=None,
    variant="v",
    duration=5.0,
) -> Result:
    """A record (5 s by default), healthy unless told: Little's law holds (mean = connections / rps), 80% busy."""
    mean = connections / rps * 1000.0 if mean is None else mean
    p50 = mean if p50 is None else p50
    latency = {
        "p50": p50,
        "p75": p50 * 1.1,
        "p90": p50 * 1.2,
        "p99": p50 * 2,
        "p999": p50 * 3,
        "max": p50 * 4,
        "mean": mean,
        "stdev": 1.0,
        **(tail or {}),
    }
    load = LoadReport("wrk", int(rps * duration), duration, 0, latency, {**ERRORS, **(errors or {})})
    return Result(
        nodeid="t",
        test="test_throughput",
        variant=variant,
        app="flask",
        workload=workload,
        shape=shape or LoadShape(connections, 5),
        warmup_s=0,
        url="http://127.0.0.1:1/",
        load=load,
        generator=Generator("wrk", "4.2.0", 2, gen_cpu_s, 5.0, 2),
        server_cpu_s=server_cpu_s,
        server_rss_mb=40.0,
        machine={},
        python={"implementation": "cpython", "version": "3.11"},
        timestamp="2026-11-23T00:00:00+00:00",
        backends=tuple(backends),
        kernel=kernel or {},
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
    and the summary hides its latencies."""
    r = record(rps=19.6, connections=64, mean=2210.0, server_cpu_s=0.1, gen_cpu_s=0.05, workload="sleep")
    flag = checks.littles_law(r)
    assert flag is not None and "ratio 0.68" in flag.message and "drained server" in flag.message
    assert checks.latency_known_wrong(r)
    text = summary_table([(r, Verdict("no-baseline", "no baseline", None, None))], [], 200)
    row = next(line for line in text.splitlines() if "v/flask" in line)
    assert "2210" not in row.replace(",", "") and "?" in row and "?: a latency the littles-law check" in text


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
    assert check_session([light, record(rps=1000, server_cpu_s=0.6, workload="redis")])[1] == []
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


def test_kernel_listen_counters_are_read_from_netstat_text():
    """ListenOverflows and ListenDrops come from the TcpExt lines; the window is their rise."""
    text = "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 7 9\nIpExt: InNoRoutes\nIpExt: 0\n"
    before = parse_netstat(text)
    assert before == {"listen_overflows": 7, "listen_drops": 9}
    assert window(before, {"listen_overflows": 10, "listen_drops": 13}) == {"listen_overflows": 3, "listen_drops": 4}
    assert parse_netstat("IpExt: InNoRoutes\nIpExt: 0\n") == {}


def test_terminal_summary_shows_each_records_flags_and_what_they_mean():
    """The summary table has a flags column, and one line under it per flag raised."""
    stalled = record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=0.1)
    verdict = Verdict("no-baseline", "no baseline", None, None)
    text = summary_table([(record(), verdict), (stalled, verdict)], [], 200)
    rows = [line for line in text.splitlines() if "v/flask" in line]
    assert "stall" not in rows[0] and "stall" in rows[1]
    assert "stall: server, backends and generator all idle" in text and "docs/checks.md" in text


def test_html_summary_shows_the_stored_flags_with_their_messages():
    """A stored record's flags are named in the summary's flags column and listed with their messages."""
    stalled = record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=0.1)
    flags = [f.to_record() for f in check(stalled)]
    run = ResultsFile(
        Path("s.json"),
        2,
        "2026-11-23T00:00:00+00:00",
        {"id": "m"},
        (Stored(stalled, None, stalled.to_record(None, flags)),),
        (),
    )
    summary = next(s for s in select(Inputs((run,), ())) if s.id == "summary")
    table = summary.blocks[0]
    row = {c.name: cell for c, cell in zip(table.columns, table.rows[0])}
    assert row["flags"].text == "stall"
    fold = next(b for b in summary.blocks if isinstance(b, Fold))
    assert fold.blocks[0].rows[0][-1].text == flags[0]["message"]


def _locust(rps: float, users: int, mean: float, think_ms: float | None = 0.0, gen_cpu_s: float = 2.0) -> Result:
    """A locust scenario's record (users in one process) with its mean latency and the users' think time."""
    r = record(
        rps=rps,
        connections=users,
        mean=mean,
        workload="site",
        shape=LoadShape(users, 5, workers=0),
        gen_cpu_s=gen_cpu_s,
    )
    return replace(
        r,
        load=replace(r.load, driver="locust", think_ms=think_ms),
        generator=replace(r.generator, name="locust", threads=1),
    )


def test_locust_users_are_held_to_littles_law_with_their_think_time():
    """64 users at 1,105 rps x 57.6 ms hold (0.99); with a 10 ms think time the same latency is 0.85 of the users,
    and 64 users with 10 ms think at 947 rps x 57.6 ms hold."""
    assert abs(checks.littles_ratio(_locust(1105, 64, 57.6)) - 0.9945) < 1e-3
    assert checks.littles_law(_locust(1105, 64, 57.6)) is None
    assert checks.littles_law(_locust(947, 64, 57.6, think_ms=10.0)) is None
    flag = checks.littles_law(_locust(947, 64, 57.6))
    assert flag is not None and "64 users" in flag.message and "final statistics" in flag.message


def test_a_locust_record_counted_from_its_csv_over_minus_t_is_flagged_and_its_latency_hidden():
    """The old count (the CSV misses the last second; rps over -t): 2,797 requests / 5 s x 66.2 ms / 64 = 0.58."""
    r = _locust(2797 / 5, 64, 66.2)
    assert checks.latency_known_wrong(r) and "ratio 0.58" in checks.littles_law(r).message
    thinking = checks.littles_law(_locust(2797 / 5, 64, 66.2, think_ms=1.0)).message
    assert "559.4 rps x (66.20 ms mean + 1.00 ms think time)" in thinking


def test_a_saturated_locust_is_a_cause_named_and_a_locustfile_of_unknown_wait_is_not_judged():
    """A locust at 99% of its core is the measured cause (latencies stay); an unknown think time is no ratio."""
    busy = _locust(700, 64, 57.6, gen_cpu_s=4.95)
    assert "generator was 99% busy" in checks.littles_law(busy).message and not checks.latency_known_wrong(busy)
    assert checks.littles_ratio(_locust(700, 64, 57.6, think_ms=None)) is None


def test_a_think_time_survives_the_record_and_old_records_have_none():
    """think_ms is stored when set (None too: unknown), and a record without the key reads as 0."""
    for think in (10.0, None, 0.0):
        r = _locust(947, 64, 57.6, think_ms=think)
        stored = r.to_record(None)
        assert ("think_ms" in stored) == (think != 0.0)
        assert Result.from_record(stored).load.think_ms == think


def test_locusts_own_cpu_per_request_names_the_time_between_an_answer_and_the_next_request():
    """5 users at 1,386 rps x 2.80 ms (0.78): 0.80 ms a request uncovered, locust burnt 1.5 ms a request: named;
    the old CSV count (0.58 at 64 users: 48 ms a request uncovered) is not explained by 1.4 ms of CPU."""
    fast = _locust(1386.5, 5, 2.80, gen_cpu_s=1386.5 * 5 * 1.5 / 1000)
    assert "locust spent 1.50 ms of its own CPU per request" in checks.littles_law(fast).message
    assert not checks.latency_known_wrong(fast)
    old = _locust(2797 / 5, 64, 66.2, gen_cpu_s=4.0)
    assert checks.latency_known_wrong(old)


def _held(ratio: float, held: int, connections: int = 64) -> Result:
    """A steady oha window at ``ratio`` of Little's law with ``held`` connections that sent nothing in it."""
    r = record(rps=10.0, connections=connections, mean=connections / 10.0 * 1000.0 * ratio, workload="upstream")
    return replace(r, load=replace(r.load, driver="oha", window="steady", held_through=held))


def test_connections_held_through_the_window_are_named_when_they_account_for_the_ratio():
    """bjoern /upstream at 64 connections: 49 held through the window leave 15 of 64 (0.23) to the window's requests;
    at ratio 0.23 (and 0.19, 0.28: within 5%) the flag names them and keeps the latencies hidden."""
    for ratio in (0.23, 0.19, 0.28):
        flag = checks.littles_law(_held(ratio, 49))
        assert flag is not None and "49 of 64 connections sent no request in the window" in flag.message, ratio
        assert checks.latency_known_wrong(_held(ratio, 49))


def test_held_connections_that_do_not_account_for_the_ratio_are_not_the_story():
    """One held connection leaves 63 of 64 (0.98): it does not explain a ratio of 0.5; 49 held (0.23) do not explain
    0.17 or 0.29 (outside 5%); no held connection, no such story."""
    for ratio, held in ((0.5, 1), (0.17, 49), (0.29, 49), (0.5, 0)):
        flag = checks.littles_law(_held(ratio, held))
        assert flag is not None and "sent no request in the window" not in flag.message, (ratio, held)
        assert "steady-state window" in flag.message and "left its connections idle" in flag.message


def _first_waits(ratio: float, first_wait_s: float, held: int = 0) -> Result:
    """A steady oha window (5 s, 64 connections) at ``ratio`` with ``first_wait_s`` of it spent on first requests."""
    r = _held(ratio, held)
    return replace(r, load=replace(r.load, first_wait_s=first_wait_s))


def test_waits_on_the_runs_first_requests_are_named_when_they_account_for_the_ratio():
    """bjoern /upstream at 64 connections, lead-in 16 s, window 32 s: it took its connections one a round, so the
    window spent 48% of its connection-time on first requests (22 through it): 0.55 + 0.48 is within 5% of 1, and so
    are 0.48 + 0.48 and 0.56 + 0.48; the flag names the wait and the latencies stay hidden."""
    window = 64 * 5.0
    for ratio in (0.55, 0.48, 0.56):
        flag = checks.littles_law(_first_waits(ratio, 0.48 * window, held=22))
        assert flag is not None and "waiting on the run's first requests" in flag.message, ratio
        assert "spent 48% of the window" in flag.message and "22 of 64 connections" in flag.message
        assert f"covers {ratio + 0.48:.0%} of it" in flag.message
        assert checks.latency_known_wrong(_first_waits(ratio, 0.48 * window))


def test_first_waits_that_do_not_account_for_the_ratio_are_not_the_story():
    """0.46 + 0.48 and 0.58 + 0.48 are outside 5% of 1; no first wait (0 or unknown) is no such story."""
    window = 64 * 5.0
    for ratio, wait in ((0.46, 0.48 * window), (0.58, 0.48 * window), (0.9, 0.0), (0.9, None)):
        flag = checks.littles_law(_first_waits(ratio, wait))
        assert flag is not None and "first requests" not in flag.message, (ratio, wait)
        assert "left its connections idle" in flag.message


def test_the_first_wait_share_is_of_the_connections_whole_window():
    """first_wait_s over connections x the window: 80 s of 64 x 5 s is 0.25; unknown is 0."""
    assert checks._first_wait_share(_first_waits(0.5, 80.0)) == 0.25
    assert checks._first_wait_share(_first_waits(0.5, None)) == 0.0


def test_first_wait_survives_the_record_and_is_absent_where_unknown():
    """first_wait_s is written (to the millisecond) and read back; a record without it reads as None."""
    r = _first_waits(0.5, 80.12345)
    assert r.to_record()["first_wait_s"] == 80.123
    assert Result.from_record(r.to_record()).load.first_wait_s == 80.123
    assert "first_wait_s" not in record().to_record()
    assert Result.from_record(record().to_record()).load.first_wait_s is None


def test_held_through_survives_the_record_and_is_absent_where_unknown():
    """held_through is written and read back; a record without it (wrk, older oha) reads as None."""
    r = _held(0.23, 49)
    assert Result.from_record(r.to_record()).load.held_through == 49
    assert Result.from_record(record().to_record()).load.held_through is None
    assert "held_through" not in record().to_record()


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
    r = _locust(1310.0, 50, 25.75)
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


def test_runnable_share_divides_by_the_cores_the_generator_can_use():
    """Two threads on two cores, each on a core 50% and waiting 40% of 10 s: runnable 90%; on one thread, 180%."""
    queue = RunQueue(cpu_s=10.0, wait_s=8.0, wall_s=10.0)
    assert Generator("oha", "1", 2, 10.0, 10.0, 2, run_queue=queue).runnable_pct == 90.0
    assert Generator("oha", "1", 1, 10.0, 10.0, 2, run_queue=queue).runnable_pct == 180.0
    assert Generator("oha", "1", 1, 1.0, 10.0, 2).runnable_pct is None
    assert RunQueue(1.0, 1.0, 0.0).runnable_pct(1) == 0.0


def test_the_run_queue_survives_the_record_and_old_records_have_none():
    """The generator's run_queue and runnable share are stored; a record without them reads as unmeasured."""
    queue = RunQueue(cpu_s=1.4042, wait_s=1.9548, wall_s=3.2735)
    stored = Generator("locust", "2.47.0", 1, 3.63, 6.41, 2, run_queue=queue).to_record()
    assert stored["run_queue"] == {"cpu_s": 1.4042, "wait_s": 1.9548, "wall_s": 3.2735}
    assert stored["runnable_pct"] == 102.6
    assert Generator.from_record(stored, 5.0).run_queue == queue
    plain = Generator("wrk", "4.2.0", 2, 2.0, 5.0, 2).to_record()
    assert "run_queue" not in plain and Generator.from_record(plain, 5.0).run_queue is None


def test_the_waiting_share_is_per_usable_core_and_busy_at_exactly_the_limit_is_named_busy():
    """Two threads on two cores, on a core 40% and waiting 60% of each: "waiting for one 60%", runnable 100%; a
    generator exactly 90% busy is named by its busy share."""
    two = Generator("oha", "1.16.0", 2, 4.0, 5.0, 2, run_queue=RunQueue(cpu_s=4.0, wait_s=6.0, wall_s=5.0))
    message = checks.generator_saturated(replace(record(), generator=two)).message
    assert "runnable 100% of the time (on a core 40%, waiting for one 60%" in message
    at_limit = Generator("oha", "1.16.0", 1, 4.5, 5.0, 2, run_queue=RunQueue(cpu_s=4.5, wait_s=0.5, wall_s=5.0))
    assert "oha was 90% busy" in checks.generator_saturated(replace(record(), generator=at_limit)).message


def test_the_run_queue_keeps_four_decimals_and_a_short_window_still_counts():
    """Seconds are stored to 4 decimals; a window of half a second gives its runnable share."""
    assert RunQueue(1.23456, 0.65432, 2.34567).to_record() == {"cpu_s": 1.2346, "wait_s": 0.6543, "wall_s": 2.3457}
    assert RunQueue(0.25, 0.2, 0.5).runnable_pct(1) == 90.0


def test_a_locust_ratio_above_one_is_latencies_too_long_whatever_its_run_queue():
    """1.2 of Little's law on a locust record with its run queue measured is the over-long latencies' story."""
    r = _waiting_locust(50.0)
    long = replace(r, load=replace(r.load, latency_ms={**r.load.latency_ms, "mean": 50 / 1310.0 * 1000 * 1.2}))
    assert "add up to more time than its connections had" in checks.littles_law(long).message


def test_neighbours_divide_by_the_wall_time_the_hosts_counters_covered():
    """locust's users answered for 2.5 s of a run whose 8.6 s the host's counters covered: 2 s of others is 23% of a
    core over 8.6 s (not flagged), where over 2.5 s it read 137%; the host's wall time survives the record."""
    r = replace(_locust(920.0, 50, 4.0), server_cpu_s=3.0, host_cpu_s=7.0, host_steal_s=0.0, host_wall_s=8.6)
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


def _edges(ratio: float, carried_in: float | None, carried_out: float | None, first: float = 0.0) -> Result:
    """A steady oha window (5 s, 64 connections: 320 connection-seconds) at ``ratio`` with its edges."""
    r = _first_waits(ratio, first)
    return replace(r, load=replace(r.load, carried_in_s=carried_in, carried_out_s=carried_out))


def test_the_edges_survive_the_record_and_are_absent_where_unknown():
    """carried_in_s and carried_out_s are written to the millisecond and read back; a record without them reads None."""
    r = _edges(1.0, 4.12345, 36.50049)
    assert (r.to_record()["carried_in_s"], r.to_record()["carried_out_s"]) == (4.123, 36.5)
    back = Result.from_record(r.to_record()).load
    assert (back.carried_in_s, back.carried_out_s) == (4.123, 36.5)
    assert "carried_in_s" not in record().to_record() and "carried_out_s" not in record().to_record()
    plain = Result.from_record(record().to_record()).load
    assert plain.carried_in_s is None and plain.carried_out_s is None


def test_a_window_whose_edges_did_not_cancel_says_so_either_way_and_hides_its_latencies():
    """1.09 with 35 s carried out and 8 s in (+0.08): the edges, not wrk's synthetic samples; 0.91 with 8 s out and
    40 s in (-0.10): the edges, not idle connections."""
    over = checks.littles_law(_edges(1.09, 8.0, 35.0))
    assert over is not None and "edges did not cancel" in over.message and "+0.08" in over.message
    assert "11% of it out" in over.message and "2% in" in over.message and "a 5 s window" in over.message
    assert "synthetic" not in over.message and checks.latency_known_wrong(_edges(1.09, 8.0, 35.0))
    under = checks.littles_law(_edges(0.91, 40.0, 8.0))
    assert under is not None and "edges did not cancel" in under.message and "-0.10" in under.message
    assert "12% in" in under.message and "idle" not in under.message
    first = checks.littles_law(_edges(1.09, 8.0, 51.0, first=24.0))  # the first waits are carried in too
    assert first is not None and "10% in" in first.message and "+0.06" in first.message


def test_edges_within_the_tolerance_or_unknown_are_not_the_story():
    """Edges that moved the ratio by 0.03 exactly, or unknown, leave the ratio to the other stories."""
    for load in ((0.0, 9.6), (9.6, 0.0), (None, 35.0), (8.0, None)):
        flag = checks.littles_law(_edges(0.91, *load))
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
