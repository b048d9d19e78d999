"""Warm-up rounds (a JIT such as PyPy's speeds up for several) and interpreters side by side."""

from __future__ import annotations

from ..cells import cell, entries, interpreter, name, several_sources
from ..charts import Axis, Bar, BarChart, Cell, Column, LineChart, Section, Series, Table, optional
from ..inputs import Inputs
from ..sidebyside import METRICS, Row, interpreter_sides, rows


def warmups(inputs: Inputs) -> list[Series]:
    """One line per result with two or more warm-up rounds: rps per round, then the measured window."""
    sources = several_sources(inputs)
    out = []
    for e in entries(inputs):
        rounds = e.result.warmup_rps
        if len(rounds) >= 2:
            points = tuple((i + 1.0, rps) for i, rps in enumerate(rounds)) + ((len(rounds) + 1.0, e.result.rps),)
            out.append(
                Series(
                    name(
                        e,
                        cell(e.result),
                        e.result.workload,
                        e.result.shape.label,
                        interpreter(e.result),
                        sources=sources,
                    ),
                    points,
                )
            )
    return out


def comparison_table(table_rows: list[Row], reference: str) -> Table:
    """One line per cell and interpreter: each figure and its ratio to the reference interpreter's."""
    columns = [Column("cell"), Column("interpreter")]
    for metric in METRICS:
        columns += [Column(metric.header, True), Column("x ref", True)]
    out = []
    for row in table_rows:
        for entry in row.entries:
            line = [Cell(row.cell, row.key), Cell(f"{entry.side} (ref)" if entry.side == reference else entry.side)]
            for metric in METRICS:
                line.append(optional(entry.figures[metric.name], metric.digits))
                line.append(Cell("ref") if entry.side == reference else optional(entry.ratios.get(metric.name), 2))
            out.append(tuple(line))
    return Table(tuple(columns), tuple(out), sortable=True)


def workload_charts(table_rows: list[Row], labels: list[str]) -> list[BarChart]:
    """One throughput chart per workload: a row of bars per cell, one bar per interpreter that measured it."""
    by_workload: dict[str, list[Bar]] = {}
    for row in table_rows:
        for entry in row.entries:
            if entry.stored is not None:
                saturated = entry.stored.result.generator.saturated
                bar = Bar(row.cell, entry.side, entry.figures["rps"] or 0.0, "SAT" if saturated else "")
                by_workload.setdefault(row.workload, []).append(bar)
    return [
        BarChart(f"{workload}: interpreters side by side ({' vs '.join(labels)})", Axis("rps"), tuple(bars))
        for workload, bars in by_workload.items()
    ]


def build(inputs: Inputs) -> Section | None:
    blocks = []
    curves = warmups(inputs)
    if curves:
        blocks.append(
            LineChart(
                "Warm-up rounds (the last point is the measured window)", Axis("round"), Axis("rps"), tuple(curves)
            )
        )
    sides = interpreter_sides(inputs.results)
    if len(sides) >= 2:  # the reference: the first file's interpreter
        table_rows = [r for r in rows(sides) if sum(e.stored is not None for e in r.entries) >= 2]
        labels = [s.label for s in sides]
        if table_rows:
            blocks += [*workload_charts(table_rows, labels), comparison_table(table_rows, labels[0])]
    if not blocks:
        return None
    return Section(
        "interpreters",
        "Warm-up and interpreters side by side",
        "Warm-up runs up to --perf-warmup-rounds rounds and stops once rps settles (PyPy's JIT keeps "
        "speeding up for several). Side by side: the latest run of each cell on each interpreter, each figure with "
        "its ratio to the first file's interpreter (a quotient, not a verdict).",
        tuple(blocks),
    )
