"""The A/B decision's p: the larger of the one-sided t-test's and the Wilcoxon signed-rank test's p, the Wilcoxon
exactly as scipy's method='auto' gives it (exact only without zeros or ties and up to 50 pairs; otherwise a
permutation or the normal approximation).  The decision's fast path must not change which of them a series gets."""
import numpy as np
import pytest
from scipy import stats

from serverbench.judge.decision import decide

BASE = 1000.0


def _expected_p(base, cand):
    """p(worse) by the documented rule, from scipy alone (throughput: a lower candidate is worse)."""
    s = -(np.log(cand) - np.log(base))
    return max(stats.ttest_1samp(s, 0.0, alternative="greater").pvalue,
               stats.wilcoxon(s, alternative="greater").pvalue)


def _skewed(seed, n, shift=0.035):
    """Per-pair slowdowns with a long tail: the Wilcoxon p is the larger, so it is the decision's p."""
    return np.random.default_rng(seed).exponential(0.05, n) - shift


def _check(s):
    base = np.full(len(s), BASE)
    cand = BASE * np.exp(-np.asarray(s))
    cand[np.asarray(s) == 0] = BASE  # a zero ratio exactly
    s_used = -(np.log(cand) - np.log(base))
    assert stats.wilcoxon(s_used, alternative="greater").pvalue > stats.ttest_1samp(
        s_used, 0.0, alternative="greater").pvalue  # the Wilcoxon p decides
    assert decide(base, cand).p == pytest.approx(_expected_p(base, cand), rel=1e-12)


def test_twenty_pairs_with_a_tie_get_scipys_normal_approximation():
    """Twenty pairs, two of them the same ratio: the p is scipy's (the normal approximation), not the exact table's."""
    s = np.round(_skewed(0, 20, 0.04), 3)
    s[1] = s[0]
    assert stats.wilcoxon(s, alternative="greater", method="exact").pvalue != pytest.approx(
        stats.wilcoxon(s, alternative="greater").pvalue, rel=1e-3)
    _check(s)


def test_twenty_pairs_with_one_unchanged_pair_get_scipys_p():
    """Twenty pairs, one of them unchanged (ratio 1, no other tie): the p is scipy's, not the exact table's."""
    s = _skewed(0, 20)
    s[5] = 0.0
    assert len(set(np.abs(s))) == 20
    _check(s)


def test_fifty_one_pairs_get_scipys_normal_approximation():
    """51 distinct ratios: one past the exact test's 50, the p is the normal approximation's, as scipy's."""
    s = _skewed(0, 51)
    assert stats.wilcoxon(s, alternative="greater", method="exact").pvalue != pytest.approx(
        stats.wilcoxon(s, alternative="greater").pvalue, rel=1e-3)
    _check(s)


def test_a_clean_series_gets_the_exact_wilcoxon_p():
    """Twenty distinct nonzero ratios: the exact Wilcoxon p (scipy's choice too)."""
    _check(_skewed(1, 20))
