"""Judging a same-session A/B decision: pure, paired values in, verdicts and the next step out.

What it owns: which signals are judged and which gate (:mod:`.signals`), each signal's decision
(:mod:`.decision`), the combined verdict, the exit status, and when to stop measuring.

The timed signals are judged group-sequentially: at planned looks (:class:`Looks`, after so many blocks),
each look spending an equal share of each signal's alpha (Bonferroni over the looks, so the false-regression
rate stays within alpha however the looks' results are correlated).  A look stops the decision when a gated
signal is a regression (the verdict is a regression whatever more blocks would show), or when every gated
signal is settled: its one-sided (1 - beta) bound rules out a worsening as large as the signal's ``detect``
(:mod:`.decision`); stopping on such a pass cannot add a false regression.  Otherwise the next look follows,
up to the last.  An unreached verdict at the last look (rerun, inconclusive) is retried with a fresh attempt
while ``retries`` are left, each attempt judged at alpha / (retries + 1).

The counted signal (instructions per request) is judged before any timed block (:func:`judge_counted`): a
regression there ends the decision, since any gated regression fails it.  The judge starts nothing:
:mod:`serverbench.gate.loop` alternates it with the runner, and a stored decision is judged again by :func:`rejudge`
with no server.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ..records.decisions import ABDecision, Decision, Measurement
from .cost import COST_MIN_EFFECT, judge_counts
from .decision import Policy, combine, decide, wilcoxon_min_pairs
from .memory import judge_growth
from .signals import GROWTH, Signal, alpha_shares, gated_signals, judged_signals, measured

COST = "cost"  # the counted signal: instructions per request of fresh runs per arm (not paired by block)
COST_LABEL = "instructions per request (counted)"
SYSTEM = "system"  # the counted system calls, connections and memory kept per request (judge/system.py)
SYSTEM_LABEL = "system calls, memory kept (counted)"

# The gate: a family-wise 1% false-failure budget per suite run, a 3% minimum effect, and a
# dispersion limit fitted to this machine (measured pair dispersion 2-17%; see docs/lab/measurements.md).
GATE_POLICY = Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)
UNREACHED = ("rerun", "inconclusive")  # verdicts that are no verdict: retried, never a pass
# A single count per arm ends the decision only beyond this: 6x the widest A/A spread of fresh counts
# measured over 12 variants (uvicorn, 0.52%; benchmarks/results/cost-spread.md).  Between the 1% floor and
# it, each arm is counted once more and the two counts' own spread sets the limit (judge.cost.judge_counts).
COST_CLEAR = 0.03


@dataclass(frozen=True)
class Looks:
    """When the judge looks: after ``blocks[0]``, ``blocks[1]``, ... blocks (the last: the most an attempt
    measures).  The first ``settle_only`` looks can only end the decision with a settled pass: they spend no
    alpha (stopping on a pass cannot add a false regression), and a regression seen there is looked at again.
    Every other look spends an equal share of every signal's alpha; each look before the last settles a signal
    at the one-sided bound of 1 - beta / (looks before the last)."""

    blocks: tuple[int, ...]
    beta: float = 0.05
    settle_only: int = 0

    def __post_init__(self) -> None:
        b = self.blocks
        if not b or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in b) or list(b) != sorted(set(b)):
            raise ValueError(f"looks {b!r}: give increasing whole numbers of blocks >= 1")
        if not 0 < self.beta < 1:
            raise ValueError(f"looks beta={self.beta!r}: a number in the open interval (0, 1)")
        s = self.settle_only
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < len(b):
            raise ValueError(f"looks settle_only={s!r}: a whole number of first looks >= 0, below the {len(b)} looks")

    def up_to(self, blocks: int) -> Looks:
        """These looks below ``blocks``, then ``blocks`` itself as the last (settle-only looks kept below it)."""
        kept = tuple(x for x in self.blocks if x < blocks)
        return replace(self, blocks=(*kept, blocks), settle_only=min(self.settle_only, len(kept)))

    @property
    def alpha_share(self) -> float:
        """The share of alpha each look that can find a regression spends."""
        return 1 / (len(self.blocks) - self.settle_only)

    def look(self, k: int) -> Look:
        """The ``k``-th look (0 first)."""
        last = k == len(self.blocks) - 1
        beta = None if last else self.beta / (len(self.blocks) - 1)
        return Look(k, len(self.blocks), self.alpha_share, beta, k < self.settle_only)


@dataclass(frozen=True)
class Look:
    """One look: its number (0 first) of ``of``, its share of alpha, the beta a signal settles at (None: the
    last look, which ends the decision whatever it finds), and whether it can only settle (no share of alpha)."""

    index: int
    of: int
    alpha_share: float
    beta: float | None
    settles_only: bool = False

    @property
    def last(self) -> bool:
        return self.beta is None

    @property
    def spent(self) -> float:
        """The share of alpha this look spends: none when it can only settle."""
        return 0.0 if self.settles_only else self.alpha_share


GATE_BLOCKS = 16  # the most blocks an attempt measures (one pair each when simultaneous): its last look
GATE_BETA = 0.05  # the chance, at a signal's detect, of an early pass (over the looks before the last)
# A settle-only look this early: quiet A/A pairs (sd of the log ratio <= ~6%) rule out a 10% worsening at 5 pairs,
# so a clear pass need not wait for the pairs a regression needs (10 for one cell).
SETTLE_BLOCKS = 5
ONE_LOOK = Look(0, 1, 1.0, None)  # the fixed design: one look at the whole alpha (decision files without looks)


def looks_for(policy: Policy, rate: bool, blocks: int, pairs_per_block: int = 1) -> Looks:
    """The gate's looks for at most ``blocks`` blocks: a settle-only look at SETTLE_BLOCKS (when below the
    next), then the first at the fewest blocks whose pairs can show a regression at half of alpha, the last at
    ``blocks``; a single look that can find one when ``blocks`` is not beyond the first."""
    first = min_blocks(policy, rate, pairs_per_block, looks=2)
    spending = (first, blocks) if first < blocks else (blocks,)
    settle = math.ceil(SETTLE_BLOCKS / pairs_per_block)
    if settle < spending[0]:
        return Looks((settle, *spending), GATE_BETA, settle_only=1)
    return Looks(spending, GATE_BETA)


@dataclass(frozen=True)
class Judgement:
    """Each judged signal's decision, which of them gate, and the look they were judged at."""

    decisions: Mapping[str, Decision]
    gated: tuple[str, ...]
    look: Look = ONE_LOOK

    @property
    def verdict(self) -> str:
        return combine({k: self.decisions[k] for k in self.gated})

    @property
    def settled(self) -> bool:
        """Every gated signal passed (or improved) and is settled: no regression the gate must catch remains."""
        return all(
            d.verdict == "improvement" or (d.verdict == "pass" and not d.borderline)
            for d in (self.decisions[k] for k in self.gated)
        )

    @property
    def stopped(self) -> str | None:
        """Why the decision ends at this look: "regression", "settled" or "last look"; None: look again.  A
        settle-only look ends it only settled."""
        if self.look.settles_only:
            return "settled" if self.settled else None
        if self.verdict == "regression":
            return "regression"
        if self.look.last:
            return "last look"
        return "settled" if self.settled else None


