"""Server CPU per request, per workload; counted instructions per request when the records carry them."""

from __future__ import annotations

from ..cells import Entry, cell, cpu_us_per_request, entries, group
from ..charts import Axis, Bar, BarChart, Section
from ..inputs import Inputs

COST_NOTE = (
    "Counted cost: instructions the server's processes spent per request under valgrind "
    "(independent of the machine's speed and load; pytest -m cost)."
)


def cpu_bars(items: list[Entry]) -> tuple[Bar, ...]:
    out = []
    for e in items:
        value = cpu_us_per_request(e.result)
        if value is not None:
            out.append(
                Bar(
                    f"{cell(e.result)} {e.result.shape.label}",
                    "server CPU",
                    value,
                    "SAT" if e.result.generator.saturated else "",
                )
            )
    return tuple(sorted(out, key=lambda b: b.value))


def cost_charts(inputs: Inputs) -> list[BarChart]:
    by = {}
    for c in inputs.costs:
        by.setdefault((inputs.source_of(c.source), c.workload), []).append(c)
    return [
        BarChart(
            f"Counted instructions per request: {workload} ({source})",
            Axis("instructions per request"),
            tuple(
                sorted(
                    (
                        Bar(
                            f"{c.variant}/{c.app}" if c.app else c.variant,
                            "instructions",
                            c.per_request,
                            "" if c.verdict in ("-", "pass", "no-baseline") else c.verdict,
                        )
                        for c in items
                    ),
                    key=lambda b: b.value,
                )
            ),
        )
        for (source, workload), items in by.items()
    ]


def build(inputs: Inputs) -> Section | None:
    charts = []
    for (source, workload), items in group(entries(inputs), lambda e: (e.source, e.result.workload)).items():
        bars = cpu_bars(items)
        if bars:
            charts.append(BarChart(f"Server CPU per request: {workload} ({source})", Axis("CPU µs per request"), bars))
    counted = cost_charts(inputs)
    if not charts and not counted:
        return None
    return Section(
        "cpu",
        "Server CPU per request" + (" and counted cost" if counted else ""),
        "CPU time of the server's whole process tree during the measured window divided by its good "
        "responses (lower is better; SAT: the load generator was saturated)." + (" " + COST_NOTE if counted else ""),
        tuple(charts + counted),
    )
