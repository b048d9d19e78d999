"""History: each cell's stored runs over time (one machine per series), with the change points found."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from statistics import median

from ...judge.changepoints import change_points
from ...records.results import series
from ..charts import Axis, LineChart, Mark, Note, Section, Series
from ..inputs import Inputs

MIN_SEGMENT = 4  # runs on each side of a change, as `serverbench history` defaults


def when(created: str) -> dt.datetime:
    stamp = dt.datetime.fromisoformat(created)
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.timezone.utc)


def axis_unit(points: Sequence[tuple[str, float]]) -> tuple[str, float]:
    span = (when(points[-1][0]) - when(points[0][0])).total_seconds()
    return ("days", 86400.0) if span > 3 * 86400 else ("hours", 3600.0)


def cell_chart(machine: str, key: str, points: list[tuple[str, float]]) -> tuple[LineChart, str]:
    """One cell's runs, its change points marked and each level drawn dashed; the text of what was found."""
    unit, seconds = axis_unit(points)
    t0 = when(points[0][0])
    xs = [(when(c) - t0).total_seconds() / seconds for c, _ in points]
    values = [v for _, v in points]
    found = change_points(values, min_segment=MIN_SEGMENT) if len(values) >= 2 * MIN_SEGMENT else []
    marks = tuple(Mark(xs[c.index], f"{c.change:+.0%}") for c in found)
    cuts = [0] + [c.index for c in found] + [len(values)]
    levels = (
        tuple(
            Series(f"level {i + 1}", ((xs[a], median(values[a:b])), (xs[b - 1], median(values[a:b]))), dashed=True)
            for i, (a, b) in enumerate(zip(cuts, cuts[1:]))
        )
        if found
        else ()
    )
    chart = LineChart(
        f"{key.split('::', 1)[-1]} on {machine}",
        Axis(f"{unit} since {points[0][0]}"),
        Axis("rps"),
        (Series("rps", tuple(zip(xs, values))),) + levels,
        marks,
    )
    said = "; ".join(
        f"{points[c.index][0]}: {c.before:,.0f} -> {c.after:,.0f} rps ({c.change:+.1%}, p={c.p:.2g})" for c in found
    )
    return chart, said


def overview(machine: str, cells: dict[str, list[tuple[str, float]]]) -> LineChart:
    """The short series of one machine in one chart, one line per cell (too few runs to search for changes)."""
    first = min(p[0][0] for p in cells.values())
    unit, seconds = axis_unit(sorted(c for p in cells.values() for c in p))
    t0 = when(first)
    return LineChart(
        f"Runs on {machine}",
        Axis(f"{unit} since {first}"),
        Axis("rps", log=True),
        tuple(
            Series(key.split("::", 1)[-1], tuple(((when(c) - t0).total_seconds() / seconds, v) for c, v in points))
            for key, points in cells.items()
        ),
    )


def build(inputs: Inputs) -> Section | None:
    if len(inputs.results) < 2:
        return None
    cells = {k: v for k, v in series(list(inputs.results)).items() if len(v) >= 2}
    if not cells:
        return None
    blocks: list = []
    texts = []
    short: dict[str, dict[str, list[tuple[str, float]]]] = {}
    for (machine, key), points in sorted(cells.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(points) < 2 * MIN_SEGMENT:
            short.setdefault(machine, {})[key] = points
            continue
        chart, said = cell_chart(machine, key, points)
        blocks.append(chart)
        if said:
            texts.append(f"{key}: {said}")
    blocks += [overview(machine, found) for machine, found in short.items()]
    longest = max(len(v) for v in cells.values())
    searched = (
        f"Change points found: {' | '.join(texts)}."
        if texts
        else "No sustained shift found."
        if longest >= 2 * MIN_SEGMENT
        else f"Change points are searched in series of at least {2 * MIN_SEGMENT} runs ({MIN_SEGMENT} on each "
        f"side of a change); the longest series here has {longest}."
    )
    return Section(
        "history",
        "History and change points",
        "Every cell measured in two or more of the given runs, on one machine, oldest first (the median "
        "of a run's replicates). A cell with enough runs gets its own chart with the change points found "
        "(binary segmentation with Mann-Whitney tests, as `serverbench history`: alpha 0.01, "
        "minimum effect 10%) and each level dashed; shorter series share one chart per machine.",
        (Note(searched),) + tuple(blocks),
    )
