"""A result's JSON record with every field set: written as docs/records.md says, and read back to the same result."""

from serverbench.catalog.shapes import LoadShape
from serverbench.records.schema import BackendUsage, Generator, LoadReport, Result, RunQueue, SlowClientReport

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


def test_warmup_rates_are_written_to_one_decimal():
    """Each warm-up rate is rounded to 0.1 rps in the record."""
    from dataclasses import replace

    assert replace(full(), warmup_rps=(1900.26, 7.04)).to_record()["warmup_rps"] == [1900.3, 7.0]


def test_a_result_with_defaults_writes_no_optional_part_and_an_old_record_reads_its_defaults():
    """No host CPU: no "host"; host CPU without its wall time: no "wall_s"; no extra: no "extra".  An old record
    without app, window or a backend's wall time reads "", "run" and the load's duration."""
    from dataclasses import replace

    r = replace(full(), host_cpu_s=None, host_wall_s=None, extra={})
    rec = r.to_record()
    assert "host" not in rec and "extra" not in rec
    assert "wall_s" not in replace(full(), host_wall_s=None).to_record()["host"]
    old = full().to_record()
    for key in ("app", "window"):
        del old[key]
    del old["backends"][0]["wall_s"]
    back = Result.from_record(old)
    assert back.app == "" and back.load.window == "run" and back.backends[0].wall_s == 5.0
