"""The end-of-session summary table, rendered with rich into pytest's terminal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..catalog.matrix import Cell
from ..catalog.shapes import knee
from ..catalog.variants import Variant
from ..judge.checks import MEANINGS, check_session, latency_known_wrong
from ..judge.explained import syn_drop_errors
from ..judge.verdict import NO_BASELINE, Verdict
from ..records.results import Failure
from ..records.schema import BackendUsage, Result
from .tables import Column, render_table

# The matrix outside a terminal: its reasons (install lines, up to ~300 characters) wrapped under their cells.
LOG_WIDTH = 160
SHOWN_ELSEWHERE = ("generator-saturated", "backend-bound")  # SAT in "gen cpu", BND in "backend cpu"


def variant_table(rows: Sequence[tuple[Cell | Variant, str | None]], width: int | None) -> str:
    """The variant x app matrix: every cell with whether it can run here (and why not); outside a terminal (width
    None) in LOG_WIDTH columns, a long reason wrapped under its cell.

    A row may be a bare variant: one kept for a server that cannot run here at all.
    """
    columns = [Column(c) for c in ("variant", "app", "interface", "server", "worker", "interpreters")]
    table_rows = []
    for row, reason in rows:
        variant, app = (row.variant, row.app.name) if isinstance(row, Cell) else (row, "-")
        table_rows.append(
            (
                variant.name,
                app,
                variant.interface,
                variant.server,
                variant.worker,
                ", ".join(variant.interpreters),
                "ready" if reason is None else f"skip: {reason}",
            )
        )
    columns.append(Column("status", wraps=True))
    title = "serverbench matrix (variant x app)"
    return render_table(title, columns, table_rows, LOG_WIDTH if width is None else width)


# The summary's columns, in order: figures, names and verdicts never wrap (nor are cut); backends and flags may.
SUMMARY_COLUMNS = (
    Column("variant"),
    Column("workload"),
    Column("shape", "right"),
    Column("rps", "right"),
    Column("p50 ms", "right"),
    Column("p99 ms", "right"),
    Column("errors", "right"),
    Column("srv cpu s", "right"),
    Column("gen cpu", "right"),
    Column("backend cpu, ops/req", wraps=True),
    Column("flags", wraps=True),
    Column("verdict"),
)
NOTHING = "-"  # a column a row has no figure for


def summary_table(
    results: Sequence[tuple[Result, Verdict]],
    failures: Sequence[Failure],
    width: int | None,
    saving: bool = False,
    skipped: Mapping[tuple[str, str], Sequence[str]] | None = None,
) -> str:
    """The session's results, failures and skipped cells, whole at ``width`` (None: not a terminal, as wide as the
    table needs); a skipped cell's reason (with its install line) follows the table, whole, since a table cell would
    cut it."""
    skipped = skipped or {}
    rows: list[tuple[str, ...]] = []
    raised: dict[str, None] = {}
    syn_lines: list[str] = []
    for (r, v), judged in zip(results, check_session([r for r, _ in results])):
        flags = [f.name for f in judged if f.name not in SHOWN_ELSEWHERE]
        raised.update(dict.fromkeys(flags))
        explained = syn_drop_errors(r)
        if explained is not None:
            syn_lines.append(
                f"SYN {r.variant}/{r.app if r.app else '-'} {r.workload} {r.shape.label}: {explained.cause}"
            )
        rows.append(_result_row(r, v, flags, saving, syn_explained=explained is not None))
    for f in failures:
        cell = f"{f.variant}/{f.app}" if f.app else f.variant
        rows.append((cell, f.workload, f"c{f.connections}", *[NOTHING] * 8, "error"))
    for n, ((cell, _), workloads) in enumerate(skipped.items(), 1):
        rows.append((cell, ",".join(workloads), *[NOTHING] * 9, f"skipped [{n}]"))
    table = render_table("serverbench results", SUMMARY_COLUMNS, rows, width)
    any_bound = any(b.bound for r, _ in results for b in r.backends)
    any_saturated = any(r.generator.saturated for r, _ in results)
    any_hidden = any("?" in row[4:6] for row in rows)  # a latency shown as "?" (_latency_cells)
    return table + _notes(any_bound, any_saturated, any_hidden, raised, syn_lines, skipped)


def _result_row(r: Result, v: Verdict, flags: Sequence[str], saving: bool, syn_explained: bool) -> tuple[str, ...]:
    """One result's cells, in SUMMARY_COLUMNS order."""
    errors = sum(r.load.errors.values())
    gen = f"{r.generator.cpu_pct:.0f}%" + (" SAT" if r.generator.saturated else "")
    verdict = v.status if v.ratio is None else f"{v.status} ({v.ratio - 1:+.1%})"
    if saving and v.status == NO_BASELINE:
        verdict = "saved"
    reps = r.extra.get("replicates")
    rps_text = f"{r.rps:,.0f}" + (f" (n={reps['n']}, ±{reps['dispersion']:.0%})" if reps else "")
    p50, p99 = _latency_cells(r, syn_explained)
    return (
        f"{r.variant}/{r.app}" if r.app else r.variant,
        r.workload,
        r.shape.label,
        rps_text,
        p50,
        p99,
        f"{errors} ({r.error_rate:.1%})" if errors else "0",
        NOTHING if r.server_cpu_s is None else f"{r.server_cpu_s:.1f}",
        gen,
        ", ".join(_backend_cell(r, b) for b in r.backends) or NOTHING,
        " ".join(flags) or NOTHING,
        verdict,
    )


