"""A bisection from its options to its record: plan, count (:mod:`.search`), attribute each regression step to
the functions it came from, and confirm it with the timed gate (:mod:`.confirm`).

The backends the app needs are started once (or taken by URL), and each lock file's environment is built once
(:class:`~serverbench.measure.trees.lockenv.Environments`); everything is stopped and removed on every exit path.
``serverbench bisect`` prints and writes the record :func:`run` returns.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Mapping
from typing import Any

from .. import __version__
from ..backends import base as backends
from ..errors import ServerbenchError
from ..judge.bisect import REGRESSION
from ..judge.cost import attribute
from ..measure.counting.bisect import Attempt, profiled
from ..measure.trees import commits as git
from ..measure.trees.lockenv import Environments
from ..records.cost import CostBaseline
from ..report import bisect as report
from . import confirm, search
from .plan import BisectPlan
from .resolve import BisectOptions, plan_of, urls_of


def run(options: BisectOptions) -> dict[str, Any]:
    """Plan, count, attribute and confirm; the bisection record."""
    plan, needed, sync = plan_of(options)
    urls = urls_of(options)
    if options.confirm:
        confirm.check(confirm.fields(plan), options.gate)
    envs = Environments(
        plan.repo, plan.lock_path, plan.python, git.working_lock(plan.repo, plan.lock_path), shlex.split(sync)
    )
    envs.check(plan.commits)
    started = time.monotonic()
    report.bisecting(plan.name, plan.commits, plan.threshold)
    with backends.started(needed, urls) as services, envs:
        env = server_env(plan, services)
        attempts, result = search.run(plan, envs, env, lambda attempt: report.counted(attempt, plan.commits))
        extra = []
        for step in result.steps:
            added: dict[str, Any] = {}
            if step.kind == REGRESSION:
                added["attribution"] = attribution(plan, attempts, step.before, step.after, envs, env)
                if options.confirm:
                    running = {name: service.url for name, service in services.items()}
                    before, after = plan.commits[step.before], plan.commits[step.after]
                    added["gate"] = confirm.confirm(confirm.fields(plan), before, after, envs, running, options.gate)
            extra.append(added)
        return search.to_record(plan, attempts, result, time.monotonic() - started, __version__, extra)


def server_env(plan: BisectPlan, services: Mapping[str, Any]) -> dict[str, str]:
    """The backends' URLs under the names the app reads them by (a user's app: its perf_app_backends)."""
    if plan.backend_vars is None:
        return backends.env(services)
    return {variable: services[name].url for name, variable in plan.backend_vars.items()}


def attribution(
    plan: BisectPlan,
    attempts: Mapping[int, Attempt],
    before: int,
    after: int,
    envs: Environments,
    env: Mapping[str, str],
) -> list[dict[str, Any]]:
    """The functions a step came from: both commits' counts with their Python profiles, compared."""
    try:
        base = profiled(plan, before, attempts[before].record, envs, env)
        candidate = profiled(plan, after, attempts[after].record, envs, env)
    except ServerbenchError as exc:
        report.no_profile(exc)
        base, candidate = attempts[before].record, attempts[after].record
    return [s.to_record() for s in attribute(CostBaseline.of(base), candidate)]
