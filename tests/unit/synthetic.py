"""Synthetic results shaped field by field for the checks (judge.checks), the schema's optional fields and the report's
flags (pure data, no server): healthy unless told."""

from __future__ import annotations

from dataclasses import replace

from serverbench.catalog.shapes import LoadShape
from serverbench.records.schema import Generator, LoadReport, Result

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


def locust_result(rps: float, users: int, mean: float, think_ms: float | None = 0.0, gen_cpu_s: float = 2.0) -> Result:
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


def held_result(ratio: float, held: int, connections: int = 64) -> Result:
    """A steady oha window at ``ratio`` of Little's law with ``held`` connections that sent nothing in it."""
    r = record(rps=10.0, connections=connections, mean=connections / 10.0 * 1000.0 * ratio, workload="upstream")
    return replace(r, load=replace(r.load, driver="oha", window="steady", held_through=held))


def first_waits_result(ratio: float, first_wait_s: float, held: int = 0) -> Result:
    """A steady oha window (5 s, 64 connections) at ``ratio`` with ``first_wait_s`` of it spent on first requests."""
    r = held_result(ratio, held)
    return replace(r, load=replace(r.load, first_wait_s=first_wait_s))


def edges_result(ratio: float, carried_in: float | None, carried_out: float | None, first: float = 0.0) -> Result:
    """A steady oha window (5 s, 64 connections: 320 connection-seconds) at ``ratio`` with its edges."""
    r = first_waits_result(ratio, first)
    return replace(r, load=replace(r.load, carried_in_s=carried_in, carried_out_s=carried_out))


def waited_result(gap_ms: float | None, think_ms: float = 0.0, mean: float = 90.0) -> Result:
    """1 locust user at 10 rps x 90 ms (ratio 0.9 without think time) whose users measured ``gap_ms`` per request."""
    r = locust_result(10, 1, mean, think_ms=think_ms, gen_cpu_s=0.0)
    return replace(r, load=replace(r.load, gap_ms=gap_ms))
