import pytest

from serverbench.catalog.shapes import LoadShape
from serverbench.records.schema import Generator, LoadReport, Result


@pytest.fixture
def make_result():
    """Build a Result with chosen throughput and errors (pure data, no server)."""

    def make(rps=1000.0, errors=None, variant="v", workload="json", connections=64, cpu_s=2.0):
        errs = {"connect": 0, "read": 0, "write": 0, "timeout": 0, "status": 0, **(errors or {})}
        load = LoadReport(
            "wrk",
            requests=int(rps * 5) + errs["status"],
            duration_s=5.0,
            bytes=0,
            latency_ms={k: 1.0 for k in ("p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev")},
            errors=errs,
        )
        gen = Generator("wrk", "4.1.0", 2, cpu_s=cpu_s, wall_s=5.0, cores=2)
        return Result(
            nodeid="t::x",
            test="test_x",
            variant=variant,
            workload=workload,
            shape=LoadShape(connections),
            warmup_s=0,
            url="http://127.0.0.1:1/json",
            load=load,
            generator=gen,
            server_cpu_s=3.0,
            server_rss_mb=50.0,
            machine={"id": "m"},
            python={"implementation": "cpython"},
            timestamp="2026-01-01T00:00:00+00:00",
        )

    return make
