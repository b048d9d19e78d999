"""The end-of-session summary table, rendered with rich into pytest's terminal."""
from __future__ import annotations

import io
from typing import Sequence

from rich.console import Console
from rich.table import Table

from .results import Result
from .session import Failure
from .variants import Variant
from .verdict import NO_BASELINE, Verdict


def variant_table(rows: Sequence[tuple[Variant, str | None]], width: int) -> str:
    """Every declared variant with what it serves and whether it can run here (and why not)."""
    table = Table(title="serverbench variants", title_justify="left")
    for column in ("variant", "server", "worker", "app", "interface", "interpreters", "status"):
        table.add_column(column, no_wrap=column != "status")
    for variant, reason in rows:
        table.add_row(variant.name, variant.server, variant.worker, variant.app, variant.app_spec.interface,
                      ", ".join(variant.interpreters), "ready" if reason is None else f"skip: {reason}")
    out = io.StringIO()
    Console(file=out, width=max(width, 160), color_system=None, force_terminal=False).print(table)
    return out.getvalue()


def summary_table(results: Sequence[tuple[Result, Verdict]], failures: Sequence[Failure], width: int,
                  saving: bool = False) -> str:
    table = Table(title="serverbench results", title_justify="left", show_lines=False)
    for column, justify in (("variant", "left"), ("workload", "left"), ("conns", "right"), ("rps", "right"),
                            ("p50 ms", "right"), ("p99 ms", "right"), ("errors", "right"),
                            ("srv cpu s", "right"), ("gen cpu", "right"), ("verdict", "left")):
        table.add_column(column, justify=justify, no_wrap=True)
    any_saturated = False
    for r, v in results:
        errors = sum(r.load.errors.values())
        gen = f"{r.generator.cpu_pct:.0f}%"
        if r.generator.saturated:
            gen += " SAT"
            any_saturated = True
        verdict = v.status if v.ratio is None else f"{v.status} ({v.ratio - 1:+.1%})"
        if saving and v.status == NO_BASELINE:
            verdict = "saved"
        table.add_row(r.variant, r.workload, str(r.connections), f"{r.rps:,.0f}",
                      f"{r.load.latency_ms['p50']:.2f}", f"{r.load.latency_ms['p99']:.2f}",
                      f"{errors} ({r.error_rate:.1%})" if errors else "0",
                      "-" if r.server_cpu_s is None else f"{r.server_cpu_s:.1f}", gen, verdict)
    for f in failures:
        table.add_row(f.variant, f.workload, str(f.connections), "-", "-", "-", "-", "-", "-", "error")
    out = io.StringIO()
    Console(file=out, width=max(width, 200), color_system=None, force_terminal=False).print(table)
    text = out.getvalue()
    if any_saturated:
        text += ("SAT: the load generator was >= 90% busy; the server may be faster than measured "
                 "(generator-bound trial).\n")
    return text
