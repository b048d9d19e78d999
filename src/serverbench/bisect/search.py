"""A bisection on the counted cost: count the range's two ends, then each commit the judge asks for, until it
has found every step.

The loop between :mod:`serverbench.measure.counting.bisect` (one commit counted, or skipped with its reason) and
:mod:`serverbench.judge.bisect` (which commit next, and what the counts say).  The ends are counted at the
same time; an end that cannot be counted stops the bisection with what to do instead.
The bisection's workflow (:mod:`serverbench.bisect.workflow`) and the tests call :func:`run`; :func:`to_record` makes
the bisection file's fields from what it returned (:mod:`serverbench.records.bisects` writes and reads the file).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, Callable

from ..errors import ConfigError
from ..judge.bisect import Bisection, bisection, next_commit
from ..measure.counting.bisect import Attempt, count_both, count_commit
from ..measure.trees.lockenv import Environments
from ..records import bisects
from .plan import BisectPlan


class EndNotCounted(ConfigError):
    """An end of the range cannot be counted: there is nothing to bisect against (bad input, one line)."""


def run(
    plan: BisectPlan,
    envs: Environments,
    env: Mapping[str, str],
    on_attempt: Callable[[Attempt], None] = lambda attempt: None,
) -> tuple[dict[int, Attempt], Bisection]:
    """Every attempt by commit index, and the bisection they give; ``on_attempt`` hears of each as it ends."""
    attempts: dict[int, Attempt] = {}

    def tried(attempt: Attempt) -> None:
        attempts[attempt.index] = attempt
        on_attempt(attempt)

    for attempt in count_both(plan, (0, plan.last), envs, env):
        tried(attempt)
    check_ends(plan, attempts[0], attempts[plan.last])

    def counts() -> dict[int, float | None]:
        return {i: a.per_request for i, a in attempts.items()}

    while (index := next_commit(counts(), plan.last, plan.threshold)) is not None:
        tried(count_commit(plan, index, envs, env))
    return attempts, bisection(counts(), plan.last, plan.threshold)


def check_ends(plan: BisectPlan, good: Attempt, bad: Attempt) -> None:
    """Both ends counted, or an EndNotCounted saying which and what to do."""
    endpoint = f"{plan.workload.spec.request.method} {plan.workload.path}"
    if good.record is None and bad.record is None:
        raise EndNotCounted(
            f"neither end of the range can be counted ({plan.name}): good end {good.reason}; bad end {bad.reason}. "
            f"If both ends fail alike, this cell cannot be counted here (a variant valgrind cannot run): check it with "
            f"`pytest -m cost --perf-variants {plan.cell.variant.name}` or bisect another --variant"
        )
    if good.record is None:
        raise EndNotCounted(
            f"the good end {plan.commits[0].name} already fails: {good.reason}; pick an older --good that "
            f"serves {endpoint} under {plan.cell.variant.name}"
        )
    if bad.record is None:
        raise EndNotCounted(
            f"the bad end {plan.commits[-1].name} cannot be counted: {bad.reason}; pick as --bad the last commit "
            f"that serves {endpoint} (a commit that fails to build is no cost regression)"
        )


def to_record(
    plan: BisectPlan,
    attempts: Mapping[int, Attempt],
    result: Bisection,
    seconds: float,
    version: str,
    steps: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The whole bisection as a JSON-ready mapping; ``steps``: per step of ``result``, what was added to it
    (``attribution``: the functions it came from; ``gate``: the timed gate's verdict), in the same order."""
    good = attempts[0].record
    rows = []
    for i, commit in enumerate(plan.commits):
        tried = attempts.get(i)
        rows.append(
            {
                "sha": commit.sha,
                "subject": commit.subject,
                "lock": commit.lock,
                "per_request": None if tried is None or tried.record is None else round(tried.per_request, 1),
                "tried": tried is not None,
                "skipped": None if tried is None or tried.record is not None else tried.reason,
                "seconds": None if tried is None else round(tried.seconds, 2),
                "python": None if tried is None else tried.python,
            }
        )
    extra = list(steps) + [{}] * (len(result.steps) - len(steps))
    return {
        "kind": bisects.KIND,
        "schema": bisects.SCHEMA,
        "serverbench": version,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "repo": str(plan.repo),
        "project": plan.project,
        "user": plan.user,
        "cell": plan.name,
        "variant": plan.cell.variant.name,
        "app": plan.cell.app.name,
        "workload": plan.workload.name,
        "endpoint": f"{plan.workload.spec.request.method} {plan.workload.path}",
        "threshold": plan.threshold,
        "requests": plan.requests,
        "lock_path": plan.lock_path,
        "environment": dict(good.environment) if good is not None else {},
        "commits": rows,
        "order": list(attempts),  # the order the commits were tried in
        "steps": [{**s.to_record(), **dict(e)} for s, e in zip(result.steps, extra)],
        "change": round(result.change, 6),
        "verdict": result.verdict,
        "exit_status": result.exit_status,
        "counted": len(result.counted),
        "skipped": len(result.skipped),
        "seconds": round(seconds, 1),
    }
