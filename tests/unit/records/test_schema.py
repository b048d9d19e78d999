"""A result's JSON record (records.schema): every field set written as docs/records.md says and read back to the same
result; each optional field absent where unknown; the generator's run queue and shares."""

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverbench.catalog.shapes import LoadShape
from serverbench.records.schema import (
    BackendUsage,
    Generator,
    LoadReport,
    Result,
    RunQueue,
    SlowClientReport,
    replicated,
    shape_from_record,
    shape_record,
)
from tests.unit.synthetic import edges_result, first_waits_result, held_result, locust_result, record, waited_result

ERRORS = {"connect": 1, "read": 2, "write": 3, "timeout": 4, "status": 5}


def full() -> Result:
    """A closed-model oha window on a backend, with slow clients, memory, host CPU and every optional count."""
    load = LoadReport(
        "oha",
        1000,
        5.0,
        123_456,
        {"p50": 1.5, "p75": 2.25, "p90": 3.125, "p99": 9.5, "p999": 20.0, "max": 31.0, "mean": 2.0, "stdev": 0.75},
        ERRORS,
        window="steady",
        think_ms=2.5,
        error_attribution="timeouts by send time",
        run_errors={"connect": 2, "read": 3, "write": 4, "timeout": 6, "status": 7},
        held_through=3,
        run_requests=1400,
        precision={"slices": 10, "rps": 0.0123, "latency_mean": 0.0456, "asked": 0.05},
    )
    return Result(
        nodeid="tests/perf/test_throughput.py::test_throughput[x]",
        test="test_throughput",
        variant="aiohttp",
        workload="redis",
        shape=LoadShape(64, 5),
        warmup_s=2,
        url="http://127.0.0.1:1/redis",
        load=load,
        generator=Generator("oha", "1.16.0", 2, 3.25, 7.5, 2, 9.0, RunQueue(3.0, 1.5, 7.25)),
        server_cpu_s=4.5,
        server_rss_mb=60.25,
        machine={"id": "m", "cores": 2},
        python={"implementation": "cpython", "version": "3.11"},
        timestamp="2026-11-25T22:00:00+00:00",
        app="aiohttp",
        warmup_rps=(1800.5, 1900.2),
        warmup_settled=True,
        backends=(BackendUsage("redis", "redis-server", 1.25, 5.0, 1, 1010, "answers", 990, 1405),),
        extra={"note": "x"},
        kernel={"listen_drops": 7, "listen_overflows": 8},
        slow_clients=SlowClientReport("idle", 16, 15, (1.5, 2.5), 5.0, {"408": 2}),
        host_cpu_s=9.75,
        host_steal_s=0.5,
        server_pss_mb=50.5,
        server_pss_end_mb=49.75,
        memory={"series": {"t_s": [0.0, 1.0]}},
        host_wall_s=5.25,
        gil={"enabled": True, "enabled_by": ["httptools.parser.parser"], "processes": 2},
    )


def test_every_field_survives_the_record():
    """A result with every field set (none at its default) is read back equal to itself."""
    r = full()
    assert Result.from_record(r.to_record()) == r


