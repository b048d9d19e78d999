"""Counting one commit of a bisection: a worktree at the commit, the environment of its lock file, the cell
counted under valgrind (:mod:`.cost`), the worktree removed.  Measurement only: which commit to count and
what the counts mean is :mod:`serverbench.judge.bisect`'s.

A user's app is made ready in each worktree exactly as the perf suite, ``pytest -m cost`` and the gate make
it: its ``perf_app_setup`` command (:mod:`serverbench.measure.serving.appsetup`) once in the fresh tree, then its ``perf_app_reset``
(:mod:`serverbench.measure.serving.reset`), before the server starts.

A commit whose code does not build or does not serve the endpoint (its server does not start, dies, or
answers other than the contract; its setup or reset fails; its lock cannot be installed; it lacks the app's folder)
is an :class:`Attempt` without a count and with the reason: skipped, as ``git bisect run``'s exit 125.
Anything else (valgrind cannot reach the server, a program is missing) is not the commit's doing and stops
the bisection.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Protocol

from ...catalog.matrix import Cell
from ...catalog.userapp import AppTarget
from ...catalog.workloads import Workload
from ...errors import ResetError, ServerDiedError, ServerStartError, SetupError, VerificationError
from ...processes.together import at_once
from ...records.cost import CostRecord
from ..serving.appsetup import set_up_app
from ..serving.reset import reset_app
from ..trees.commits import Commit
from ..trees.lockenv import EnvironmentBuildError, Environments
from ..trees.worktree import worktree
from .cost import CostPlan, measure_cost
from .pytrace import profile_python

# What a commit's own code can cause: the commit is skipped with the reason, the search goes on.
THE_COMMITS_DOING = (
    ServerStartError,
    ServerDiedError,
    VerificationError,
    SetupError,
    ResetError,
    EnvironmentBuildError,
)


class Bisection(Protocol):
    """What counting a commit reads of a bisection's plan (bisect.plan.BisectPlan, a floor above: it validates the
    plan against measurement's checks): the range, the cell and how it is counted, where each commit's app is."""

    repo: Path
    commits: tuple[Commit, ...]
    cell: Cell
    workload: Workload
    requests: int
    app_folder: str
    python: str
    env: Mapping[str, str]
    setup: str | None
    reset: AppTarget | None

    def app_dir(self, checkout: Path) -> Path: ...


class MissingAppFolder(VerificationError):
    """The commit has no app folder to serve (it predates the app, or moved it)."""


@dataclass(frozen=True)
class Attempt:
    """One commit tried: its count (None: it could not be counted, ``reason`` says why) and how long it took."""

    index: int
    record: CostRecord | None
    reason: str
    seconds: float
    python: str

    @property
    def per_request(self) -> float | None:
        return None if self.record is None else self.record.per_request


def one_line(error: Exception) -> str:
    """An error's first line and, when it quotes a server's output, that output's last line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    return lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"


def cost_plan(plan: Bisection, apps_dir: Path, python: str, env: Mapping[str, str], nodeid: str) -> CostPlan:
    return CostPlan(
        plan.cell.variant,
        plan.cell.app,
        plan.workload,
        requests=plan.requests,
        apps_dir=apps_dir,
        env={**plan.env, **env},
        python=python,
        nodeid=nodeid,
    )


def made_ready(plan: Bisection, cost: CostPlan) -> None:
    """A user's app made able to serve in a fresh tree, as everywhere a tree is served: its perf_app_setup command,
    then its perf_app_reset function, with the servers' environment and the commit's interpreter."""
    if plan.setup is not None:
        set_up_app(plan.setup, cost.apps_dir, cost.env, cost.python)
    if plan.reset is not None:
        reset_app(plan.reset, cost.apps_dir, cost.env, cost.python)


def count_commit(plan: Bisection, index: int, envs: Environments, env: Mapping[str, str]) -> Attempt:
    """Count commit ``index`` of the plan in a worktree of its own (removed afterwards); ``env`` holds the
    backends' URLs."""
    commit = plan.commits[index]
    started = time.monotonic()
    python = plan.python
    try:
        with worktree(commit.sha, plan.repo) as checkout:
            python = envs.python_for(commit, checkout)
            apps_dir = plan.app_dir(checkout)
            if not apps_dir.is_dir():
                raise MissingAppFolder(f"{commit.short} has no {plan.app_folder}/ folder to serve")
            cost = cost_plan(plan, apps_dir, python, env, f"bisect::{commit.sha}")
            made_ready(plan, cost)
            record = measure_cost(cost)
    except THE_COMMITS_DOING as exc:
        return Attempt(index, None, one_line(exc), time.monotonic() - started, python)
    return Attempt(index, record, "", time.monotonic() - started, python)


def count_both(plan: Bisection, indexes: tuple[int, int], envs: Environments, env: Mapping[str, str]) -> list[Attempt]:
    """Two commits counted at the same time (a count does not depend on the machine's load); stopped with the
    command (Ctrl-C, SIGTERM), each ends at once and removes its worktree."""
    return at_once([partial(count_commit, plan, i, envs, env) for i in indexes], name="serverbench-bisect-count")


def profiled(plan: Bisection, index: int, record: CostRecord, envs: Environments, env: Mapping[str, str]) -> CostRecord:
    """``record`` (commit ``index``'s count) with the Python-level profile of the same window: a second pass
    without valgrind in a fresh worktree, for the functions a step came from."""
    commit = plan.commits[index]
    with worktree(commit.sha, plan.repo) as checkout:
        python = envs.python_for(commit, checkout)
        cost = cost_plan(plan, plan.app_dir(checkout), python, env, f"bisect::{commit.sha}::profile")
        made_ready(plan, cost)
        return replace(record, python_functions=profile_python(cost))
