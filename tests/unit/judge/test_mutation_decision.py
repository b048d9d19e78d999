"""The A/B decision's rules at exact equality (issue 22, mutation survivors).

``_verdict`` takes the statistics themselves (mean log ratio, CI half-width, dispersion, p on each side),
so each limit can be met exactly: a statistic equal to its limit is on the documented side of it."""

import math

import pytest

from serverbench.judge.decision import Policy, _verdict, wilcoxon_min_pairs

A = 0.05  # Policy()'s alpha, one cell
MEAN = math.log(0.8)  # throughput 20% lower: worse by 20% (higher is better)
HALF = 0.05


def _worse_by(mean):
    return -math.expm1(mean)


def _judge(pol=None, n=10, mean=MEAN, half=HALF, disp=0.0, p=0.001, p_better=0.999):
    return _verdict(pol or Policy(), n, 5, mean, half, 0.0, disp, p, p_better)


def test_a_regression_needs_p_below_alpha_not_equal():
    """p exactly alpha is not significant (pass); just below it is a regression."""
    assert _judge(p=A).verdict == "pass"
    assert _judge(p=A * 0.999).verdict == "regression"


def test_a_worsening_of_exactly_min_effect_is_a_regression():
    """A significant worsening equal to min_effect is a regression (the limit is inclusive)."""
    assert _judge(Policy(min_effect=_worse_by(MEAN))).verdict == "regression"


def test_a_regression_is_borderline_only_when_its_interval_reaches_below_min_effect():
    """CI's best end exactly at min_effect: not borderline; min_effect just above it: borderline."""
    best = _worse_by(MEAN + HALF)
    assert _judge(Policy(min_effect=best)).borderline is False
    assert _judge(Policy(min_effect=best * 1.001)).borderline is True


def test_lower_is_better_regression_borderline_reads_the_lower_end():
    """Latency (lower is better): the interval's lower end is the best case of a regression."""
    mean = math.log(1.2)
    pol = Policy(min_effect=math.expm1(mean - HALF), higher_is_better=False)
    d = _judge(pol, mean=mean)
    assert d.verdict == "regression" and d.borderline is False
    assert _judge(Policy(min_effect=math.expm1(mean - HALF) * 1.001, higher_is_better=False), mean=mean).borderline


def test_an_improvement_needs_p_below_alpha_not_equal():
    """p(better) exactly alpha is a pass; just below it an improvement."""
    mean = math.log(1.2)
    assert _judge(mean=mean, p=0.999, p_better=A).verdict == "pass"
    assert _judge(mean=mean, p=0.999, p_better=A * 0.999).verdict == "improvement"


def test_an_improvement_of_exactly_min_effect_counts():
    """A significant gain equal to min_effect is an improvement."""
    mean = math.log(1.2)
    assert _judge(Policy(min_effect=math.expm1(mean)), mean=mean, p=0.999, p_better=0.001).verdict == "improvement"


def test_an_improvement_is_borderline_only_when_its_interval_reaches_below_min_effect():
    """The gain's worst end exactly at min_effect: not borderline; min_effect just above: borderline."""
    mean = math.log(1.2)
    low = math.expm1(mean - HALF)
    assert _judge(Policy(min_effect=low), mean=mean, p=0.999, p_better=0.001).borderline is False
    assert _judge(Policy(min_effect=low * 1.001), mean=mean, p=0.999, p_better=0.001).borderline is True


def test_a_pass_is_borderline_when_its_interval_reaches_min_effect():
    """A pass whose CI's worse end equals min_effect is borderline; one whose end falls short is not."""
    worst = _worse_by(MEAN - HALF)
    assert _judge(Policy(min_effect=worst), p=0.5).borderline is True
    assert _judge(Policy(min_effect=worst * 1.001), p=0.5).borderline is False


def test_dispersion_equal_to_its_limit_is_judged():
    """Dispersion exactly max_dispersion is judged; just above it asks for a rerun (p not significant)."""
    assert _judge(disp=0.10, p=0.5).verdict == "pass"
    assert _judge(disp=0.1001, p=0.5).verdict == "rerun"


def test_noise_does_not_hide_a_regression_whose_interval_clears_min_effect():
    """Noisy pairs: significant and CI's best end exactly at min_effect is still a regression, not rerun."""
    assert _judge(Policy(min_effect=_worse_by(MEAN + HALF)), disp=0.5).verdict == "regression"
    assert _judge(Policy(min_effect=_worse_by(MEAN + HALF)), disp=0.5, p=A).verdict == "rerun"