def test_the_record_writes_each_field_under_its_documented_name():
    """The record's top-level values, the host's wall time, the run's counts and the load's optional fields."""
    rec = full().to_record({"status": "pass"}, [{"name": "n", "message": "m"}])
    assert {
        k: rec[k]
        for k in (
            "nodeid",
            "test",
            "variant",
            "app",
            "workload",
            "duration_s",
            "warmup_s",
            "warmup_settled",
            "url",
            "requests",
            "bytes",
            "window",
            "timestamp",
        )
    } == {
        "nodeid": "tests/perf/test_throughput.py::test_throughput[x]",
        "test": "test_throughput",
        "variant": "aiohttp",
        "app": "aiohttp",
        "workload": "redis",
        "duration_s": 5.0,
        "warmup_s": 2,
        "warmup_settled": True,
        "url": "http://127.0.0.1:1/redis",
        "requests": 1000,
        "bytes": 123_456,
        "window": "steady",
        "timestamp": "2026-11-25T22:00:00+00:00",
    }
    assert rec["key"] == "test_throughput::aiohttp/aiohttp/redis/c64"
    assert rec["rps"] == 199.0 and rec["warmup_rps"] == [1800.5, 1900.2]
    assert rec["latency_ms"]["p90"] == 3.125 and rec["errors"] == ERRORS
    assert rec["error_attribution"] == "timeouts by send time" and rec["run_errors"]["timeout"] == 6
    assert rec["think_ms"] == 2.5 and rec["held_through"] == 3 and rec["run_requests"] == 1400
    assert rec["host"] == {"cpu_s": 9.75, "steal_s": 0.5, "wall_s": 5.25}
    assert rec["server"]["pss_mb"] == 50.5 and rec["server"]["pss_end_mb"] == 49.75 and rec["server"]["rss_mb"] == 60.25
    assert rec["server"]["cpu_us_per_request"] == round(4.5 / (1000 - 5) * 1e6, 2)
    assert rec["verdict"] == {"status": "pass"} and rec["flags"] == [{"name": "n", "message": "m"}]
    assert rec["kernel"] == {"listen_drops": 7, "listen_overflows": 8} and rec["extra"] == {"note": "x"}
    assert rec["slow_clients"]["opened"] == 15 and rec["memory"] == {"series": {"t_s": [0.0, 1.0]}}
    assert rec["generator"]["run_queue"] == {"cpu_s": 3.0, "wait_s": 1.5, "wall_s": 7.25}
    assert rec["backends"][0]["run_ops"] == 1405 and rec["backends"][0]["window_ops"] == 990
    assert rec["gil"] == {"enabled": True, "enabled_by": ["httptools.parser.parser"], "processes": 2}


def test_warmup_rates_are_written_to_one_decimal():
    """Each warm-up rate is rounded to 0.1 rps in the record."""
    from dataclasses import replace

    assert replace(full(), warmup_rps=(1900.26, 7.04)).to_record()["warmup_rps"] == [1900.3, 7.0]


def test_the_precision_is_written_to_four_decimals_and_its_count_and_unknowns_as_they_are():
    """The precision's fractions are rounded to 4 decimals; its slice count and an unknown (None) are written as
    they are."""
    load = replace(full().load, precision={"slices": 10, "rps": 0.0123456, "latency_mean": 0.045678, "asked": None})
    rec = replace(full(), load=load).to_record()
    assert rec["precision"] == {"slices": 10, "rps": 0.0123, "latency_mean": 0.0457, "asked": None}


def test_a_result_with_defaults_writes_no_optional_part_and_an_old_record_reads_its_defaults():
    """No host CPU: no "host"; host CPU without its wall time: no "wall_s"; no extra: no "extra".  An old record
    without app, window or a backend's wall time reads "", "run" and the load's duration."""
    from dataclasses import replace

    r = replace(full(), host_cpu_s=None, host_wall_s=None, extra={}, gil=None)
    rec = r.to_record()
    assert "host" not in rec and "extra" not in rec and "gil" not in rec
    assert Result.from_record(rec).gil is None  # a GIL build's record, and every older one
    assert "wall_s" not in replace(full(), host_wall_s=None).to_record()["host"]
    old = full().to_record()
    for key in ("app", "window"):
        del old[key]
    del old["backends"][0]["wall_s"]
    back = Result.from_record(old)
    assert back.app == "" and back.load.window == "run" and back.backends[0].wall_s == 5.0


# Merged from test_load_report.py: A load report's error rate counts each attempt once, and its figures cannot be
# changed after the fact (records.schema.LoadReport; no server).
def _report(driver="oha", requests=10, **errors):
    return LoadReport(
        driver,
        requests,
        5.0,
        0,
        {"p50": 1.0},
        {k: errors.get(k, 0) for k in ("connect", "read", "write", "timeout", "status")},
    )


def test_every_failed_attempt_is_an_attempt():
    """10 answers beside 10 failed writes, reads or connections are 20 attempts: 50% each."""
    for kind in ("write", "read", "connect"):
        assert _report(**{kind: 10}).error_rate == 0.5, kind
    assert _report(write=5, read=5).error_rate == 0.5


def test_no_attempt_is_all_errors_or_none():
    """Errors with no attempt to put them over (status errors of no answer) are 100%; nothing at all is 0%."""
    assert _report(requests=0, status=3).error_rate == 1.0
    assert _report(requests=0).error_rate == 0.0


