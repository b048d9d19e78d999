"""A same-session A/B decision: measure the plan's blocks, judge the pairs, measure more while the judge asks.

The loop between :mod:`serverbench.measure.ab` (paired values, no verdicts) and :mod:`serverbench.judge.ab`
(verdicts, no processes): a borderline verdict earns one extension of the same attempt, an unreached one
a fresh attempt with twice the blocks.  Counted instructions per request (``plan.cost_repeats`` fresh
runs per arm) are measured once, before the timed blocks, and judged with them.
``serverbench gate`` and the tests call :func:`run`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from .abplan import ABPlan
from .judge.ab import COST, decided, judge, next_step
from .judge.memory import growth_pairs
from .judge.signals import GROWTH
from .measure.ab import count_arms, run_blocks
from .records.decisions import ABDecision, Measurement


def run(plan: ABPlan, on_retry: Callable[[ABDecision, int], None] | None = None) -> ABDecision:
    """The decision on ``plan``; ``on_retry(decision, blocks)`` is told each unreached decision before it is
    retried with ``blocks`` blocks."""
    blocks, attempt, extended = plan.blocks, 0, False
    counts = {COST: count_arms(plan, plan.cost_repeats)} if plan.cost_repeats > 0 else {}

    def with_counts(m: Measurement) -> Measurement:  # measured once: counts do not depend on the attempt
        return replace(m, pairs={**m.pairs, **counts})

    def with_growth(m: Measurement) -> Measurement:
        """The growth pairs the judge reads off the windows (soaks only): over every block, extensions too."""
        slopes = growth_pairs(m.arms, m.windows)
        pairs = {k: v for k, v in m.pairs.items() if k != GROWTH}
        return replace(m, pairs={**pairs, GROWTH: slopes} if slopes else pairs)

    measured = with_growth(with_counts(run_blocks(plan, blocks)))
    while True:
        judgement = judge(measured.pairs, measured.rate is not None, plan.policy)
        decision = decided(
            plan.name, measured, judgement, extended=extended, policy=plan.policy, max_error_rate=plan.max_error_rate
        )
        step = next_step(
            judgement, blocks=blocks, extended=extended, attempt=attempt, extend=plan.extend, retries=plan.retries
        )
        if step is None:
            return decision
        if step.extend:
            measured = with_growth(measured.plus(run_blocks(plan, step.blocks, step.first_block, rate=measured.rate)))
            extended = True
            continue
        if on_retry is not None:
            on_retry(decision, step.blocks)
        blocks, attempt, extended = step.blocks, attempt + 1, False
        measured = with_growth(with_counts(run_blocks(plan, blocks)))