def judge(
    pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    rate: bool,
    policy: Policy,
    look: Look = ONE_LOOK,
) -> Judgement:
    """Decide every signal judged (``rate``: fixed-rate windows were measured) under the gate's ``policy``,
    alpha split over its cells and the gated signals, and over the looks (``look``).  A signal without pairs is
    judged on none (inconclusive).  Counted instructions per request (``pairs["cost"]``, when measured) gate
    too, judged by :func:`judge_counted`."""
    gated = measured(gated_signals(rate), pairs)
    decisions = {
        s.name: _decide(s, pairs, _at(s.policy(policy, alpha_shares(gated)), look))
        for s in measured(judged_signals(rate), pairs)
    }
    names = tuple(s.name for s in gated)
    if COST in pairs:  # counted, so judged by its A/A spread and no share of alpha
        decisions[COST] = judge_counted(*pairs[COST])
        names += (COST,)
    return Judgement(decisions, names, look)


def _at(policy: Policy, look: Look) -> Policy:
    """A signal's policy at ``look``: its share of alpha; settling at the look's beta (never at the last look)."""
    return replace(
        policy,
        alpha=policy.alpha * look.alpha_share,
        detect=None if look.beta is None else policy.detect,
        beta=policy.beta if look.beta is None else look.beta,
    )


def _decide(signal: Signal, pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]], policy: Policy) -> Decision:
    """One signal's decision: growth slopes as differences (judge.memory), every other signal as ratios."""
    base, cand = pairs.get(signal.name, ((), ()))
    return judge_growth(base, cand, policy) if signal.name == GROWTH else decide(base, cand, policy)


