"""A regression step confirmed by the timed A/B gate: parent (base) against culprit (candidate), the same cell.

The gate's workflow is called as a function (:func:`serverbench.gate.workflow.run` on a
:class:`~serverbench.gate.resolve.GatePlan`), and its decision read as an object: the verdict, exit status and
each signal's summary go into the step's record, with the gate's own step-summary table.  The gate's options
(``--gate-args``) are checked against the cell before anything is counted (:func:`check`), with the gate's own
messages.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..backends import base as backends
from ..errors import ServerbenchError
from ..gate import workflow
from ..gate.options import GateOptions
from ..gate.resolve import plan_for, resolve
from ..gate.served import served
from ..judge.bisect import REGRESSION
from ..measure.trees import commits as git
from ..measure.trees.commits import Commit
from ..measure.trees.lockenv import Environments
from ..measure.trees.worktree import worktree
from ..records import bisects
from ..report import bisect as report
from ..report import gate as gate_report
from .plan import BisectPlan
from .resolve import REFERENCE_SYNC, USER_SYNC, BisectOptions


def fields(plan: BisectPlan) -> dict[str, Any]:
    """What the confirming gate needs of the plan (also stored in a bisection file)."""
    return {
        "repo": str(plan.repo),
        "project": plan.project,
        "user": plan.user,
        "variant": plan.cell.variant.name,
        "app": plan.cell.app.name,
        "workload": plan.workload.name,
    }


def asked(record: Mapping[str, Any], options: GateOptions, checkout: Path) -> GateOptions:
    """The gate's ``options`` on the cell ``record`` names, in ``checkout`` (of the bisected repository)."""
    cell = (
        {"endpoints": (record["workload"],)}
        if record["user"]
        else {"app": record["app"], "workload": record["workload"]}
    )
    return replace(options, repo=str(Path(checkout) / record["project"]), variant=record["variant"], **cell)


def check(record: Mapping[str, Any], options: GateOptions) -> None:
    """The gate's options checked against the cell ``record`` names, in the working tree, before anything is
    counted: a mistake of ``--gate-args`` is refused as the gate refuses it."""
    given = asked(record, options, Path(record["repo"]))
    plan_for(served(Path(given.repo), given.variant, given.app, given.workload, given.endpoints, "bisect"), given)


def confirm(
    record: Mapping[str, Any],
    before: Commit,
    after: Commit,
    envs: Environments,
    urls: Mapping[str, str],
    options: GateOptions,
) -> dict[str, Any]:
    """The timed A/B gate on one step, parent (base) against culprit (candidate), each in a worktree with the
    interpreter of its lock and the backends at ``urls`` (by name; none: the gate starts its own): its verdict,
    exit status and each signal's summary, or why it could not run."""
    repo = Path(record["repo"])
    report.confirming(after, before)
    with worktree(after.sha, repo) as candidate, worktree(before.sha, repo) as base:
        try:
            pythons = envs.python_for(before, base), envs.python_for(after, candidate)
            given = {backends.BACKENDS[name].url_option: url for name, url in urls.items()}
            plan = resolve(
                replace(
                    asked(record, options, candidate),
                    base_ref=before.sha,
                    base_python=pythons[0],
                    cand_python=pythons[1],
                    shared={**options.shared, **given},
                )
            )
            run, shifts = workflow.run(plan)[0]
        except (ServerbenchError, ValueError) as exc:
            return {"error": str(exc)}
    gate_report.show(run, shifts, file=sys.stderr)
    return {
        "verdict": run.verdict,
        "exit_status": run.exit_status,
        "stopped": run.stopped,  # "counted": decided by the counts, before any window
        "windows": len(run.windows),
        "blocks": run.measurement.blocks,
        "signals": {name: d.summary() for name, d in run.decisions.items()},
        "seconds": round(run.seconds, 1),
        "markdown": gate_report.markdown(run, shifts),
    }


def confirm_stored(path: Path, options: BisectOptions) -> dict[str, Any]:
    """The gate on each regression step of a stored bisection; the record with the verdicts added."""
    record = bisects.read(path)
    check(record, options.gate)
    rows = [Commit(c["sha"], c["subject"], c.get("lock")) for c in record["commits"]]
    repo = Path(record["repo"])
    sync = options.sync_args or (USER_SYNC if record["user"] else REFERENCE_SYNC)
    lock = record.get("lock_path") or "uv.lock"
    with Environments(repo, lock, options.python, git.working_lock(repo, lock), shlex.split(sync)) as envs:
        envs.check([rows[s["before"]] for s in record["steps"]] + [rows[s["after"]] for s in record["steps"]])
        for step in record["steps"]:
            if step["kind"] == REGRESSION:
                step["gate"] = confirm(record, rows[step["before"]], rows[step["after"]], envs, {}, options.gate)
    return record