def test_a_reports_figures_are_read_only():
    """Latencies, errors, the run's errors and the precision are frozen mappings: a judge cannot change them by
    accident, nor can the caller's dict changing later."""
    precision = {"slices": 10, "rps": 0.01}
    r = LoadReport("oha", 1, 5.0, 0, {"p50": 1.0}, {"timeout": 0}, run_errors={"timeout": 3}, precision=precision)
    for mapping in (r.latency_ms, r.errors, r.run_errors, r.precision):
        with pytest.raises(TypeError):
            mapping["x"] = 1
    precision["rps"] = 0.5
    assert r.precision == {"slices": 10, "rps": 0.01}


def test_a_schema_1_generator_is_read_from_its_percentages():
    """Schema 1 kept cpu_pct and busy_pct only: CPU seconds are cpu_pct of the duration, cores cpu_pct / busy_pct
    (at least 1), and with no busy figure the threads."""
    from serverbench.records.schema import Generator

    g = Generator.from_record(
        {"name": "wrk", "version": "4.2.0", "threads": 2, "cpu_pct": 150.0, "busy_pct": 75.0}, 4.0
    )
    assert (g.name, g.version, g.threads, g.cpu_s, g.wall_s, g.cores) == ("wrk", "4.2.0", 2, 6.0, 4.0, 2)
    assert (
        Generator.from_record(
            {"name": "wrk", "version": "4", "threads": 2, "cpu_pct": 10.0, "busy_pct": 40.0}, 4.0
        ).cores
        == 1
    )
    assert (
        Generator.from_record({"name": "wrk", "version": "4", "threads": 3, "cpu_pct": 0.0, "busy_pct": 0.0}, 4.0).cores
        == 3
    )


def test_seconds_are_written_to_a_tenth_of_a_millisecond():
    """A generator's CPU seconds and a backend's wall seconds are rounded to 4 places under their own keys; a
    backend record without wall seconds reads the window's."""
    from serverbench.records.schema import BackendUsage, Generator

    assert Generator("oha", "1", 1, 1.234567, 5.0, 2).to_record()["cpu_s"] == 1.2346
    b = BackendUsage("redis", "redis-server", 1.0, 5.123456, 1, 10).to_record(10)
    assert b["wall_s"] == 5.1235 and b["cpu_pct"] == pytest.approx(100 * 1.0 / 5.123456, abs=0.05)
    rec = {k: v for k, v in b.items() if k != "wall_s"}
    assert BackendUsage.from_record(rec, 7.0).wall_s == 7.0 and BackendUsage.from_record(b, 7.0).wall_s == 5.1235
    assert BackendUsage.from_record({**b, "ops": None}, 7.0).ops is None


# Merged from test_replicates.py: Replicates are judged by their median-rps run (issue 22), not the fastest or the
# slowest.
def test_the_median_replicate_is_judged(make_result):
    """Three runs at 900, 1100 and 1000 rps: the 1000-rps run is the result, carrying all three."""
    runs = [make_result(rps=900.0), make_result(rps=1100.0), make_result(rps=1000.0)]
    chosen = replicated(runs)
    assert chosen.rps == 1000.0
    reps = chosen.extra["replicates"]
    assert reps["n"] == 3 and reps["rps"] == [900.0, 1100.0, 1000.0] and reps["rps_median"] == 1000.0
    assert reps["dispersion"] == 0.1  # MAD 100 / median 1000


def test_an_even_count_judges_the_lower_middle_run(make_result):
    """Four runs: the slower of the two middle runs is judged (a real run, never the faster one)."""
    runs = [make_result(rps=v) for v in (1200.0, 900.0, 1100.0, 1000.0)]
    chosen = replicated(runs)
    assert chosen.rps == 1000.0 and chosen.extra["replicates"]["rps_median"] == 1050.0


def test_one_run_is_returned_unchanged(make_result):
    """Negative case: a single run is not marked as replicated."""
    run = make_result(rps=1000.0)
    assert replicated([run]) is run and "replicates" not in run.extra


# Merged from test_mutation_schema_rest.py: records.schema's smaller readers and writers, pinned where mutation
# testing found them loose (issue 22): the replicates' rounding, a schema-1 shape read from its label, a shape's model
# key, a slow-client report's answers.
def _over_3_s(make_result, requests: int):
    r = make_result()
    return replace(r, load=replace(r.load, requests=requests, duration_s=3.0))


