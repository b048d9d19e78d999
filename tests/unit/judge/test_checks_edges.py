"""The consistency checks' remaining edges (issue 22: the whole of judge.checks under mutation testing).

Each limit just inside and just outside, a window of no length (not judged, no crash) against a 1 s one (judged),
counters and CPU figures a record may lack, and the words a flag's message is built from.
"""

from __future__ import annotations

from dataclasses import replace

from serverbench.judge import checks
from serverbench.judge.checks import check_session
from serverbench.records.schema import BackendUsage, Result
from tests.unit.judge.test_checks import _locust, record


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
    assert checks.littles_ratio(_locust(100, 1, 5.0)) == 0.5
    equal = checks.littles_law(_locust(100, 1, 5.0, gen_cpu_s=2.5))
    assert "locust spent 5.00 ms of its own CPU per request" in equal.message
    assert "against 5.00 ms per request the latencies do not cover" in equal.message
    short = _locust(100, 1, 5.0, gen_cpu_s=2.4995)
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


def test_busy_waiting_ratio_is_one_and_a_half_times_inclusive():
    """Against 2,400 µs on json: 3,600 µs (1.5x, 1,200 µs more) is busy waiting, 3,599 µs is not."""
    assert _busy(3600, 2400) is not None
    assert _busy(3599, 2400) is None


def test_busy_waiting_needs_a_millisecond_more_inclusive():
    """Against 100 µs on json: 1,100 µs (11x, 1,000 µs more) is busy waiting, 1,099 µs is not."""
    assert _busy(1100, 100) is not None
    assert _busy(1099, 100) is None


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


def _waited(gap_ms: float | None, think_ms: float = 0.0, mean: float = 90.0) -> Result:
    """1 locust user at 10 rps x 90 ms (ratio 0.9 without think time) whose users measured ``gap_ms`` per request."""
    r = _locust(10, 1, mean, think_ms=think_ms, gen_cpu_s=0.0)
    return replace(r, load=replace(r.load, gap_ms=gap_ms))


def test_the_users_measured_wait_names_the_cause_when_it_accounts_for_their_time_within_5_percent():
    """Ratio 0.9: a measured gap of 10 ms makes the users' cycle 100 ms a request (1.00): named, latencies kept;
    5.01 ms (0.9501) and 14.99 ms (1.0499) are just inside the band, 4.99 ms (0.9499) and 15.01 ms (1.0501) just
    outside it, and name nothing."""
    named = checks.littles_law(_waited(10.0))
    assert (
        "locust's users waited 10.00 ms per request between an answer and their next request" in named.message
        and "their time covers 100% of the window" in named.message
    )
    assert not checks.latency_known_wrong(_waited(10.0))
    assert "locust's users waited 5.01 ms" in checks.littles_law(_waited(5.01)).message
    assert "locust's users waited 14.99 ms" in checks.littles_law(_waited(14.99)).message
    for gap in (4.99, 15.01, None):
        assert "users waited" not in checks.littles_law(_waited(gap)).message, gap
        assert checks.latency_known_wrong(_waited(gap)), gap


def test_the_users_wait_is_counted_per_user():
    """64 users at 576 rps x 100 ms (0.90): a 11.1 ms gap makes 576 x 111.1 ms / 64 = 1.00, named; the same gap does
    not account for 16 users at the same rps (4.0)."""
    r = _locust(576, 64, 100.0, gen_cpu_s=0.0)
    assert "users waited 11.10 ms" in checks.littles_law(replace(r, load=replace(r.load, gap_ms=11.1))).message
    few = _locust(576, 16, 100.0, gen_cpu_s=0.0)
    assert "users waited" not in checks.littles_law(replace(few, load=replace(few.load, gap_ms=11.1))).message


def test_the_users_wait_beyond_their_think_time_is_what_the_message_names():
    """A 20 ms think time and a 30 ms measured gap: 10 rps x (70 + 20) ms = 0.9; the gap makes it 1.00 and the wait
    beyond thinking is 10 ms."""
    flag = checks.littles_law(_waited(30.0, think_ms=20.0, mean=70.0))
    assert "locust's users waited 10.00 ms per request" in flag.message


def test_a_measured_gap_replaces_the_cpu_bound_and_does_not_name_a_ratio_above_1():
    """With the gap measured, locust's CPU per request no longer names a cause (the measurement decides); a ratio
    above 1 is never explained by users waiting."""
    r = _waited(0.0)
    cpu = replace(r, generator=replace(r.generator, cpu_s=0.5))  # 10 ms a request: the bound would name it
    assert "locust spent" not in checks.littles_law(cpu).message and checks.latency_known_wrong(cpu)
    fast = _locust(12, 1, 100.0, gen_cpu_s=0.0)
    over = replace(fast, load=replace(fast.load, gap_ms=0.0))
    assert checks.littles_ratio(over) > 1.05 and "users waited" not in checks.littles_law(over).message


def test_a_gap_survives_the_record_and_old_records_have_none():
    """gap_ms is stored when measured and reads back; a record without it reads as None."""
    stored = _waited(12.3456).to_record(None)
    assert stored["gap_ms"] == 12.346 and Result.from_record(stored).load.gap_ms == 12.346
    old = _waited(None).to_record(None)
    assert "gap_ms" not in old and Result.from_record(old).load.gap_ms is None
