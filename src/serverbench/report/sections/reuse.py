"""Keep-alive against a new connection per request (and in between): the same cell at each reuse setting."""

from __future__ import annotations

from ..cells import Entry, cell, entries, group, name, several_sources
from ..charts import Axis, Bar, BarChart, Note, Section
from ..inputs import Inputs


def reuse_label(requests_per_connection: int | None) -> str:
    if requests_per_connection is None:
        return "keep-alive"
    if requests_per_connection == 1:
        return "1 request per connection"
    return f"{requests_per_connection} requests per connection"


def comparisons(inputs: Inputs) -> dict[str, list[Entry]]:
    """Category name -> its closed-model runs at two or more reuse settings, keep-alive first."""
    sources = several_sources(inputs)
    groups = group(
        entries(inputs),
        lambda e: (
            (e.source, e.result.test, cell(e.result), e.result.workload, e.result.connections)
            if e.result.shape.rate is None and e.result.shape.workers is None
            else None
        ),
    )
    out = {}
    for items in groups.values():
        by_reuse = {e.result.shape.requests_per_connection: e for e in items}
        if len(by_reuse) >= 2:
            ordered = sorted(by_reuse.items(), key=lambda kv: -(kv[0] or 10**9))
            first = ordered[0][1].result
            out[name(ordered[0][1], cell(first), first.workload, f"c{first.connections}", sources=sources)] = [
                e for _, e in ordered
            ]
    return out


def build(inputs: Inputs) -> Section | None:
    cats = comparisons(inputs)
    if not cats:
        return None
    bars = tuple(
        Bar(
            label,
            reuse_label(e.result.shape.requests_per_connection),
            e.result.rps,
            "SAT" if e.result.generator.saturated else "",
        )
        for label, runs in cats.items()
        for e in runs
    )
    lines = []
    for label, runs in cats.items():
        keep = next((e.result for e in runs if e.result.shape.requests_per_connection is None), None)
        if keep is not None and keep.rps:
            lines.append(
                label
                + ": "
                + ", ".join(
                    f"{reuse_label(e.result.shape.requests_per_connection)} {e.result.rps / keep.rps:.0%} of keep-alive"
                    for e in runs
                    if e.result is not keep
                )
            )
    blocks = (BarChart("Throughput by connection reuse", Axis("rps"), bars),)
    return Section(
        "reuse",
        "Keep-alive against a connection per request",
        "The same cell and connection count, connections kept alive or closed after N requests "
        "(a new TCP connection, accept and teardown per N requests).",
        blocks + ((Note("; ".join(lines)),) if lines else ()),
    )