def judge_counted(base: Sequence[float], cand: Sequence[float]) -> Decision:
    """The counted signal: with two or more counts per arm, :func:`judge.cost.judge_counts` (their own spread sets
    the limit).  With one count per arm: a regression beyond COST_CLEAR, an improvement as far below; a pass
    within the 1% floor; between the two, inconclusive: count each arm once more."""
    if len(base) != 1 or len(cand) != 1:
        return judge_counts(base, cand)
    b, c = base[0], cand[0]
    delta, clear = c / b - 1, COST_CLEAR
    if delta > clear:
        verdict = "regression"
    elif delta < -clear:
        verdict = "improvement"
    elif abs(delta) <= COST_MIN_EFFECT:
        verdict = "pass"
    else:
        verdict = "inconclusive"
    said = {
        "regression": f"beyond the {clear:.0%} a single count per arm must exceed (fresh counts' A/A spread: 0.015-0.52%)",
        "improvement": f"below -{clear:.0%}",
        "pass": f"within the {COST_MIN_EFFECT:.0%} floor",
        "inconclusive": f"between the {COST_MIN_EFFECT:.0%} floor and {clear:.0%}: each arm is counted once more",
    }[verdict]
    reason = f"counted once per arm: {c:,.0f} vs {b:,.0f} instructions/request ({delta:+.2%}), {said}"
    return Decision(verdict, delta, (delta, delta), math.nan, 1, math.nan, False, reason)


def min_blocks(policy: Policy, rate: bool, pairs_per_block: int = 1, looks: int = 1) -> int:
    """Fewest blocks whose pairs can reach every gated signal's significance level at a look that spends
    1/``looks`` of alpha."""
    gated = gated_signals(rate)
    need = 1
    for s in gated:
        signal = _at(s.policy(policy, alpha_shares(gated)), Look(0, looks, 1 / looks, None))
        need = max(need, signal.min_pairs, wilcoxon_min_pairs(signal.cell_alpha))
    return math.ceil(need / pairs_per_block)


def exit_status(verdict: str, error_rate: Mapping[str, float], max_error_rate: float) -> int:
    """The gate's exit status: 1 regression or an arm's error rate over the limit, 3 not reached, else 0."""
    if max(error_rate.values(), default=0.0) > max_error_rate or verdict == "regression":
        return 1
    if verdict in UNREACHED:
        return 3
    return 0


PER_SIGNAL = (
    "higher_is_better",
    "detect",
    "beta",
)  # each signal's (its direction, what it settles at), and each look's


def policy_record(policy: Policy) -> dict[str, Any]:
    """The policy's limits as stored in a decision file (its direction and detect are each signal's)."""
    return {f.name: getattr(policy, f.name) for f in fields(Policy) if f.name not in PER_SIGNAL}


def stored_policy(decision: ABDecision) -> Policy:
    """The policy a stored decision was judged under; schema-1 files did not keep it: the gate's."""
    if not decision.policy:
        return GATE_POLICY
    names = set(policy_record(GATE_POLICY))
    return Policy(**{k: v for k, v in decision.policy.items() if k in names})


def decided(
    cell: str,
    measurement: Measurement,
    judgement: Judgement,
    *,
    policy: Policy,
    max_error_rate: float,
    looks: Looks | None = None,
    stopped: str | None = None,
) -> ABDecision:
    """The whole decision record; ``stopped``: why it ended (default: the judgement's reason)."""
    verdict = judgement.verdict
    return ABDecision(
        cell,
        measurement,
        judgement.decisions,
        judgement.gated,
        verdict,
        exit_status(verdict, measurement.error_rate, max_error_rate),
        False,
        policy_record(policy),
        max_error_rate,
        looks=None if looks is None else looks.blocks,
        settle_only=0 if looks is None else looks.settle_only,
        look=judgement.look.index,
        stopped=stopped or judgement.stopped,
    )


def with_system(judgement: Judgement, system: Decision | None) -> Judgement:
    """``judgement`` with the counted system decision (None: not counted); gated only where it was judged."""
    if system is None:
        return judgement
    gated = judgement.gated + ((SYSTEM,) if system.verdict != "inconclusive" else ())
    return Judgement({**judgement.decisions, SYSTEM: system}, gated, judgement.look)


def rejudge(stored: ABDecision, policy: Policy, max_error_rate: float) -> ABDecision:
    """Judge a stored decision's pairs again under ``policy``, at the look it stopped at (its share of alpha; a
    file without looks: the whole alpha); nothing is measured, so nothing is extended or retried.  A decision the
    counts ended is judged on its counts alone."""
    looks = None if not stored.looks else Looks(tuple(stored.looks), settle_only=stored.settle_only)
    look = ONE_LOOK if looks is None else looks.look(min(stored.look or 0, len(looks.blocks) - 1))
    pairs = stored.pairs
    if stored.stopped == "counted":
        judgement = Judgement(
            {COST: judge_counted(*pairs[COST])} if COST in pairs else {}, (COST,) * (COST in pairs), look
        )
    else:
        judgement = judge(pairs, stored.rate is not None, policy, look)
    judgement = with_system(judgement, stored.decisions.get(SYSTEM))  # counts: no policy changes their verdict
    return decided(
        stored.cell,
        stored.measurement,
        judgement,
        policy=policy,
        max_error_rate=max_error_rate,
        looks=looks,
        stopped=stored.stopped or judgement.stopped,
    )
