"""The summary table: every result and failure, sortable, with verdicts, flags and error classes."""

from __future__ import annotations

from ..cells import Entry, cell, cpu_us_per_request, entries, error_classes, interpreter, several_sources
from ..charts import Cell, Column, Fold, Note, Section, Table, optional
from ..inputs import Inputs

FLAGS_NOTE = (
    "SAT: the load generator was at least 90% busy, so the server may be faster than measured. "
    "BND: a backend was at least 90% busy, so it, not the server under test, set the throughput."
)


def flags(entry: Entry) -> str:
    r = entry.result
    out = ["SAT"] if r.generator.saturated else []
    out += [f"BND {b.name}" for b in r.backends if b.bound]
    if r.warmup_settled is False:
        out.append("unsettled")
    out += [f["name"] for f in checked(entry) if f["name"] not in ("generator-saturated", "backend-bound")]
    return " ".join(out)


def checked(entry: Entry) -> list:
    """The consistency flags stored with the record (judge.checks); none in files written before them."""
    return list((entry.stored.record or {}).get("flags") or ())


def flags_table(items: list[Entry]) -> Fold | None:
    """Every stored consistency flag with what was seen (docs/checks.md explains each)."""
    rows = tuple(
        (
            Cell(cell(e.result)),
            Cell(e.result.workload),
            Cell(e.result.shape.label),
            Cell(f["name"], f["name"]),
            Cell(f["message"]),
        )
        for e in items
        for f in checked(e)
    )
    if not rows:
        return None
    table = Table(
        (Column("cell"), Column("workload"), Column("shape"), Column("flag"), Column("what was seen")),
        rows,
        sortable=True,
    )
    return Fold(f"{len(rows)} consistency flag(s): what each record's own numbers show (docs/checks.md)", (table,))


def precision(r) -> Cell:
    """How precisely the window measured its throughput and mean latency (the 95% interval's half-width, relative;
    drivers.oha.window_precision); a dash where the driver cannot tell."""
    reached = r.load.precision or {}
    rps, mean = reached.get("rps"), reached.get("latency_mean")
    if rps is None and mean is None:
        return Cell("-", None)
    text = " / ".join("-" if v is None else f"±{v:.1%}" for v in (rps, mean))
    return Cell(text, rps)


def verdict(entry: Entry) -> Cell:
    v = entry.stored.verdict or {}
    status = str(v.get("status") or "-")
    ratio = v.get("ratio")
    text = status if ratio is None else f"{status} ({ratio - 1:+.1%})"
    return Cell(text, text, "fail" if status == "fail" else "")


def row(entry: Entry, sources: bool) -> tuple[Cell, ...]:
    r = entry.result
    errors = sum(r.load.errors.values())
    flag = flags(entry)
    cells = (Cell(entry.source, entry.source),) if sources else ()
    return cells + (
        Cell(cell(r), cell(r)),
        Cell(r.workload, r.workload),
        Cell(r.shape.label, r.shape.label),
        Cell(interpreter(r), interpreter(r)),
        Cell(f"{r.rps:,.0f}", r.rps),
        precision(r),
        optional(r.load.latency_ms["p50"], 2),
        optional(r.load.latency_ms["p99"], 2),
        Cell(f"{errors:,} ({r.error_rate:.1%})" if errors else "0", r.error_rate),
        Cell(error_classes(r.load.errors) or "-", error_classes(r.load.errors)),
        optional(cpu_us_per_request(r), 0),
        Cell(f"{r.generator.cpu_pct:.0f}%", r.generator.cpu_pct),
        Cell(flag or "-", flag, "sat" if "SAT" in flag or "BND" in flag else ""),
        verdict(entry),
    )


def build(inputs: Inputs) -> Section | None:
    items = entries(inputs)
    failures = [(name, f) for name, run in inputs.sources.items() for f in run.failures]
    if not items and not failures:
        return None
    sources = several_sources(inputs)
    columns = ((Column("source"),) if sources else ()) + (
        Column("cell"),
        Column("workload"),
        Column("shape"),
        Column("interpreter"),
        Column("rps", True),
        Column("± rps / mean", True),
        Column("p50 ms", True),
        Column("p99 ms", True),
        Column("errors", True),
        Column("error classes"),
        Column("server CPU µs/req", True),
        Column("generator CPU", True),
        Column("flags"),
        Column("verdict"),
    )
    rows = [row(e, sources) for e in items]
    for name, f in failures:
        blank = Cell("-", None)
        rows.append(
            ((Cell(name, name),) if sources else ())
            + (
                Cell(f"{f.variant}/{f.app}" if f.app else f.variant),
                Cell(f.workload),
                Cell(f"c{f.connections}"),
                blank,
                blank,
                blank,
                blank,
                blank,
                blank,
                Cell(f.message[:160], f.message),
                blank,
                blank,
                blank,
                Cell("error", "error", "fail"),
            )
        )
    blocks = [Table(columns, tuple(rows), sortable=True)]
    if any(flags(e) for e in items):
        blocks.append(Note(FLAGS_NOTE))
    if (found := flags_table(items)) is not None:
        blocks.append(found)
    return Section(
        "summary", "Summary", "Every result and failure; click a column to sort.", tuple(blocks) + (runs_table(inputs),)
    )


def runs_table(inputs: Inputs) -> Table:
    """The runs the results came from: when, where, how many results and failures."""
    return Table(
        (Column("source"), Column("created"), Column("machine"), Column("results", True), Column("failures", True)),
        tuple(
            (
                Cell(name, name),
                Cell(run.created, run.created),
                Cell(str(run.machine.get("id", "?"))),
                Cell(str(len(run.results)), len(run.results)),
                Cell(str(len(run.failures)), len(run.failures)),
            )
            for name, run in inputs.sources.items()
        ),
        sortable=True,
    )
