"""A same-session A/B decision: count, then measure blocks up to each look and judge, until the judge stops.

The loop between :mod:`serverbench.measure.trials.ab` (paired values, no verdicts) and :mod:`serverbench.judge.ab`
(verdicts, no processes).  First the counted signals (``plan.cost_repeats``: instructions per request of fresh
runs per arm under valgrind, and the same runs' system calls, connections and memory kept): one count per
arm, both at once, and a second when the first is ambiguous; a counted regression of either ends the
decision there (any gated regression fails it).  Then the timed blocks, judged at
each of the plan's looks: a regression or every signal settled ends it, else the next look follows, up to the
last.  An unreached verdict at the last look is retried while ``plan.retries`` are left.
``serverbench gate`` calls :func:`decide` (the decision and the records of its counts, which a cost regression's
attribution reuses); the tests call :func:`run`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

from ..judge.ab import COST, UNREACHED, Judgement, decided, judge, judge_counted, with_system
from ..judge.memory import growth_pairs
from ..judge.signals import GROWTH
from ..judge.system import KEPT_MIN_REQUESTS, as_decision, judge_system
from ..measure.trials.ab import count_arms, run_blocks
from ..records.cost import CostRecord
from ..records.decisions import ABDecision, Decision, Measurement
from .plan import ABPlan

Counts = tuple[tuple[float, ...], tuple[float, ...]]


@dataclass(frozen=True)
class Counted:
    """The counted runs of each arm, in the order they ran (their C functions kept)."""

    base: tuple[CostRecord, ...]
    candidate: tuple[CostRecord, ...]

    @property
    def counts(self) -> Counts:
        """Instructions per request of each run, per arm: the counted signal's pairs."""
        return tuple(r.per_request for r in self.base), tuple(r.per_request for r in self.candidate)

    @property
    def system(self) -> Decision:
        """The counted system calls, connections and memory kept of each arm's runs, judged (judge/system.py)."""
        absent = next((r.system_absent for r in self.base + self.candidate if r.system is None), "")
        verdict = judge_system(self.base, self.candidate, absent, min(r.kept_over for r in self.base + self.candidate))
        return as_decision(verdict, min(len(self.base), len(self.candidate)))

    @property
    def last(self) -> tuple[CostRecord, CostRecord]:
        """The last run of each arm (base, candidate): what a regression's attribution starts from."""
        return self.base[-1], self.candidate[-1]


def run(plan: ABPlan, on_retry: Callable[[ABDecision, int], None] | None = None) -> ABDecision:
    """The decision on ``plan``; ``on_retry(decision, blocks)`` is told each unreached decision before it is
    retried with ``blocks`` blocks."""
    return decide(plan, on_retry)[0]


def decide(
    plan: ABPlan, on_retry: Callable[[ABDecision, int], None] | None = None
) -> tuple[ABDecision, Counted | None]:
    """The decision on ``plan`` (as :func:`run`) and the counted runs it judged (None: no counted signal)."""
    started = time.monotonic()
    runs = counted(plan)
    counts = runs.counts if runs is not None else None
    count_s = time.monotonic() - started
    phases = {"count": count_s} if counts else {}
    policy = plan.attempt_policy
    looks = plan.looks
    system = runs.system if runs is not None else None
    judgement = with_system(Judgement({COST: judge_counted(*counts)}, (COST,)), system) if counts else None
    if judgement is not None and judgement.verdict == "regression":
        measurement = Measurement.of(
            plan.mode, (plan.base.label, plan.candidate.label), {COST: counts}, (), 0, 0, None, count_s, phases
        )
        decision = decided(
            plan.name,
            measurement,
            judgement,
            policy=policy,
            max_error_rate=plan.max_error_rate,
            looks=looks,
            stopped="counted",
        )
        return decision, runs

    def with_counts_and_growth(m: Measurement) -> Measurement:
        """The counts (measured once) and the growth pairs the judge reads off the windows (soaks only)."""
        slopes = growth_pairs(m.arms, m.windows)
        pairs = {k: v for k, v in m.pairs.items() if k != GROWTH}
        pairs |= {COST: counts} if counts else {}
        pairs |= {GROWTH: slopes} if slopes else {}
        return replace(m, pairs=pairs, phases=phases | dict(m.phases), seconds=time.monotonic() - started)

    attempt = 0
    while True:
        first = attempt * looks.blocks[-1]  # a retry's blocks get fresh hash seeds
        measured: Measurement | None = None
        for k, blocks in enumerate(looks.blocks):
            done = measured.blocks if measured is not None else 0
            more = run_blocks(plan, blocks - done, first + done, rate=None if measured is None else measured.rate)
            measured = more if measured is None else measured.plus(more)
            whole = with_counts_and_growth(measured)
            judgement = with_system(judge(whole.pairs, whole.rate is not None, policy, looks.look(k)), system)
            if judgement.stopped is not None:
                break
        decision = decided(plan.name, whole, judgement, policy=policy, max_error_rate=plan.max_error_rate, looks=looks)
        if decision.verdict not in UNREACHED or attempt >= plan.retries:
            return decision, runs
        if on_retry is not None:
            on_retry(decision, looks.blocks[-1])
        attempt += 1


def counted(plan: ABPlan) -> Counted | None:
    """The counted runs per arm: ``plan.cost_repeats`` counts each; with 1, a second count each when the first
    pair is ambiguous (between the 1% floor and the single-count limit).  None: no counted signal."""
    if plan.cost_repeats <= 0:
        return None
    kept = plan.kept_requests if plan.cost_requests < KEPT_MIN_REQUESTS else 0
    runs = Counted(*count_arms(plan, plan.cost_repeats, kept))
    if plan.cost_repeats == 1 and judge_counted(*runs.counts).verdict == "inconclusive":
        more = count_arms(plan, 1, kept)
        runs = Counted(runs.base + more[0], runs.candidate + more[1])
    return runs