def _latency_cells(r: Result, syn_explained: bool) -> tuple[str, str]:
    """p50 and p99, or why not: a latency the checks know to be wrong (Little's law off, no cause outside the harness)
    is "?", one of a cell whose timeouts the kernel's SYN drops explain (the retransmit timer's, not the server's)
    "SYN"."""
    if latency_known_wrong(r):
        return "?", "?"
    if syn_explained:
        return "SYN", "SYN"
    return f"{r.load.latency_ms['p50']:.2f}", f"{r.load.latency_ms['p99']:.2f}"


def _backend_cell(r: Result, b: BackendUsage) -> str:
    """A backend's CPU share (BND when it bound the throughput) and its operations per request."""
    pct = NOTHING if b.cpu_pct is None else f"{b.cpu_pct:.0f}%"
    per_request = b.per_request(r.requests, r.load.run_requests)
    ratio = "" if per_request is None else f" {per_request:.3f}"
    return f"{b.name} {pct}{' BND' if b.bound else ''}{ratio}"


def _notes(
    any_bound: bool,
    any_saturated: bool,
    any_hidden: bool,
    raised: Mapping[str, None],
    syn_lines: Sequence[str],
    skipped: Mapping[tuple[str, str], Sequence[str]],
) -> str:
    """The lines under the table: what BND, SAT and ? mean where shown, each flag raised, the SYN cells and every
    skipped cell's reason."""
    text = ""
    if any_bound:
        text += (
            "BND: a backend was >= 90% busy (of the cores it can use): the backend, not the server under "
            "test, set this throughput.\n"
        )
    if any_saturated:
        text += (
            "SAT: the load generator was >= 90% busy; the server may be faster than measured (generator-bound trial).\n"
        )
    if any_hidden:
        text += (
            "?: a latency the littles-law check knows is not the server's for all its connections (no cause "
            "outside the harness measured, or connections the server held through the window or had not yet "
            "taken); the record keeps it with the flag.\n"
        )
    for name in raised:
        text += f"{name}: {MEANINGS[name]} (the record's flags say what was seen; docs/checks.md).\n"
    for line in syn_lines:  # SYN in the latency columns: those cells' timeouts did not count against their error limit
        text += line + ".\n"
    for n, (cell, reason) in enumerate(skipped, 1):
        text += f"skipped [{n}] {cell}: {reason}\n"
    return text


def missing_baseline_line(count: int, machine_id: str) -> str:
    """One line for the cells that passed with no stored timed baseline of this machine: what the user can do.
    A timed baseline is per machine; the A/B gate needs none and a cost baseline travels (docs/baselines.md)."""
    return (
        f"{count} result(s) have no stored baseline for machine {machine_id}, so their throughput was not judged: "
        "store one with `pytest -m perf --perf-save-baseline`, or judge without one here: the A/B gate "
        "(`serverbench gate`, base and candidate in one session) or `pytest -m cost` (counted instructions, "
        "whose baselines travel between machines)."
    )


def rate_ladders(results: Sequence[Result]) -> list[str]:
    """One line per open-model ladder (same test, cell and workload, two or more rates): where latency breaks."""
    groups: dict[tuple, list[Result]] = {}
    for r in results:
        if r.shape.rate is not None:
            groups.setdefault((r.test, r.variant, r.app, r.workload), []).append(r)
    lines = []
    for (_test, variant, app, workload), runs in groups.items():
        if len(runs) < 2:
            continue
        runs.sort(key=lambda r: r.shape.rate)
        rates = [r.shape.rate for r in runs]
        p99 = [r.load.latency_ms["p99"] for r in runs]
        at = knee(rates, p99, [r.rps for r in runs])
        curve = ", ".join(
            f"{q:g}: {r.rps:,.0f} rps p99 {r.load.latency_ms['p99']:,.1f} ms" for q, r in zip(rates, runs)
        )
        where = "no knee up to the top rate" if at is None else f"knee at {at:g} req/s"
        lines.append(f"rate ladder {variant}/{app} {workload}: {where} ({curve})")
    return lines
