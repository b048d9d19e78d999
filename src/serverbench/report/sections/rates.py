"""Latency percentiles against the offered rate (open model), the knee marked; achieved against offered."""

from __future__ import annotations

from ...catalog.shapes import knee
from ..cells import Entry, cell, entries, group, latest_by, name, several_sources
from ..charts import Axis, LineChart, Mark, Note, Section, Series
from ..inputs import Inputs

PERCENTILES = ("p50", "p90", "p99", "p999")


def ladders(inputs: Inputs) -> dict[str, list[Entry]]:
    """Series name -> its open-model runs in rate order (two rates or more)."""
    sources = several_sources(inputs)
    groups = group(
        entries(inputs),
        lambda e: (
            (e.source, e.result.test, cell(e.result), e.result.workload) if e.result.shape.rate is not None else None
        ),
    )
    out = {}
    for items in groups.values():
        runs = latest_by(items, lambda r: r.shape.rate)
        if len(runs) >= 2:
            out[name(runs[0], cell(runs[0].result), runs[0].result.workload, sources=sources)] = runs
    return out


def ladder_knee(runs: list[Entry]) -> float | None:
    results = [e.result for e in runs]
    return knee([r.shape.rate for r in results], [r.load.latency_ms["p99"] for r in results], [r.rps for r in results])


def knee_text(runs: list[Entry]) -> str:
    at = ladder_knee(runs)
    return f"no knee up to {runs[-1].result.shape.rate:g} req/s" if at is None else f"knee at {at:g} req/s"


def percentile_chart(title: str, runs: list[Entry]) -> LineChart:
    at = ladder_knee(runs)
    series = tuple(
        Series(p, tuple((e.result.shape.rate, e.result.load.latency_ms[p]) for e in runs)) for p in PERCENTILES
    )
    return LineChart(
        title,
        Axis("offered rate (req/s)", log=True),
        Axis("latency ms", log=True),
        series,
        (Mark(at, f"knee {at:g} req/s"),) if at is not None else (),
    )


def build(inputs: Inputs) -> Section | None:
    curves = ladders(inputs)
    if not curves:
        return None
    offered = sorted({e.result.shape.rate for runs in curves.values() for e in runs})
    achieved = LineChart(
        "Achieved against offered rate",
        Axis("offered rate (req/s)", log=True),
        Axis("achieved rps", log=True),
        (Series("offered (keeping up)", tuple((q, q) for q in offered), dashed=True, muted=True),)
        + tuple(Series(n, tuple((e.result.shape.rate, e.result.rps) for e in runs)) for n, runs in curves.items()),
    )
    knees = "; ".join(f"{n}: {knee_text(runs)}" for n, runs in curves.items())
    blocks = (achieved,) + tuple(
        percentile_chart(f"Latency against offered rate: {n}", runs) for n, runs in curves.items()
    )
    return Section(
        "rates",
        "Latency against the offered rate",
        "Open model (oha at a constant rate, latency from the intended send time). The knee is the "
        "first rate whose p99 is above 3x the lowest rate's, or where the server no longer keeps up "
        "(achieved below 95% of offered).",
        blocks + (Note(knees),),
    )
