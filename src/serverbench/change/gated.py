"""A pull request's gate: what ``serverbench gate --base-ref BASE --repo PROJECT --json ...`` runs, in-process, on
each variant in turn (the gate takes one), every endpoint of each (or those given) in one session.

The arguments after ``--`` are the gate's own (``--duration 1``, ``--blocks 32``), read by the arguments its
command line declares; with several variants the false-failure budget is split between every endpoint of every
variant (unless ``--cells`` says otherwise), as the gate splits it between one variant's endpoints.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from ..catalog.matrix import user_cells
from ..catalog.variants import registry
from ..errors import ConfigError
from ..gate import user, workflow
from ..gate.options import GateOptions, add_arguments
from ..gate.resolve import GatePlan, resolve
from ..measure.serving.servers import unavailable_reason
from ..report import gate as report


class _GateArgs(argparse.ArgumentParser):
    """The gate's arguments after ``--``: a mistake is bad input of ``serverbench ci`` (one line), not an exit."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"the gate's arguments after --: {message}; see `serverbench gate --help`")


def gate_options(extra: Sequence[str]) -> tuple[GateOptions, tuple[str, ...]]:
    """The gate's options the arguments after ``--`` give, and the variants they name (``--variant``, repeatable)."""
    p = _GateArgs(prog="serverbench ci --", add_help=False)
    add_arguments(p)
    p.add_argument("--variant", dest="variants", action="append", default=[])
    p.add_argument("--endpoint", action="append", default=[])
    args = p.parse_args(list(extra))
    return GateOptions.of(args), tuple(args.variants)


def variants(project: Path, given: Sequence[str]) -> tuple[list[str], list[str]]:
    """The variants to gate: those given, else every one of perf_variants that can run here; and a note naming
    those that cannot (their reasons), or none."""
    if given:
        return list(dict.fromkeys(given)), []
    found = user.project(project)
    if found is None:
        raise ConfigError(f"{project} names no perf_app: give --project the folder of your serverbench settings")
    cells = user_cells(list(registry().values()), found.settings.variants, found.app.app, found.app.ready_path)
    reasons = {c.variant.name: unavailable_reason(c.variant, c.app) for c in cells}
    runnable = [name for name, reason in reasons.items() if reason is None]
    skipped = "; ".join(f"{name}: {reason}" for name, reason in reasons.items() if reason is not None)
    if not runnable:
        raise ConfigError(f"no variant of perf_variants can run here ({skipped}); install one's server")
    return runnable, [f"Not gated on this runner (perf_variants it cannot run): {skipped}."] if skipped else []


def plans(
    project: Path, base: str, endpoints: Sequence[str], variants: Sequence[str], options: GateOptions
) -> list[GatePlan]:
    """One gate per variant, every value checked before any starts; the budget split between all their cells."""
    options = replace(options, repo=str(project), base_ref=base, endpoints=(*endpoints, *options.endpoints))
    resolved = [resolve(replace(options, variant=v)) for v in variants]
    if options.cells is None and len(resolved) > 1:
        cells = sum(len(p.served.workloads) for p in resolved)
        resolved = [resolve(replace(options, variant=v, cells=cells)) for v in variants]
    return resolved


def run(gates: Sequence[GatePlan]) -> list[workflow.Decided]:
    """Each gate's decisions in turn, shown on the terminal as ``serverbench gate`` shows them."""
    decided = []
    for plan in gates:
        for run_, shifts in workflow.run(plan):
            report.show(run_, shifts)
            decided.append((run_, shifts))
    return decided