def test_replicates_keep_each_rps_and_their_median_to_one_decimal(make_result):
    """2,701, 3,302 and 3,001 requests over 3 s (900.33.., 1100.66.., 1000.33.. rps): stored as 900.3, 1100.7 and
    1000.3, the median 1000.3; not whole numbers, not two decimals."""
    runs = [_over_3_s(make_result, n) for n in (2701, 3302, 3001)]
    reps = replicated(runs).extra["replicates"]
    assert reps["rps"] == [900.3, 1100.7, 1000.3] and reps["rps_median"] == 1000.3


def test_a_schema_1_record_without_a_shape_reads_its_connections_as_the_shape():
    """No "shape" key: the shape is c<connections>, over the window rounded to whole seconds and at least 1."""
    assert shape_from_record({"connections": 64, "duration_s": 5.2}) == LoadShape(64, 5)
    assert shape_from_record({"connections": 8, "duration_s": 0.4}).duration == 1


@pytest.mark.parametrize(
    ("label", "field", "value"),
    [
        ("c64-rpc1", "requests_per_connection", 1),
        ("u50-w2", "workers", 2),
        ("c8-ramp2", "ramp", 2.0),
        ("r200", "rate", 200.0),
    ],
)
def test_a_schema_1_label_is_read_part_by_part(label, field, value):
    """A schema-1 label's dash-separated parts each set their field: rpc, w, ramp, r."""
    shape = shape_from_record({"shape": label, "connections": 64, "duration_s": 5.0})
    assert getattr(shape, field) == value


def test_a_shape_record_names_its_model():
    """The structured shape carries its model under "model" (closed or open), beside its fields and label."""
    assert shape_record(LoadShape(64, 5))["model"] == LoadShape(64, 5).model
    assert shape_record(LoadShape(64, 5, rate=200.0))["model"] == LoadShape(64, 5, rate=200.0).model


def test_a_slow_client_reports_answers_cannot_change_after_it_is_made():
    """The answers mapping is frozen: the caller's dict changing later does not change it, and it refuses writes."""
    given = {"408": 2}
    report = SlowClientReport("idle", 16, 15, (2.5, 1.5), 5.0, given)
    given["408"] = 9
    assert report.answers == {"408": 2} and report.dropped_s == (1.5, 2.5)
    with pytest.raises(TypeError):
        report.answers["400"] = 1


# Properties (issue 35): what a key separates, the shares a generator's CPU stays within.
NAME = st.text("abcxyz-_.0123456789", min_size=1, max_size=6)
KEY_FIELDS = {"test": NAME, "variant": NAME, "app": st.just("") | NAME, "workload": NAME}


@given(st.fixed_dictionaries(KEY_FIELDS), st.integers(1, 512), st.sampled_from([*KEY_FIELDS, "connections"]), st.data())
def test_results_that_differ_in_any_field_of_the_key_have_different_keys(fields, connections, changed, data):
    """A result's key (what its baseline is stored under) separates results that differ in the test, the variant,
    the app, the workload or the load shape."""
    one = replace(full(), shape=LoadShape(connections, 5), **fields)
    if changed == "connections":
        other = replace(one, shape=LoadShape(data.draw(st.integers(1, 512).filter(lambda c: c != connections)), 5))
    else:
        value = data.draw(KEY_FIELDS[changed].filter(lambda v: v != fields[changed]))
        other = replace(one, **{changed: value})
    assert one.key != other.key
    assert replace(one, url="http://127.0.0.1:2/", timestamp="later").key == one.key  # not part of the identity


@given(st.integers(1, 64), st.integers(1, 64), st.floats(0.0, 1.0), st.floats(0.01, 100.0))
def test_a_generators_busy_share_is_its_cpu_over_the_cores_it_can_use(threads, cores, used, wall):
    """For any thread and core count, a generator using ``used`` of the cores it can use (its threads, at most the
    machine's cores) is ``used`` busy: 100% at most, saturated at its limit; its run queue's share likewise."""
    usable = min(threads, cores)
    g = Generator("wrk", "4", threads, used * wall * usable, wall, cores)
    assert g.busy_pct == pytest.approx(100 * used) and g.busy_pct <= 100 + 1e-9
    queued = replace(g, run_queue=RunQueue(used * wall * usable / 2, used * wall * usable / 2, wall))
    assert queued.runnable_pct == pytest.approx(100 * used)
    assert Generator("wrk", "4", threads, wall * usable, wall, cores).saturated