def test_noise_does_not_hide_an_improvement_whose_interval_clears_min_effect():
    """Noisy pairs: a significant gain whose CI's worst end equals min_effect is an improvement."""
    mean = math.log(1.2)
    pol = Policy(min_effect=math.expm1(mean - HALF))
    assert _judge(pol, mean=mean, disp=0.5, p=0.999, p_better=0.001).verdict == "improvement"
    assert _judge(pol, mean=mean, disp=0.5, p=0.999, p_better=A).verdict == "rerun"


def test_min_pairs_is_enough():
    """Exactly min_pairs pairs are judged; one fewer is inconclusive."""
    assert _judge(n=5).verdict == "regression"
    assert _judge(n=4).verdict == "inconclusive"


def test_the_wilcoxon_floor_count_is_enough():
    """Exactly the Wilcoxon floor's pair count is judged; one fewer is inconclusive."""
    pol = Policy(min_pairs=2)
    assert _verdict(pol, 5, 5, MEAN, HALF, 0.0, 0.0, 0.001, 0.999).verdict == "regression"
    d = _verdict(pol, 4, 5, MEAN, HALF, 0.0, 0.0, 0.001, 0.999)
    assert d.verdict == "inconclusive"
    assert d.reason.startswith("With n=4 pairs the exact Wilcoxon floor 0.5**4=0.0625 is not below the per-cell")


def test_wilcoxon_min_pairs_is_the_first_count_below_alpha():
    """0.5**n must be strictly below the per-cell alpha: 0.0625 = 0.5**4 needs 5 pairs; 0.05 needs 5."""
    assert wilcoxon_min_pairs(0.0625) == 5
    assert wilcoxon_min_pairs(0.05) == 5
    assert wilcoxon_min_pairs(0.6) == 1


def test_reasons_name_the_numbers_of_each_verdict():
    """Each verdict's reason states its amounts unsigned where the word gives the direction."""
    d = _judge()
    assert d.reason.startswith(
        "Candidate is 20.0% worse, significant at per-cell alpha 0.05 and at least min_effect 5.0% (Δ -20.0% (CI "
    )
    assert _judge(disp=0.5, p=0.5).reason.startswith(
        "Dispersion of per-pair log ratios 50.0% exceeds max_dispersion 10.0%; the machine was too noisy"
    )
    better = _judge(mean=math.log(1.2), p=0.999, p_better=0.001).reason
    assert better.startswith(
        "Candidate is 20.0% better, significant in the better direction (p=0.0010) at "
        "per-cell alpha 0.05 and at least min_effect 5.0% (Δ +20.0% (CI +14.1%..+26.2%, "
        "median pair +0.0%), one-sided p(worse)=0.9990, n=10)."
    )
    assert _judge(p=0.5).reason.startswith("No regression: the worsening is not significant at per-cell")
    assert _judge(mean=math.log(1.01), p=0.001).reason.startswith(
        "No regression: the change is smaller than min_effect 5.0% at per-cell"
    )
    assert _judge(mean=math.log(0.99), p=0.001).reason.startswith("No regression: the worsening is smaller")


def test_a_decision_carries_its_statistics():
    """The decision keeps delta, the interval (low, high), p, n and dispersion as given."""
    d = _judge(disp=0.07)
    assert d.delta == pytest.approx(-0.2) and d.n == 10 and d.p == 0.001 and d.dispersion == 0.07
    assert d.ci == (pytest.approx(math.expm1(MEAN - HALF)), pytest.approx(math.expm1(MEAN + HALF)))
    assert _judge(n=4).borderline is False


def test_a_pass_at_p_exactly_alpha_says_not_significant():
    """A 20% drop at p exactly alpha passes because it is not significant, and its reason says so."""
    d = _judge(p=A)
    assert d.verdict == "pass" and "is not significant at per-cell alpha" in d.reason


def test_a_pass_with_no_change_at_all_calls_it_a_change_not_a_worsening():
    """Mean log ratio exactly 0 (worse by 0%): the reason speaks of 'the change', not of a worsening."""
    d = _judge(mean=0.0, p=0.5)
    assert d.verdict == "pass" and d.reason.startswith("No regression: the change is not significant")
