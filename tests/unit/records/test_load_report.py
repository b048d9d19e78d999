"""A load report's error rate counts each attempt once, and its figures cannot be changed after the fact
(records.schema.LoadReport; no server)."""

import pytest

from serverbench.records.schema import LoadReport


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
    """Latencies, errors and the run's errors are frozen mappings: a judge cannot change them by accident."""
    r = LoadReport("oha", 1, 5.0, 0, {"p50": 1.0}, {"timeout": 0}, run_errors={"timeout": 3})
    for mapping in (r.latency_ms, r.errors, r.run_errors):
        with pytest.raises(TypeError):
            mapping["x"] = 1


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
