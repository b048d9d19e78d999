"""Warm-up rounds (a JIT such as PyPy's speeds up for several) and interpreters side by side."""

from __future__ import annotations

from ..cells import Entry, cell, entries, interpreter, name, several_sources
from ..charts import Axis, Bar, BarChart, Cell, Column, LineChart, Section, Series, Table, optional
from ..inputs import Inputs


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


def side_by_side(inputs: Inputs) -> tuple[list[str], dict[str, dict[str, Entry]]]:
    """(interpreters, cell key -> interpreter -> its latest result) for keys measured on two or more."""
    by_key: dict[str, dict[str, Entry]] = {}
    for e in entries(inputs):  # oldest file first: a later run of a key replaces an earlier one
        by_key.setdefault(e.result.key, {})[interpreter(e.result)] = e
    shared = {k: v for k, v in by_key.items() if len(v) >= 2}
    names = sorted({i for v in shared.values() for i in v})
    return names, shared


def comparison_table(names: list[str], shared: dict[str, dict[str, Entry]]) -> Table:
    first = names[0]
    columns = (
        (Column("cell"),)
        + tuple(Column(f"{n} rps", True) for n in names)
        + tuple(Column(f"{n} / {first}", True) for n in names[1:])
    )
    rows = []
    for key, runs in shared.items():
        base = runs.get(first)
        ratios = tuple(
            optional(runs[n].result.rps / base.result.rps if n in runs and base and base.result.rps else None, 2)
            for n in names[1:]
        )
        rows.append(
            (Cell(key.split("::", 1)[-1], key),)
            + tuple(optional(runs[n].result.rps if n in runs else None, 0) for n in names)
            + ratios
        )
    return Table(columns, tuple(rows), sortable=True)


def build(inputs: Inputs) -> Section | None:
    blocks = []
    curves = warmups(inputs)
    if curves:
        blocks.append(
            LineChart(
                "Warm-up rounds (the last point is the measured window)", Axis("round"), Axis("rps"), tuple(curves)
            )
        )
    names, shared = side_by_side(inputs)
    if shared:
        bars = tuple(
            Bar(key.split("::", 1)[-1], n, runs[n].result.rps, "SAT" if runs[n].result.generator.saturated else "")
            for key, runs in shared.items()
            for n in names
            if n in runs
        )
        blocks += [
            BarChart(f"Interpreters side by side: {' vs '.join(names)}", Axis("rps"), bars),
            comparison_table(names, shared),
        ]
    if not blocks:
        return None
    return Section(
        "interpreters",
        "Warm-up and interpreters side by side",
        "Warm-up runs up to --perf-warmup-rounds rounds and stops once rps settles (PyPy's JIT keeps "
        "speeding up for several). Side by side: the latest run of each cell on each interpreter.",
        tuple(blocks),
    )
