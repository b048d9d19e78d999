"""The A/B decision's limits, each pinned just inside and just outside (issue 22; docs/mutation.md)."""

import math

import numpy as np
import pytest
from scipy import stats

from serverbench.judge.ab import GATE_POLICY, exit_status
from serverbench.judge.decision import Policy, combine, decide


def _with_ratios(r):
    """Base 1000 and a candidate at base * exp(r) per pair: the log ratios are exactly ``r``."""
    base = [1000.0] * len(r)
    return base, [1000.0 * math.exp(x) for x in r]


def _spread(dispersion, n=12, shift=0.0):
    """Log ratios ``shift`` +- x_i with median ``shift`` and scaled MAD ``dispersion`` (x = dispersion / 1.4826);
    the x_i differ by 0.01% so that no two |ratios| tie (ties make scipy's Wilcoxon slow)."""
    x = dispersion / 1.4826
    return [shift + (1 if i % 2 else -1) * x * (1 + 1e-4 * (i - (n - 1) / 2)) for i in range(n)]


def test_the_interval_uses_the_two_sided_quantile():
    """The CI half-width is t(1 - alpha/2, n-1) * sd / sqrt(n), not t(1 - alpha)."""
    r = [0.01, -0.02, 0.03, 0.0, -0.01, 0.02, 0.015, -0.005]
    d = decide(*_with_ratios(r), Policy(alpha=0.05))
    half = stats.t.ppf(0.975, len(r) - 1) * np.std(r, ddof=1) / math.sqrt(len(r))
    assert d.ci[0] == pytest.approx(math.expm1(np.mean(r) - half), rel=1e-9)
    assert d.ci[1] == pytest.approx(math.expm1(np.mean(r) + half), rel=1e-9)


def test_exactly_min_pairs_pairs_are_enough_and_one_fewer_is_not():
    """n == min_pairs can reach a verdict (regression); n == min_pairs - 1 is inconclusive."""
    pol = Policy(alpha=0.1, min_pairs=6, min_effect=0.05)  # Wilcoxon floor 0.5**4 < 0.1: not the limit here
    drop = [-0.3, -0.31, -0.29, -0.305, -0.295, -0.3]
    assert decide(*_with_ratios(drop), pol).verdict == "regression"
    few = decide(*_with_ratios(drop[:5]), pol)
    assert few.verdict == "inconclusive" and "min_pairs=6" in few.reason


def test_the_wilcoxon_floor_is_a_strict_limit():
    """0.5**n must be below the cell's alpha: 0.5**5 = alpha is inconclusive, 0.5**6 < alpha is not."""
    pol = Policy(alpha=0.5**5, min_pairs=2, min_effect=0.05)
    drop = [-0.3, -0.31, -0.29, -0.305, -0.295, -0.3]
    assert decide(*_with_ratios(drop[:5]), pol).verdict == "inconclusive"
    assert decide(*_with_ratios(drop), pol).verdict == "regression"


def test_combine_says_rerun_before_inconclusive_and_both_before_improvement():
    """A noisy signal and a short one: rerun (the machine was noisy); either one outranks an improvement."""
    same = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7]
    noisy = decide(*_with_ratios(_spread(0.3, n=10)))
    few = decide(same[:3], same[:3])
    better = decide(same, [v * 1.2 for v in same])
    assert (noisy.verdict, few.verdict, better.verdict) == ("rerun", "inconclusive", "improvement")
    assert combine({"a": noisy, "b": few}) == "rerun"
    assert combine({"a": few, "b": noisy}) == "rerun"
    assert combine({"a": better, "b": few}) == "inconclusive"
    assert combine({"a": better, "b": noisy}) == "rerun"


def test_high_dispersion_does_not_hide_an_unmistakable_improvement():
    """A 40% gain on noisy pairs whose whole CI is beyond min_effect is an improvement, not rerun."""
    r = _spread(0.2, n=16, shift=math.log(1.4))
    d = decide(*_with_ratios(r), Policy(alpha=0.05, max_dispersion=0.10))
    assert d.dispersion > 0.10 and d.ci[0] > 0.05
    assert d.verdict == "improvement", d.reason


def test_high_dispersion_with_an_improvement_inside_min_effect_reruns():
    """Negative case: a noisy gain whose interval reaches below min_effect is not judged: rerun."""
    r = _spread(0.2, n=16, shift=math.log(1.08))
    d = decide(*_with_ratios(r), Policy(alpha=0.05, max_dispersion=0.10))
    assert d.dispersion > 0.10 and d.ci[0] < 0.05
    assert d.verdict == "rerun", d.reason


def test_gate_policy_dispersion_limit_is_fifteen_percent():
    """Under the gate's policy, unchanged pairs with dispersion 14.9% pass and 15.1% ask for a rerun."""
    assert decide(*_with_ratios(_spread(0.149)), GATE_POLICY).verdict == "pass"
    assert decide(*_with_ratios(_spread(0.151)), GATE_POLICY).verdict == "rerun"


def test_gate_policy_min_effect_is_three_percent():
    """A clean, significant 2.9% drop passes the gate (too small); a 3.1% drop is a regression."""

    def drop(effect):
        r = [math.log(1 - effect) + 0.0002 * (i - 5.5) for i in range(12)]
        return decide(*_with_ratios(r), GATE_POLICY).verdict

    assert drop(0.029) == "pass" and drop(0.031) == "regression"


def test_gate_policy_alpha_is_one_percent():
    """7 pairs of a clear drop reach the gate's alpha 0.01 (0.5**7 < 0.01); 6 pairs cannot (0.5**6 > 0.01)."""
    r = [-0.3 + 0.001 * i for i in range(7)]
    assert decide(*_with_ratios(r), GATE_POLICY).verdict == "regression"
    assert decide(*_with_ratios(r[:6]), GATE_POLICY).verdict == "inconclusive"


def test_exit_status_reads_both_arms_error_rates():
    """Either arm's error rate over the limit fails the gate, the base's as much as the candidate's."""
    assert exit_status("pass", {"base": 0.02, "candidate": 0.0}, 0.01) == 1
    assert exit_status("pass", {"base": 0.0, "candidate": 0.02}, 0.01) == 1
    assert exit_status("improvement", {"base": 0.02, "candidate": 0.0}, 0.01) == 1


def test_exit_status_error_limit_is_inclusive():
    """An error rate exactly at the limit passes; just over it fails; over it fails even an unreached verdict."""
    assert exit_status("pass", {"base": 0.01, "candidate": 0.01}, 0.01) == 0
    assert exit_status("pass", {"base": 0.0, "candidate": 0.0101}, 0.01) == 1
    assert exit_status("rerun", {"base": 0.0101, "candidate": 0.0}, 0.01) == 1
    assert exit_status("pass", {}, 0.01) == 0
