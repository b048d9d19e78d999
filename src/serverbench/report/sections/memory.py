"""Memory: each cell's peak PSS beside its peak RSS, what an idle kept-alive connection costs, and PSS over
time in windows long enough to show growth (soaks), with the growth judge's verdict (judge.memory)."""

from __future__ import annotations

from ...judge.memory import growth, is_soak, per_connection_kb
from ..cells import Entry, cell, entries, group
from ..charts import Axis, Bar, BarChart, LineChart, Note, Section, Series
from ..inputs import Inputs

MAX_CURVES = 12


def footprint_bars(items: list[Entry]) -> tuple[Bar, ...]:
    """Peak PSS and peak RSS per cell and shape (the latest record of each), smallest PSS first."""
    latest = {
        (cell(e.result), e.result.workload, e.result.shape.label): e.result
        for e in items
        if e.result.server_pss_mb is not None
    }
    rows = sorted(latest.items(), key=lambda kv: kv[1].server_pss_mb)
    out = []
    for (name, workload, shape), r in rows:
        label = f"{name} {workload} {shape}"
        out += [Bar(label, "peak PSS", r.server_pss_mb), Bar(label, "peak RSS", r.server_rss_mb or 0.0)]
    return tuple(out)


def connection_bars(items: list[Entry]) -> tuple[Bar, ...]:
    """KB per held idle/keep-alive connection: a shape with slow clients against the same cell's shape without."""
    plain = {
        (cell(e.result), e.result.workload, e.result.shape.connections): e.result
        for e in items
        if not e.result.shape.slow_clients and e.result.server_pss_mb is not None
    }
    out = []
    for e in items:
        r, slow = e.result, e.result.slow_clients
        if slow is None or r.shape.slow_kind not in ("idle", "keepalive") or r.server_pss_end_mb is None:
            continue
        base = plain.get((cell(r), r.workload, r.connections))
        kb = (
            None
            if base is None or base.server_pss_end_mb is None
            else per_connection_kb(base.server_pss_end_mb, r.server_pss_end_mb, slow.held)
        )
        if kb is not None:
            out.append(Bar(f"{cell(r)} {r.shape.label}", "KB per connection", kb, f"{slow.held} held"))
    return tuple(sorted(out, key=lambda b: b.value))


def growth_charts(items: list[Entry]) -> tuple[list[LineChart], list[str]]:
    """PSS over time of the windows with enough samples, and one line per window on its fitted growth."""
    soaks = [e for e in items if is_soak(e.result.memory.get("series") or {})]
    soaks = soaks[-MAX_CURVES:]
    if not soaks:
        return [], []
    series, notes = [], []
    for e in soaks:
        r = e.result
        s = r.memory["series"]
        name = f"{cell(r)} {r.workload} {r.shape.label}"
        series.append(Series(name, tuple((t, y) for t, y in zip(s["t_s"], s["pss_mb"]) if y is not None)))
        notes.append(f"{name}: {growth(s['t_s'], s['pss_mb'], r.requests, r.load.duration_s).message}.")
    return [LineChart("Server PSS over the window", Axis("seconds"), Axis("PSS MB"), tuple(series))], notes


def build(inputs: Inputs) -> Section | None:
    blocks: list = []
    for (source, workload), items in group(entries(inputs), lambda e: (e.source, e.result.workload)).items():
        bars = footprint_bars(items)
        if bars:
            blocks.append(BarChart(f"Peak PSS and RSS: {workload} ({source})", Axis("MB"), bars))
        per_conn = connection_bars(items)
        if per_conn:
            blocks.append(
                BarChart(f"Memory per idle connection: {workload} ({source})", Axis("KB per connection"), per_conn)
            )
    curves, notes = growth_charts(entries(inputs))
    blocks += curves
    if notes:
        blocks.append(Note(" ".join(notes)))
    if not blocks:
        return None
    return Section(
        "memory",
        "Memory",
        "PSS divides each page a process shares (a pre-fork server's workers and their master) among the "
        "processes mapping it, so the tree's PSS is what the server really holds; RSS counts shared pages "
        "once per process (docs/memory.md). Per connection: the PSS a shape's idle or kept-alive clients "
        "added over the same cell without them, per connection held.",
        tuple(blocks),
    )
