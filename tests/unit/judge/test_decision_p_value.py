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
    return max(stats.ttest_1samp(s, 0.0, alternative="greater").pvalue, stats.wilcoxon(s, alternative="greater").pvalue)


def _skewed(seed, n, shift=0.035):
    """Per-pair slowdowns with a long tail: the Wilcoxon p is the larger, so it is the decision's p."""
    return np.random.default_rng(seed).exponential(0.05, n) - shift


def _check(s):
    base = np.full(len(s), BASE)
    cand = BASE * np.exp(-np.asarray(s))
    cand[np.asarray(s) == 0] = BASE  # a zero ratio exactly
    s_used = -(np.log(cand) - np.log(base))
    assert (
        stats.wilcoxon(s_used, alternative="greater").pvalue
        > stats.ttest_1samp(s_used, 0.0, alternative="greater").pvalue
    )  # the Wilcoxon p decides
    assert decide(base, cand).p == pytest.approx(_expected_p(base, cand), rel=1e-12)


def test_twenty_pairs_with_a_tie_get_scipys_normal_approximation():
    """Twenty pairs, two of them the same ratio: the p is scipy's (the normal approximation), not the exact table's."""
    s = np.round(_skewed(0, 20, 0.04), 3)
    s[1] = s[0]
    assert stats.wilcoxon(s, alternative="greater", method="exact").pvalue != pytest.approx(
        stats.wilcoxon(s, alternative="greater").pvalue, rel=1e-3
    )
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
        stats.wilcoxon(s, alternative="greater").pvalue, rel=1e-3
    )
    _check(s)


def test_a_clean_series_gets_the_exact_wilcoxon_p():
    """Twenty distinct nonzero ratios: the exact Wilcoxon p (scipy's choice too)."""
    _check(_skewed(1, 20))


def _one_outlier(direction):
    """Twenty pairs: nineteen about 8% one way, one 40% the other way; the t-test's p is then the larger."""
    s = np.asarray(list(0.08 + np.random.default_rng(5).normal(0, 0.01, 19)) + [-0.4])
    return np.full(20, BASE), BASE * np.exp(-direction * s)


def test_when_the_t_test_is_the_larger_p_it_is_the_one_sided_t_test_with_n_minus_1_degrees():
    """A slowdown with one opposite outlier: p(worse) is the one-sided t-test's (19 degrees of freedom), 0.0178."""
    base, cand = _one_outlier(+1)
    d = decide(base, cand)
    s = -(np.log(cand) - np.log(base))
    assert d.p == pytest.approx(stats.ttest_1samp(s, 0.0, alternative="greater").pvalue, rel=1e-12)
    assert d.verdict == "regression" and round(d.p, 4) == 0.0178


def test_an_improvements_reason_states_its_own_one_sided_p():
    """The mirror image is an improvement whose reason gives p(better) from the t-test, 0.0178."""
    d = decide(*_one_outlier(-1))
    assert d.verdict == "improvement" and "better direction (p=0.0178)" in d.reason


def test_the_batch_path_gives_each_row_its_own_t_test():
    """Two rows judged together (the simulations' path) get the same decisions as each alone."""
    from serverbench.judge.decision import _decide_batch

    (base, worse), (_, better) = _one_outlier(+1), _one_outlier(-1)
    both = _decide_batch(np.vstack([base, base]), np.vstack([worse, better * 1.01]))
    assert both == [decide(base, worse), decide(base, better * 1.01)]
