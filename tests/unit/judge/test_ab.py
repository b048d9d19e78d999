"""The A/B judge on synthetic pairs: which signals are judged, the verdict, when a look stops, min_blocks."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverbench.judge.ab import (
    GATE_BLOCKS,
    GATE_POLICY,
    Looks,
    exit_status,
    judge,
    judge_counted,
    looks_for,
    min_blocks,
)
from serverbench.judge.decision import Policy, _decide_batch
from tests.unit.fuzzing import fuzz

SAME = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7, 100.0, 100.4]


def _pairs(throughput=1.0, cpu=1.0, p50=1.0, n=12, seed=1):
    """Paired values per signal: the candidate is the base times each factor, with 1% noise."""
    rng = np.random.default_rng(seed)

    def pair(level, factor):
        base = level * np.exp(rng.normal(0, 0.01, n))
        return tuple(base), tuple(base * factor * np.exp(rng.normal(0, 0.01, n)))

    return {
        "throughput": pair(10_000, throughput),
        "cpu": pair(80, cpu),
        "p50": pair(1.0, p50),
        "p90": pair(2.0, p50),
        "rss": pair(44.0, 1.0),
    }


def test_identical_arms_pass_on_every_judged_signal():
    """A/A pairs: every signal is judged, none regresses, the verdict is pass; peak RSS is judged, not gated."""
    j = judge(_pairs(), True, GATE_POLICY)
    assert set(j.decisions) == {"throughput", "p50", "p90", "cpu", "rss"}
    assert j.gated == ("throughput", "p50", "p90", "cpu")
    assert j.verdict == "pass", {k: d.summary() for k, d in j.decisions.items()}


def test_a_cpu_regression_alone_fails_the_decision():
    """CPU per request 10% worse, throughput unchanged: the combined verdict is regression."""
    j = judge(_pairs(cpu=1.10), True, GATE_POLICY)
    assert j.decisions["cpu"].verdict == "regression" and j.decisions["throughput"].verdict == "pass"
    assert j.verdict == "regression"


def test_without_fixed_rate_windows_latency_is_neither_judged_nor_gated():
    """rate=False: throughput, CPU and RSS are judged, throughput and CPU gate (alpha split over two)."""
    j = judge(_pairs(), False, GATE_POLICY)
    assert set(j.decisions) == {"throughput", "cpu", "rss"} and j.gated == ("throughput", "cpu")


def test_a_signal_without_pairs_is_inconclusive_never_pass():
    """Every pair of a signal discarded: it is judged on none, and the decision is inconclusive."""
    pairs = _pairs()
    del pairs["p50"]
    j = judge(pairs, True, GATE_POLICY)
    assert j.decisions["p50"].verdict == "inconclusive" and j.decisions["p50"].n == 0
    assert j.verdict == "inconclusive"


def test_a_drop_near_detect_is_not_settled_and_looks_again():
    """At a settle-only look, a 12% drop over 5 pairs is not settled (its bound reaches the 10% detect) and cannot
    be a regression yet: the judge looks again."""
    first = Looks((5, 10, 16), settle_only=1).look(0)
    j = judge(_pairs(throughput=0.88, n=5, seed=3), True, GATE_POLICY, first)
    assert j.decisions["throughput"].verdict == "inconclusive"
    assert not j.settled and j.stopped is None


def test_identical_arms_settle_at_the_first_look():
    """A/A pairs with 1% noise: every gated signal rules out its detect at the first look, which ends the decision."""
    j = judge(_pairs(n=10), True, GATE_POLICY, Looks((10, 16)).look(0))
    assert j.settled and j.stopped == "settled" and j.verdict == "pass"


def test_a_regression_stops_at_the_first_look():
    """A 20% throughput drop at the first look ends the decision with a regression."""
    j = judge(_pairs(throughput=0.8, n=10), True, GATE_POLICY, Looks((10, 16)).look(0))
    assert j.verdict == "regression" and j.stopped == "regression"


def test_min_blocks_reaches_every_gated_signals_level():
    """alpha 0.01 over 4 gated signals needs 9 pairs (0.5**9 < 0.0025): 9 simultaneous or 5 sequential blocks."""
    assert min_blocks(GATE_POLICY, True, 1) == 9
    assert min_blocks(GATE_POLICY, True, 2) == 5
    assert min_blocks(GATE_POLICY, False, 1) == 8  # alpha / 2 signals: 0.5**8 < 0.005
    assert min_blocks(Policy(alpha=0.01, cells=10, min_effect=0.03), True, 1) > 9


def test_exit_status_of_verdicts_and_error_rates():
    """0 pass/improvement, 1 regression or an arm's error rate over the limit, 3 rerun/inconclusive."""
    clean = {"base": 0.0, "candidate": 0.0}
    assert [exit_status(v, clean, 0.01) for v in ("pass", "improvement", "regression", "rerun", "inconclusive")] == [
        0,
        0,
        1,
        3,
        3,
    ]
    assert exit_status("pass", {"base": 0.0, "candidate": 0.02}, 0.01) == 1


