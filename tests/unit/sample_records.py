"""Complete records for tests of the code that reads records (pure data, no server): results, and a bisection."""

from __future__ import annotations

import dataclasses
from itertools import cycle

from serverbench.catalog.shapes import LoadShape
from serverbench.catalog.variants import VARIANTS
from serverbench.catalog.workloads import WORKLOADS
from serverbench.judge.verdict import Verdict
from serverbench.records.schema import BackendUsage, Generator, LoadReport, Result

LATENCY = ("p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev")


def result(key: str, rps: float, impl: str = "cpython", warm=(), p99: float = 12.5) -> Result:
    """A Result whose key is ``key`` (test::variant/app/workload/cNN) measuring ``rps`` over 5 s."""
    test, cell = key.split("::")
    variant, app, workload, shape = cell.split("/")
    load = LoadReport(
        "wrk",
        int(rps * 5),
        5.0,
        0,
        {k: (p99 if k == "p99" else 1.0) for k in LATENCY},
        {k: 0 for k in ("connect", "read", "write", "timeout", "status")},
    )
    return Result(
        nodeid=f"{test}[x]",
        test=test,
        variant=variant,
        app=app,
        workload=workload,
        shape=LoadShape(int(shape[1:]), 5),
        warmup_s=0,
        url="http://127.0.0.1:1/json",
        load=load,
        generator=Generator("wrk", "4.1.0", 2, 1.0, 5.0, 2),
        server_cpu_s=2.0,
        server_rss_mb=40.0,
        machine={"id": "m1"},
        python={"implementation": impl, "version": "3.11.7"},
        timestamp="2026-11-10T00:00:00+00:00",
        warmup_rps=tuple(warm),
    )


def default_run(count: int = 182) -> list[tuple[Result, Verdict]]:
    """A default run's size of judged results (182 cells spread over every variant with its reference app and every
    workload), with figures as wide as a real run's: five-digit rps over replicates, second-long latencies, errors,
    backends, a regression, and stalls beside busy neighbours in imprecise windows."""
    cells = [(v, w) for w in WORKLOADS for v in VARIANTS if not v.default_app.lacks(e.name for e in WORKLOADS[w].specs)]
    verdicts = cycle(
        [Verdict("no-baseline", "no baseline"), Verdict("fail", "slower", 52000.0, 0.877), Verdict("pass", "ok")]
    )
    spread = [cells[i * len(cells) // count] for i in range(count)]  # every workload, a locust scenario among them
    out = []
    for i, ((variant, workload), verdict) in enumerate(zip(spread, verdicts)):
        rps = (46321.4, 51.84, 3206.0)[i % 3]
        base = result(f"test_throughput::{variant.name}/{variant.default_app.name}/{workload}/c64", rps)
        p50 = 64 / rps * 1000.0  # Little's law holds: 1.38 ms to 1,234.57 ms
        latency = {**base.load.latency_ms, "p50": p50, "p99": p50 * 2, "mean": p50}
        errors = {**base.load.errors, "timeout": 1234 if i % 5 == 0 else 0}
        backends = tuple(BackendUsage(name, name, 4.5, 5.0, 1, int(rps * 10)) for name in WORKLOADS[workload].backends)
        out.append(
            (
                dataclasses.replace(
                    base,
                    shape=LoadShape(50, 5, workers=0) if workload == "site" else base.shape,
                    load=dataclasses.replace(
                        base.load, latency_ms=latency, errors=errors, precision={"asked": 0.2, "rps": 0.31}
                    ),
                    generator=dataclasses.replace(base.generator, cpu_s=5.0 if i % 4 == 0 else 1.0),
                    server_cpu_s=(123.4, 0.1, 9.9)[i % 3],
                    backends=backends,
                    host_cpu_s=3.0,  # beside the 0.1 s of a stalled server: neighbours
                    extra={"replicates": {"n": 3, "dispersion": 0.123}} if i % 7 == 0 else {},
                ),
                verdict,
            )
        )
    return out


def record(key: str, rps: float, **kwargs) -> dict:
    """The JSON record of :func:`result`."""
    return result(key, rps, **kwargs).to_record()


def bisection(counts, threshold=0.02, steps=()) -> dict:
    """A bisection file's record (records.bisects) of commits c0.. with these counts (None: skipped; "untried": not
    tried)."""
    commits = []
    for i, count in enumerate(counts):
        tried = count != "untried"
        commits.append(
            {
                "sha": f"{i:x}" * 40,
                "subject": f"c{i}",
                "lock": None,
                "per_request": count if tried else None,
                "tried": tried,
                "skipped": "did not start: SyntaxError" if tried and count is None else None,
                "seconds": 9.0 if tried else None,
                "python": "/venv/bin/python",
            }
        )
    tried = [c for c in commits if c["tried"]]
    return {
        "kind": "bisect",
        "schema": 1,
        "repo": "/repo",
        "project": ".",
        "user": True,
        "cell": "waitress-t4/shop home",
        "endpoint": "GET /",
        "variant": "waitress-t4",
        "app": "shop",
        "workload": "home",
        "threshold": threshold,
        "requests": 40,
        "commits": commits,
        "steps": list(steps),
        "counted": len([c for c in tried if c["per_request"] is not None]),
        "skipped": len([c for c in tried if c["per_request"] is None]),
        "seconds": 61.0,
    }
