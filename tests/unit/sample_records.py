"""Complete records for tests of the code that reads records (pure data, no server): results, and a bisection."""

from __future__ import annotations

from serverbench.catalog.shapes import LoadShape
from serverbench.records.schema import Generator, LoadReport, Result

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
