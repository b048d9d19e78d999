"""A bisection on the counted cost: count the range's two ends, then each commit the judge asks for, until it
has found every step.

The loop between :mod:`serverbench.measure.bisect` (one commit counted, or skipped with its reason) and
:mod:`serverbench.judge.bisect` (which commit next, and what the counts say).  The ends are counted at the
same time; an end that cannot be counted stops the bisection with what to do instead.
``serverbench bisect`` (:mod:`serverbench.cli.bisect`) and the tests call :func:`run`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Callable

from ..errors import ConfigError
from ..judge.bisect import Bisection, bisection, next_commit
from ..measure.bisect import Attempt, count_both, count_commit
from ..measure.lockenv import Environments
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
