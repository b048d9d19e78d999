"""``serverbench ci`` from its options to its files: the event read, the mode picked, the commits checked, the gate
(:mod:`.gated`) or the cost test (:mod:`.counted`) run, and every outcome written to ``--out``, a bad input or a
setup error among them (its one-line error in the comment, the summary and result.json, so the pull request
sees it).  Returns the exit status: 0 pass, improvement or not measured, 1 regression, 2 bad input or a setup
error, 3 could not decide.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, ServerbenchError
from ..gate import user
from ..measure.host.machine import cpu_model
from ..report.comment import Runner, cost_comment, error_comment, gate_comment, not_measured_comment
from ..report.verdict import (
    ERROR,
    NOT_MEASURED,
    SYMBOLS,
    cost_line,
    cost_verdict_of,
    decision_line,
    overall,
    verdict_of,
)
from . import commits, counted, gated, outputs
from .event import Event, mode_of, read
from .result import DEFAULT_COMMENT, Outcome, check_comment

SETTINGS = "serverbench settings (perf_app in pyproject.toml, pytest.ini, tox.ini or setup.cfg)"


@dataclass(frozen=True)
class CiOptions:
    """``serverbench ci``'s command line, every value as given (checked here, so a mistake reaches the comment)."""

    mode: str = "auto"
    project: Path = Path(".")
    endpoints: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    comment: str = DEFAULT_COMMENT
    out: Path = Path("serverbench-out")
    base: str | None = None
    before: str | None = None
    extra: tuple[str, ...] = ()  # after --: the gate's arguments, or both pytest runs' (cost)
    python: str = sys.executable  # the interpreter cost mode runs pytest with


def runner_of(environ: Mapping[str, str]) -> Runner:
    """The runner as GitHub Actions names it (RUNNER_*, ImageOS/ImageVersion), its CPU from /proc/cpuinfo."""
    image = " ".join(environ[k] for k in ("ImageOS", "ImageVersion") if environ.get(k))
    return Runner(
        environ.get("RUNNER_NAME"),
        environ.get("RUNNER_OS"),
        environ.get("RUNNER_ARCH"),
        image or None,
        cpu_model(),
        os.cpu_count(),
    )


def run(options: CiOptions, environ: Mapping[str, str]) -> int:
    """The verdict of the change, written to ``options.out``; its exit status."""
    event, mode, project = Event(), None, os.path.normpath(str(options.project))
    try:
        event = read(environ)
        check_comment(options.comment)
        mode = mode_of(options.mode, event)
        checkout = commits.checkout(options.project)
        project = checkout.project
        if not user.names_app(options.project):
            raise ConfigError(
                f"--project {options.project} has no {SETTINGS}: add them, or name the folder that has them"
            )
        measure = gate if mode == "gate" else cost
        outcome = measure(options, checkout, event, runner_of(environ))
    except (ServerbenchError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        first = str(exc).strip().partition("\n")[0]
        outcome = Outcome(
            mode, ERROR, (f"{SYMBOLS[ERROR]} error: {first}",), error_comment(project, mode or "ci", str(exc))
        )
    outputs.write(options.out, outcome, options.comment, event, environ.get("GITHUB_STEP_SUMMARY"))
    for line in outcome.lines:
        print(line)
    return outcome.status


def not_measured(mode: str, project: str, why: str, results: Path | None = None) -> Outcome:
    return Outcome(
        mode,
        NOT_MEASURED,
        (f"{SYMBOLS[NOT_MEASURED]} not measured: {why}",),
        not_measured_comment(project, mode, why),
        cost_results=results,
    )


def unconfigured(mode: str, checkout: commits.Checkout, sha: str, named: str, then: str) -> Outcome | None:
    """``sha`` fetched when a shallow clone lacks it; not measured when it has no serverbench settings, else None."""
    checkout.fetched(sha)
    if checkout.configured(sha):
        return None
    return not_measured(mode, checkout.project, f"{named} ({sha}) has no {SETTINGS} in {checkout.project}: {then}")


def gate(options: CiOptions, checkout: commits.Checkout, event: Event, runner: Runner) -> Outcome:
    """The pull request's gate against its base, every endpoint of every variant (or those given)."""
    base = options.base or event.base
    if base is None:
        raise ConfigError("no base commit: give --base SHA, or run on a pull_request event (its pull_request.base.sha)")
    unset = unconfigured(
        "gate", checkout, base, "the base", "this change adds them. Later pull requests are gated against it."
    )
    if unset is not None:
        return unset
    gate_options, named = gated.gate_options(options.extra)
    chosen, notes = gated.variants(options.project, [*options.variants, *named])
    decided = gated.run(gated.plans(options.project, base, options.endpoints, chosen, gate_options))
    return Outcome(
        "gate",
        overall([verdict_of(run) for run, _ in decided]),
        tuple(decision_line(run, shifts) for run, shifts in decided),
        gate_comment(checkout.project, decided, runner, notes),
        tuple((run, tuple(shifts)) for run, shifts in decided),
    )


def cost(options: CiOptions, checkout: commits.Checkout, event: Event, runner: Runner) -> Outcome:
    """The push's counted cost against the commit before it (all zeros, a new branch: the pushed commit's parent)."""
    before = options.before or event.before
    if before is None:
        raise ConfigError("no commit before the push: give --before SHA, or run on a push event (its before)")
    if set(before) == {"0"}:
        before = checkout.parent("HEAD")
        if before is None:
            return not_measured(
                "cost", checkout.project, "this is the repository's first commit: there is nothing before it to count"
            )
        print(f"serverbench: a new branch; counting against the pushed commit's parent {before}", file=sys.stderr)
    said = "this push adds them. The next push is counted against this one."
    unset = unconfigured("cost", checkout, before, "the commit before the push", said)
    if unset is not None:
        return unset
    options.out.mkdir(parents=True, exist_ok=True)
    results = options.out / outputs.COST_RESULTS
    found = counted.count(checkout, before, options.python, options.extra, results)
    if found.not_measured:
        return not_measured("cost", checkout.project, found.not_measured, results)
    records = sorted(found.records, key=lambda r: r["key"])
    return Outcome(
        "cost",
        overall([cost_verdict_of(r) for r in records]),
        tuple(cost_line(r) for r in records),
        cost_comment(checkout.project, records, runner, before),
        cost_results=results,
    )
