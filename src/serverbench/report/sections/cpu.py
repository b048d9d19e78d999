"""Server CPU per request, per workload; counted instructions per request when the records carry them."""

from __future__ import annotations

from ...judge.system import VDSO, peers_line
from ..cells import Entry, cell, cpu_us_per_request, entries, group
from ..charts import Axis, Bar, BarChart, Cell, Column, Note, Section, Table
from ..inputs import Cost, Inputs

SYSTEM_NOTE = (
    "Counted in the same window, from valgrind's system-call trace: system calls per request (largest first; "
    "clock_gettime and the like are left out, the vDSO serves them natively), bytes on sockets, connections "
    "opened, the calls made on each peer's sockets (clients: the load's connections; a backend by its name; "
    "unseen: sockets opened and closed inside a request), and the memory the server's program kept per request "
    "(over the counted window, or over more requests without valgrind where the window was short). Absent, with "
    "the reason, where not counted."
)

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


def _without_valgrind(c: Cost) -> str:
    return f" (over {c.kept_without_valgrind:,} requests without valgrind)" if c.kept_without_valgrind else ""


def system_table(costs: tuple[Cost, ...]) -> tuple:
    """One row per count: its system calls, socket bytes, connections and memory kept per request."""
    rows = []
    for c in costs:
        name = f"{c.variant}/{c.app} {c.workload}" if c.app else f"{c.variant} {c.workload}"
        kept = (
            Cell(f"{c.kept_per_request:,.0f} B{_without_valgrind(c)}", c.kept_per_request)
            if c.kept_per_request is not None
            else Cell(f"absent: {c.kept_absent}")
        )
        if c.system is None:
            rows.append(
                (Cell(name), Cell(f"absent: {c.system_absent}"), Cell(""), Cell(""), Cell(""), Cell(""), Cell(""), kept)
            )
            continue
        calls = {k: float(v) for k, v in c.system["calls"].items() if k not in VDSO}
        top = ", ".join(f"{k} {v:.2f}" for k, v in sorted(calls.items(), key=lambda kv: -kv[1])[:6])
        rows.append(
            (
                Cell(name),
                Cell(f"{sum(calls.values()):.2f}", sum(calls.values())),
                Cell(top),
                Cell(f"{c.system['sent']:,.0f}", c.system["sent"]),
                Cell(f"{c.system['received']:,.0f}", c.system["received"]),
                Cell(f"{c.system['connections']:.3f}", c.system["connections"]),
                Cell(peers_line(c.system) if c.system.get("peers") is not None else "not followed"),
                kept,
            )
        )
    columns = (
        Column("cell"),
        Column("system calls/req", True),
        Column("largest"),
        Column("bytes sent/req", True),
        Column("bytes received/req", True),
        Column("connections/req", True),
        Column("calls/req by peer"),
        Column("memory kept/req", True),
    )
    return (Table(columns, tuple(rows), sortable=True), Note(SYSTEM_NOTE)) if rows else ()


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
        tuple(charts + counted) + system_table(inputs.costs),
    )
