"""A gate from its plan to its decisions: :func:`run` (the reference apps and a user's project alike) and
:func:`rejudged` (a stored decision judged again, no server).

:func:`run` starts the backends the app needs (or takes them by URL), checks the base ref out beside the working
tree, makes each arm's tree able to serve (a project's ``perf_app_setup``), and runs one decision per workload
(:mod:`.loop`); a counted cost regression is then attributed to the functions it came from.  Everything it
started is stopped and removed on every exit path.  ``serverbench gate`` prints and writes what it returns, and
``serverbench bisect`` reads the decision it confirms a step with.
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

from ..backends import base as backends
from ..config.options import OPTIONS_BY_NAME
from ..errors import ConfigError
from ..judge.ab import COST, rejudge, stored_policy
from ..judge.cost import Shift, attribute
from ..measure.serving.appsetup import set_up_app
from ..measure.trees.worktree import worktree
from ..measure.trials.ab import profile_arms
from ..records import decisions as decision_file
from ..records.cost import CostBaseline
from ..records.decisions import ABDecision
from ..report import gate as report
from . import loop
from .options import GateOptions
from .plan import ABPlan
from .resolve import GatePlan, policy_of, shared_options

Decided = tuple[ABDecision, tuple[Shift, ...]]  # a decision and, after a counted cost regression, its functions


def run(plan: GatePlan) -> list[Decided]:
    """Each decision of ``plan``, in the order of its workloads, with the functions of a cost regression."""
    served = plan.served
    with (
        backends.started(served.backends, plan.urls) as services,
        worktree(plan.base_ref, served.top) if plan.base_ref else nullcontext(served.top) as base_root,
    ):
        arms = plan.arms(base_root, {name: s.url for name, s in services.items()})
        if served.setup is not None:  # perf_app_setup: each arm's tree made able to serve, before any server
            for arm in arms:
                report.set_up(arm.label, set_up_app(served.setup, arm.apps_dir, arm.env, arm.python), arm.apps_dir)
        env = backends.env(services)
        return [decided_with_shifts(plan.decision(workload, arms, env)) for workload in served.workloads]


def decided_with_shifts(plan: ABPlan) -> Decided:
    """The decision on ``plan`` and, when its counted cost regressed, the functions it came from (the decision's
    own counts, and one untimed Python-level pass of each arm)."""
    run, runs = loop.decide(plan, on_retry=report.retrying)
    cost = run.decisions.get(COST)
    if cost is None or cost.verdict != "regression" or runs is None:
        return run, ()
    report.profiling(run.cell)
    base, candidate = profile_arms(plan, runs.last)
    return run, attribute(CostBaseline.of(base), candidate)


def exit_status(runs: list[ABDecision]) -> int:
    """One status for several decisions: a regression (1) over an inconclusive one (3) over passes (0)."""
    statuses = {r.exit_status for r in runs}
    return next((s for s in (1, 3) if s in statuses), max(statuses, default=0))


def rejudged(path: str | Path, options: GateOptions) -> ABDecision:
    """The stored decision's pairs judged again under its policy with the limits given; no server starts."""
    stored = decision_file.read(Path(path))
    given = options.shared.get("perf_max_error_rate") is not None
    limit = shared_options(options)["perf_max_error_rate"] if given else stored.max_error_rate
    limit = limit if limit is not None else OPTIONS_BY_NAME["perf_max_error_rate"].default_in("gate")
    try:
        policy = policy_of(options, stored_policy(stored))
    except ValueError as exc:  # the limits a file stored: out of range
        raise ConfigError(f"{path}: its stored policy cannot be used ({exc})") from None
    report.rejudging(path, policy)
    try:
        return rejudge(stored, policy, limit)
    except (
        ValueError,
        OverflowError,
    ) as exc:  # stored pairs the judge refuses (<= 0, unequal lengths, 1e-320 vs 1e308)
        raise ConfigError(f"{path}: its pairs cannot be judged again ({exc})") from None