@given(st.lists(st.floats(1.0, 1e5), min_size=1, max_size=9))
def test_the_replicated_run_is_the_median_one_and_carries_every_replicate(rps):
    """Of any replicates, the run kept is the lower median by rps, and it carries each replicate's rps in order."""
    runs = [replace(full(), load=replace(full().load, requests=int(x * 5), duration_s=5.0)) for x in rps]
    kept = replicated(runs)
    ordered = sorted(r.rps for r in runs)
    assert kept.rps == ordered[(len(runs) - 1) // 2]
    if len(runs) > 1:
        assert kept.extra["replicates"]["n"] == len(runs)
        assert kept.extra["replicates"]["rps"] == [round(r.rps, 1) for r in runs]


def test_a_think_time_survives_the_record_and_old_records_have_none():
    """think_ms is stored when set (None too: unknown), and a record without the key reads as 0."""
    for think in (10.0, None, 0.0):
        r = locust_result(947, 64, 57.6, think_ms=think)
        stored = r.to_record(None)
        assert ("think_ms" in stored) == (think != 0.0)
        assert Result.from_record(stored).load.think_ms == think


def test_first_wait_survives_the_record_and_is_absent_where_unknown():
    """first_wait_s is written (to the millisecond) and read back; a record without it reads as None."""
    r = first_waits_result(0.5, 80.12345)
    assert r.to_record()["first_wait_s"] == 80.123
    assert Result.from_record(r.to_record()).load.first_wait_s == 80.123
    assert "first_wait_s" not in record().to_record()
    assert Result.from_record(record().to_record()).load.first_wait_s is None


def test_held_through_survives_the_record_and_is_absent_where_unknown():
    """held_through is written and read back; a record without it (wrk, older oha) reads as None."""
    r = held_result(0.23, 49)
    assert Result.from_record(r.to_record()).load.held_through == 49
    assert Result.from_record(record().to_record()).load.held_through is None
    assert "held_through" not in record().to_record()


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


def test_the_run_queue_keeps_four_decimals_and_a_short_window_still_counts():
    """Seconds are stored to 4 decimals; a window of half a second gives its runnable share."""
    assert RunQueue(1.23456, 0.65432, 2.34567).to_record() == {"cpu_s": 1.2346, "wait_s": 0.6543, "wall_s": 2.3457}
    assert RunQueue(0.25, 0.2, 0.5).runnable_pct(1) == 90.0


def test_the_edges_survive_the_record_and_are_absent_where_unknown():
    """carried_in_s and carried_out_s are written to the millisecond and read back; a record without them reads None."""
    r = edges_result(1.0, 4.12345, 36.50049)
    assert (r.to_record()["carried_in_s"], r.to_record()["carried_out_s"]) == (4.123, 36.5)
    back = Result.from_record(r.to_record()).load
    assert (back.carried_in_s, back.carried_out_s) == (4.123, 36.5)
    assert "carried_in_s" not in record().to_record() and "carried_out_s" not in record().to_record()
    plain = Result.from_record(record().to_record()).load
    assert plain.carried_in_s is None and plain.carried_out_s is None


def test_the_lead_in_and_the_first_answers_survive_the_record_and_are_absent_where_unknown():
    """lead_s and first_answered_s are written to the millisecond and read back; a record without them reads None."""
    r = replace(full(), load=replace(full().load, lead_s=3.00049, first_answered_s=0.41234))
    assert (r.to_record()["lead_s"], r.to_record()["first_answered_s"]) == (3.0, 0.412)
    back = Result.from_record(r.to_record()).load
    assert (back.lead_s, back.first_answered_s) == (3.0, 0.412)
    plain = Result.from_record(record().to_record()).load
    assert "lead_s" not in record().to_record() and plain.lead_s is None and plain.first_answered_s is None


def test_a_read_precision_holds_its_slice_count_as_a_whole_number_and_the_rest_as_fractions():
    """Read back, the precision's slice count is an int, its other values floats (an int in the file too), and an
    unknown stays None."""
    rec = {**full().to_record(), "precision": {"slices": 10.0, "rps": 1, "asked": None}}
    precision = Result.from_record(rec).load.precision
    assert precision == {"slices": 10, "rps": 1.0, "asked": None}
    assert type(precision["slices"]) is int and type(precision["rps"]) is float


def test_a_gap_survives_the_record_and_old_records_have_none():
    """gap_ms is stored when measured and reads back; a record without it reads as None."""
    stored = waited_result(12.3456).to_record(None)
    assert stored["gap_ms"] == 12.346 and Result.from_record(stored).load.gap_ms == 12.346
    old = waited_result(None).to_record(None)
    assert "gap_ms" not in old and Result.from_record(old).load.gap_ms is None


def test_numbers_another_writer_typed_otherwise_read_back_as_each_fields_type():
    """A record whose counts were written as 500.0 (JSON from another tool) and whose seconds as whole numbers reads
    back with whole counts and float seconds: the same Result, field for field, as the record written here."""
    rec = full().to_record()
    typed = {
        **rec,
        "requests": float(rec["requests"]),
        "errors": {k: float(v) for k, v in rec["errors"].items()},
        "gap_ms": int(rec["gap_ms"]) if rec.get("gap_ms") is not None else 3,
        "host": {**rec["host"], "steal_s": 0},
    }
    back = Result.from_record(typed)
    assert type(back.load.requests) is int and back.load.requests == full().load.requests
    assert all(type(v) is int for v in back.load.errors.values()) and back.load.errors == full().load.errors
    assert type(back.load.gap_ms) is float and type(back.host_steal_s) is float and back.host_steal_s == 0.0


def test_a_schema_1_generators_threads_read_as_a_whole_number():
    """Schema 1's generator record with threads written as 2.0 reads back 2 threads (an int)."""
    g = Generator.from_record({"name": "wrk", "version": "4", "threads": 2.0, "cpu_pct": 10.0, "busy_pct": 0.0}, 4.0)
    assert type(g.threads) is int and g.threads == 2 and type(g.cores) is int


def test_replicates_keep_each_p99_to_a_thousandth_of_a_millisecond(make_result):
    """Each replicate's p99 is stored to 3 decimals (12.3457 ms -> 12.346)."""
    r = make_result()
    runs = [replace(r, load=replace(r.load, latency_ms={**r.load.latency_ms, "p99": 12.34567})) for _ in range(3)]
    assert replicated(runs).extra["replicates"]["p99_ms"] == [12.346] * 3


def test_a_generators_load_hosts_survive_its_record():
    """A generator across load hosts keeps each host's name, share, CPU, kernel and round trip in its record."""
    from serverbench.records.schema import Generator, HostLoad

    hosts = (
        HostLoad("load1", "198.18.0.11", 1, 1, 0.5, 2.0, "6.1", 0.031, 32),
        HostLoad("load2", "198.18.0.12", 1, 1, 1.0, 2.0),
    )
    generator = Generator("oha", "1.16.0", 1, 1.5, 2.0, 2, 5, None, hosts)
    again = Generator.from_record(generator.to_record(), 2.0)
    assert again.hosts == hosts and again.busy_pct == 50.0 and generator.to_record()["hosts"][0]["share"] == 32
    assert "hosts" not in Generator("oha", "1.16.0", 1, 1.5, 2.0, 2).to_record()


def test_operations_per_request_are_the_whole_runs_where_its_counts_are_kept():
    """oha's closed model: its "answers" span also holds the requests its trail sent after the window (1,405 ops for
    1,000 window requests), so operations per request are the run's: 1,405 over its 1,400 answered requests; without
    the run's counts, the window's; without operations, none."""
    b = BackendUsage("redis", "redis-server", 1.25, 5.0, 1, 1405, "answers", 990, 1405)
    assert b.per_request(1000, 1400) == pytest.approx(1.0036, abs=1e-4)
    assert b.to_record(1000, 1400)["ops_per_request"] == 1.0036
    assert b.per_request(1000) == 1.405 and b.to_record(1000)["ops_per_request"] == 1.405
    assert BackendUsage("redis", "redis-server", 1.0, 5.0, 1, None).per_request(1000, 1400) is None


def test_an_interpreter_label_marks_a_free_threaded_build_and_is_empty_for_a_record_naming_none():
    """cpython-3.13t for a free-threaded build, the full version on request; '' without implementation and version."""
    from serverbench.records.schema import interpreter_label

    assert (
        interpreter_label({"implementation": "cpython", "version": "3.13.1", "free_threaded": True}) == "cpython-3.13t"
    )
    assert interpreter_label({"implementation": "cpython", "version": "3.13.1"}, full=True) == "cpython-3.13.1"
    assert interpreter_label({"implementation": "pypy", "version": "3.9.18"}) == "pypy-3.9"
    assert interpreter_label({"executable": "/usr/bin/python3"}) == ""
