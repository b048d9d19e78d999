"""Judging a same-session A/B decision: pure, paired values in, verdicts and the next step out.

What it owns: which signals are judged and which gate (:mod:`.signals`), each signal's decision
(:mod:`.decision`), the combined verdict, the exit status, and when to measure more: a borderline
verdict on a signal that extends earns one extension (half as many blocks again), a verdict that
could not be reached (rerun, inconclusive) a fresh attempt with twice the blocks, up to ``retries``
times.  It starts nothing: :mod:`serverbench.ab` alternates it with the runner, and a stored decision
is judged again by :func:`rejudge` with no server.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ..records.decisions import ABDecision, Decision, Measurement
from .cost import judge_counts
from .decision import Policy, combine, decide, wilcoxon_min_pairs
from .memory import judge_growth
from .signals import GROWTH, SIGNALS, Signal, alpha_shares, gated_signals, judged_signals, measured

COST = "cost"  # the counted signal: instructions per request of fresh runs per arm (not paired by block)
COST_LABEL = "instructions per request (counted)"

# The gate: a family-wise 1% false-failure budget per suite run, a 3% minimum effect, and a
# dispersion limit fitted to this machine (measured pair dispersion 2-17%; see docs/measurements.md).
GATE_POLICY = Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)
GATE_BLOCKS = 12  # simultaneous: one pair per block (fresh processes), so 12 pairs, 18 when extended
UNREACHED = ("rerun", "inconclusive")  # verdicts that are no verdict: retried, never a pass


@dataclass(frozen=True)
class Judgement:
    """Each judged signal's decision, and which of them gate."""

    decisions: Mapping[str, Decision]
    gated: tuple[str, ...]

    @property
    def verdict(self) -> str:
        return combine({k: self.decisions[k] for k in self.gated})

    @property
    def borderline(self) -> bool:
        """A signal that extends has a borderline verdict: more pairs could change it."""
        return any(self.decisions[s.name].borderline for s in SIGNALS if s.extends and s.name in self.decisions)


def judge(pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]], rate: bool, policy: Policy) -> Judgement:
    """Decide every signal judged (``rate``: fixed-rate windows were measured) under the gate's ``policy``,
    alpha split over its cells and the gated signals.  A signal without pairs is judged on none (inconclusive).
    Counted instructions per request (``pairs["cost"]``, when measured) gate too, judged by :func:`judge_counts`."""
    gated = measured(gated_signals(rate), pairs)
    decisions = {
        s.name: _decide(s, pairs, s.policy(policy, alpha_shares(gated))) for s in measured(judged_signals(rate), pairs)
    }
    names = tuple(s.name for s in gated)
    if COST in pairs:  # counted, so judged by its A/A spread and no share of alpha
        decisions[COST] = judge_counts(*pairs[COST])
        names += (COST,)
    return Judgement(decisions, names)


def _decide(signal: Signal, pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]], policy: Policy) -> Decision:
    """One signal's decision: growth slopes as differences (judge.memory), every other signal as ratios."""
    base, cand = pairs.get(signal.name, ((), ()))
    return judge_growth(base, cand, policy) if signal.name == GROWTH else decide(base, cand, policy)


def min_blocks(policy: Policy, rate: bool, pairs_per_block: int = 1) -> int:
    """Fewest blocks whose pairs can reach every gated signal's significance level."""
    gated = gated_signals(rate)
    need = max(
        max(
            s.policy(policy, alpha_shares(gated)).min_pairs,
            wilcoxon_min_pairs(s.policy(policy, alpha_shares(gated)).cell_alpha),
        )
        for s in gated
    )
    return math.ceil(need / pairs_per_block)


@dataclass(frozen=True)
class Step:
    """What the judge asks for next: ``blocks`` more blocks from ``first_block`` added to the pairs
    (``extend``), or a fresh attempt of ``blocks`` blocks."""

    extend: bool
    blocks: int
    first_block: int = 0


def next_step(
    judgement: Judgement, *, blocks: int, extended: bool, attempt: int, extend: bool, retries: int
) -> Step | None:
    """After judging attempt number ``attempt`` (0 first) of ``blocks`` blocks: extend once when borderline,
    else retry with twice the blocks while the verdict was not reached and retries are left, else done (None)."""
    if extend and not extended and judgement.borderline:
        return Step(True, max(1, blocks // 2), first_block=blocks)
    if judgement.verdict in UNREACHED and attempt < max(retries, 0):
        return Step(False, blocks * 2)
    return None


def exit_status(verdict: str, error_rate: Mapping[str, float], max_error_rate: float) -> int:
    """The gate's exit status: 1 regression or an arm's error rate over the limit, 3 not reached, else 0."""
    if max(error_rate.values(), default=0.0) > max_error_rate or verdict == "regression":
        return 1
    if verdict in UNREACHED:
        return 3
    return 0


def policy_record(policy: Policy) -> dict[str, Any]:
    """The policy's limits as stored in a decision file (its direction is each signal's)."""
    return {f.name: getattr(policy, f.name) for f in fields(Policy) if f.name != "higher_is_better"}


def stored_policy(decision: ABDecision) -> Policy:
    """The policy a stored decision was judged under; schema-1 files did not keep it: the gate's."""
    if not decision.policy:
        return GATE_POLICY
    names = set(policy_record(GATE_POLICY))
    return Policy(**{k: v for k, v in decision.policy.items() if k in names})


def decided(
    cell: str, measurement: Measurement, judgement: Judgement, *, extended: bool, policy: Policy, max_error_rate: float
) -> ABDecision:
    """The whole decision record."""
    verdict = judgement.verdict
    return ABDecision(
        cell,
        measurement,
        judgement.decisions,
        judgement.gated,
        verdict,
        exit_status(verdict, measurement.error_rate, max_error_rate),
        extended,
        policy_record(policy),
        max_error_rate,
    )


def rejudge(stored: ABDecision, policy: Policy, max_error_rate: float) -> ABDecision:
    """Judge a stored decision's pairs again under ``policy``; nothing is measured, so a borderline verdict
    is not extended and an unreached one not retried."""
    judgement = judge(stored.pairs, stored.rate is not None, policy)
    return decided(
        stored.cell,
        stored.measurement,
        judgement,
        extended=stored.extended,
        policy=policy,
        max_error_rate=max_error_rate,
    )