@fuzz(200)
@given(st.lists(st.integers(1, 200), min_size=1, max_size=6, unique=True), st.floats(0.001, 0.5))
def test_the_looks_spend_alpha_and_beta_once(blocks, beta):
    """Whatever the looks, their shares of alpha add up to the whole alpha, the looks before the last share beta,
    and only the last look ends without settling."""
    looks = Looks(tuple(sorted(blocks)), beta, settle_only=len(blocks) // 2)
    each = [looks.look(k) for k in range(len(looks.blocks))]
    assert math.isclose(sum(look.spent for look in each), 1.0)
    assert [look.settles_only for look in each] == [k < len(blocks) // 2 for k in range(len(each))]
    assert math.isclose(sum(look.beta for look in each[:-1]), beta if len(each) > 1 else 0.0)
    assert [look.last for look in each] == [False] * (len(each) - 1) + [True]


@fuzz(200)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=5, unique=True), st.integers(1, 80))
def test_looks_up_to_end_at_the_blocks_given(blocks, most):
    """``up_to`` keeps the looks below the most blocks and ends with it."""
    looks = Looks(tuple(sorted(blocks))).up_to(most)
    assert looks.blocks[-1] == most and all(b < most for b in looks.blocks[:-1])


def test_looks_refuse_blocks_out_of_order_and_beta_out_of_range():
    """Looks are increasing whole numbers of blocks, beta in (0, 1)."""
    for bad in ((), (10, 10), (16, 10), (0, 5), (True, 5)):
        with pytest.raises(ValueError, match="increasing whole numbers of blocks"):
            Looks(bad)
    with pytest.raises(ValueError, match="beta"):
        Looks((10,), beta=1.0)


def test_the_gate_looks_first_where_half_of_alpha_can_be_reached():
    """After a settle-only look at 5 blocks, the first look that can find a regression is at the fewest blocks
    whose pairs can show one at half of alpha: 10 for one cell (0.5**10 < 0.01 / 4 signals / 2 looks), more for
    three cells; one look when the blocks do not reach beyond it."""
    looks = looks_for(GATE_POLICY, True, GATE_BLOCKS)
    assert looks.blocks == (5, 10, GATE_BLOCKS) and looks.settle_only == 1
    assert looks_for(replace(GATE_POLICY, cells=3), True, GATE_BLOCKS).blocks == (5, 12, GATE_BLOCKS)
    assert looks_for(GATE_POLICY, True, 9).blocks == (5, 9) and looks_for(GATE_POLICY, True, 5).blocks == (5,)
    assert looks_for(GATE_POLICY, False, 12).blocks == (5, 9, 12)  # two signals share alpha without fixed-rate windows
    assert looks_for(GATE_POLICY, True, GATE_BLOCKS, pairs_per_block=2).blocks == (3, 5, GATE_BLOCKS)


def test_a_settle_only_look_ends_a_decision_only_settled():
    """At a settle-only look a 40% drop does not stop the decision (that look spends no alpha) and quiet A/A
    pairs settle it; the next look stops on the drop."""
    looks = Looks((5, 10, 16), settle_only=1)
    drop = judge(_pairs(throughput=0.6, n=5), True, GATE_POLICY, looks.look(0))
    assert drop.stopped is None
    assert judge(_pairs(n=5), True, GATE_POLICY, looks.look(0)).stopped == "settled"
    assert judge(_pairs(throughput=0.6, n=10), True, GATE_POLICY, looks.look(1)).stopped == "regression"
    with pytest.raises(ValueError, match="settle_only"):
        Looks((5,), settle_only=1)


def test_looking_twice_keeps_the_false_regression_rate_within_alpha():
    """2,000 A/A runs of 16 pairs, looked at after 10 and 16 at half of alpha 0.05 each, no minimum effect: a
    regression at either look in at most 5% of runs (the union bound), though the looks share their first pairs."""
    rng = np.random.default_rng(5)
    base = 1000 * np.exp(rng.normal(0, 0.05, (2000, 16)))
    cand = base * np.exp(rng.normal(0, 0.05, (2000, 16)))
    looks = Looks((10, 16))
    flagged = np.zeros(2000, dtype=bool)
    for k, n in enumerate(looks.blocks):
        policy = Policy(alpha=0.05 * looks.look(k).alpha_share, min_effect=0.0, max_dispersion=math.inf)
        flagged |= [d.verdict == "regression" for d in _decide_batch(base[:, :n], cand[:, :n], policy)]
    print(f"A/A, two looks at alpha 0.05: {flagged.mean():.4f}")  # measured: see the assertion's margin
    assert flagged.mean() <= 0.05


def test_a_regression_stops_at_any_look_and_the_last_look_always_stops():
    """A 20% drop stops at the first look; a 2% drop (below min_effect) at the last look passes there."""
    looks = Looks((10, 16))
    assert judge(_pairs(throughput=0.8, n=10), True, GATE_POLICY, looks.look(0)).stopped == "regression"
    noisy = judge(_pairs(throughput=0.98, n=16, seed=3), True, GATE_POLICY, looks.look(1))
    assert noisy.stopped == "last look" and noisy.verdict == "pass"


def test_counted_once_per_arm_stops_only_beyond_the_clear_limit():
    """One count per arm: +3.5% is a regression, +0.5% a pass, +2% needs a second count, -4% an improvement."""
    verdicts = [judge_counted((1000.0,), (1000.0 * (1 + d),)).verdict for d in (0.035, 0.005, 0.02, -0.04)]
    assert verdicts == ["regression", "pass", "inconclusive", "improvement"]
    two = judge_counted((1000.0, 1000.5), (1020.0, 1020.3))  # +2% against a 0.05% spread: the 1% floor
    assert two.verdict == "regression" and two.n == 2
