"""The answer first: per workload, each cell's throughput beside its p50 and p99, marked as the terminal table marks
it (SAT and BND, the consistency flags by name, the verdict when it is not a pass, "?" and "SYN" for a latency that is
not the server's)."""

from __future__ import annotations

from ...judge.checks import latency_known_wrong
from ...judge.explained import syn_drop_errors
from ...judge.verdict import FAIL, NO_BASELINE, PASS
from ...records.results import Failure
from ..cells import Entry, cell, entries, group, interpreter, several_sources
from ..charts import CellRow, Section, ThroughputChart
from ..inputs import Inputs

SHOWN_ELSEWHERE = ("generator-saturated", "backend-bound")  # drawn as SAT and BND
INTRO = (
    "Each cell's throughput (bar, higher is better) and its latency from p50 (dot) to p99 (tick) on a log scale "
    "(lower is better), fastest first. Marked as in the terminal table: SAT (orange bar), the load generator was at "
    "least 90% busy; BND (orange bar), a backend was; a consistency flag by its name, a failed verdict or an error "
    "(red outline); no-baseline (pale bar), not judged against a stored baseline of this machine; ? or SYN, a "
    "latency that is not the server's (docs/checks.md)."
)


def verdict(entry: Entry) -> tuple[str, str]:
    """The verdict's status and its text as the table shows it ("not judged" when the record has none)."""
    v = entry.stored.verdict or {}
    status = str(v.get("status") or "not judged")
    ratio = v.get("ratio")
    return status, status if ratio is None else f"{status} ({ratio - 1:+.1%})"


def latency_note(entry: Entry) -> str:
    """Why the latency is not drawn: "?" (Little's law says it is not the server's), "SYN" (the kernel's drops)."""
    r = entry.result
    if latency_known_wrong(r):
        return "?"
    return "SYN" if syn_drop_errors(r) is not None else ""


def row(entry: Entry, label: str) -> CellRow:
    r = entry.result
    flags = [name for name in entry.stored.flags if name not in SHOWN_ELSEWHERE]
    bound = [f"BND {b.name}" for b in r.backends if b.bound]
    status, text = verdict(entry)
    marks = (["SAT"] if r.generator.saturated else []) + bound + flags + ([] if status == PASS else [text])
    p50, p99 = r.load.latency_ms.get("p50"), r.load.latency_ms.get("p99")
    note = latency_note(entry)
    latency = f", p50 {p50:,.2f} ms, p99 {p99:,.2f} ms" if p50 is not None and p99 is not None else ""
    return CellRow(
        label,
        r.rps,
        p50,
        p99,
        tuple(marks),
        saturated=r.generator.saturated or bool(bound),
        flagged=bool(flags) or status == FAIL,
        unjudged=status in (NO_BASELINE, "not judged"),
        latency_note=note,
        tooltip=f"{label}: {r.rps:,.0f} rps"
        + (f", latency {note}" if note else latency)
        + (f"; {' '.join(marks)}" if marks else ""),
    )


def failed(f: Failure) -> CellRow:
    label = f"{f.variant}/{f.app}" if f.app else f.variant
    return CellRow(f"{label} c{f.connections}", None, marks=("error",), flagged=True, tooltip=f"{label}: {f.message}")


def labels(items: list[Entry]) -> list[str]:
    """Each entry's cell, with its shape where the workload ran at several and its interpreter where it ran on two."""
    shapes = len({e.result.shape.label for e in items}) > 1
    interpreters = len({interpreter(e.result) for e in items}) > 1
    return [
        " ".join(
            p
            for p in (
                cell(e.result),
                e.result.shape.label if shapes else "",
                interpreter(e.result) if interpreters else "",
            )
            if p
        )
        for e in items
    ]


def chart(title: str, items: list[Entry], failures: list[Failure]) -> ThroughputChart:
    rows = sorted((row(e, label) for e, label in zip(items, labels(items))), key=lambda r: -(r.rps or 0.0))
    return ThroughputChart(title, tuple(rows) + tuple(failed(f) for f in failures))


def build(inputs: Inputs) -> Section | None:
    items = entries(inputs)
    if not items:
        return None
    sources = several_sources(inputs)
    failures: dict[tuple[str, str], list[Failure]] = {}
    for name, run in inputs.sources.items():
        for f in run.failures:
            failures.setdefault((name, f.workload), []).append(f)
    charts = [
        chart(
            f"{workload}: throughput and latency per cell" + (f" ({source})" if sources else ""),
            found,
            failures.get((source, workload), []),
        )
        for (source, workload), found in group(items, lambda e: (e.source, e.result.workload)).items()
    ]
    return Section("throughput", "Throughput and latency", INTRO, tuple(charts))
