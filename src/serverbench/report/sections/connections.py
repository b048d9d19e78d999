"""Throughput and tail latency against connections: one line per cell that ran two or more connection counts."""

from __future__ import annotations

from ..cells import Entry, cell, closed_keepalive, entries, group, latest_by, name, several_sources
from ..charts import Axis, LineChart, Note, Section, Series
from ..inputs import Inputs


def sweeps(inputs: Inputs) -> dict[str, list[Entry]]:
    """Series name -> its keep-alive closed-model runs in connection order (two connection counts or more)."""
    sources = several_sources(inputs)
    groups = group(
        entries(inputs),
        lambda e: (e.source, e.result.test, cell(e.result), e.result.workload) if closed_keepalive(e.result) else None,
    )
    out = {}
    for items in groups.values():
        runs = latest_by(items, lambda r: r.connections)
        if len(runs) >= 2:
            out[name(runs[0], cell(runs[0].result), runs[0].result.workload, sources=sources)] = runs
    return out


def tail_note(curves: dict[str, list[Entry]]) -> str:
    """Who peaked where, and whose p99 grew the most from the fewest to the most connections."""
    best = max(curves.items(), key=lambda kv: max(e.result.rps for e in kv[1]))
    top = max(best[1], key=lambda e: e.result.rps).result

    def growth(runs: list[Entry]) -> float:
        first, last = runs[0].result.load.latency_ms["p99"], runs[-1].result.load.latency_ms["p99"]
        return last / first if first > 0 else float("inf")

    worst_name, worst = max(curves.items(), key=lambda kv: growth(kv[1]))
    a, b = worst[0].result, worst[-1].result
    return (
        f"Highest throughput: {best[0]}, {top.rps:,.0f} rps at {top.connections} connections. "
        f"Steepest p99 growth: {worst_name}, {a.load.latency_ms['p99']:,.1f} ms at {a.connections} to "
        f"{b.load.latency_ms['p99']:,.1f} ms at {b.connections} connections."
    )


def build(inputs: Inputs) -> Section | None:
    curves = sweeps(inputs)
    if not curves:
        return None
    x = Axis("connections", log=True)
    rps = LineChart(
        "Throughput against connections",
        x,
        Axis("rps"),
        tuple(Series(n, tuple((e.result.connections, e.result.rps) for e in runs)) for n, runs in curves.items()),
    )
    p99 = LineChart(
        "p99 latency against connections",
        x,
        Axis("p99 ms", log=True),
        tuple(
            Series(n, tuple((e.result.connections, e.result.load.latency_ms["p99"]) for e in runs))
            for n, runs in curves.items()
        ),
    )
    return Section(
        "connections",
        "Throughput and p99 against connections",
        "Closed model with keep-alive: each connection sends its next request when the answer came. "
        "One line per cell; hover a point for its value.",
        (rps, p99, Note(tail_note(curves))),
    )
