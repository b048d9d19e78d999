"""Unit tests for serverbench.judge.signed_rank: scipy's Wilcoxon p, counted exactly where scipy enumerates flips."""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats

from serverbench.judge import signed_rank
from serverbench.judge.signed_rank import PERMUTATION_MAX_N, flips_p, signed_rank_p
from tests.unit.fuzzing import fuzz

ALTERNATIVES = ("greater", "less", "two-sided")
# Few distinct magnitudes, so zeros and ties are common.
TIED = st.lists(
    st.sampled_from([-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0]), min_size=2, max_size=PERMUTATION_MAX_N
)


# Values with few magnitudes (zeros and ties) and many (none), for samples shorter and longer than scipy enumerates.
ANY = st.lists(
    st.one_of(st.sampled_from([-2.0, -1.0, -0.0, 0.0, 1.0, 2.0]), st.floats(-100, 100)), min_size=1, max_size=20
)


def scipy_p(d, alternative):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on all zeros
        return float(stats.wilcoxon(np.asarray(d), alternative=alternative).pvalue)


def every_flip(d):
    """The signed-rank sums of all 2**n sign patterns of the nonzero values, and the observed one, written out."""
    d = np.asarray(d, dtype=float)
    nonzero = d[d != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    patterns = (np.arange(2 ** len(nonzero))[:, None] >> np.arange(len(nonzero))) & 1
    return patterns @ ranks, ranks[nonzero > 0].sum()


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("d", [[1.0, 1.0, -2.0, 0.0, 3.0], [0.5, -0.5, 2.0, 2.0, 2.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
def test_zeros_and_ties_give_scipys_permutation_p(d, alternative):
    """With zeros or ties in at most 13 values, the counted p is the one scipy's exhaustive permutation test gives."""
    assert signed_rank_p(d, alternative) == pytest.approx(scipy_p(d, alternative), rel=1e-12, abs=0)


@fuzz(60)
@given(d=TIED)
def test_the_count_is_the_share_of_every_sign_pattern(d):
    """Up to 13 values, the most scipy enumerates, each side's p is the share of all 2**n sign patterns at or beyond
    the observed sum, written out here (scipy's own enumeration takes seconds at 13), and the two-sided p twice the
    smaller side."""
    sums, observed = every_flip(d)
    greater, less = np.mean(sums >= observed), np.mean(sums <= observed)
    d = np.asarray(d)
    assert flips_p(d, "greater") == pytest.approx(greater, rel=1e-12)
    assert flips_p(d, "less") == pytest.approx(less, rel=1e-12)
    assert flips_p(d, "two-sided") == pytest.approx(min(1.0, 2 * min(greater, less)), rel=1e-12)


def test_a_flip_count_is_exact_by_hand():
    """Three distinct magnitudes, two positive: of the 8 sign patterns, the ranks above 2+3 are {1+2+3, 2+3}."""
    d = np.array([-1.0, 2.0, 3.0])
    assert flips_p(d, "greater") == 2 / 8
    assert flips_p(d, "less") == 7 / 8
    assert flips_p(d, "two-sided") == 4 / 8


def test_clean_or_long_samples_go_to_scipy(monkeypatch):
    """Only tied or zero samples of 2 to 13 values are counted here; every other sample is scipy's answer."""
    calls = []
    monkeypatch.setattr(signed_rank, "flips_p", lambda d, alternative: calls.append(len(d)) or 0.5)
    clean = [0.3, -0.1, 0.7, 1.1, 0.2]
    assert signed_rank_p(clean, "greater") == scipy_p(clean, "greater")
    long_tied = [1.0, 2.0] * 10
    assert signed_rank_p(long_tied, "greater") == scipy_p(long_tied, "greater")
    assert calls == []
    assert signed_rank_p([1.0, 1.0, -2.0], "less") == 0.5 and calls == [3]


@fuzz(30)
@given(d=TIED)
def test_the_two_sides_add_up_past_one_by_the_observed_sums_share(d):
    """p(greater) + p(less) is 1 plus the share of flips landing exactly on the observed sum: never below 1."""
    d = np.asarray(d)
    assert flips_p(d, "greater") + flips_p(d, "less") >= 1.0 - 1e-12


@fuzz(80)
@given(d=ANY, alternative=st.sampled_from(ALTERNATIVES))
@example(d=[1.0, 1.0], alternative="less")  # the fewest values scipy enumerates
@example(d=[2.0, -1.0] * 6 + [3.0], alternative="greater")  # the most
@example(d=[2.0, 2.0] * 7, alternative="greater")  # one more: scipy's normal approximation
@example(d=[0.0, -2.0, 3.0], alternative="two-sided")  # a zero alone, no tie
@example(d=[1.0, -2.0, 3.0], alternative="greater")  # magnitudes a step of 1 apart, no zero: scipy's exact test
def test_exactly_the_samples_scipy_would_enumerate_are_counted_here(d, alternative):
    """For any sample, the flips are counted here when it holds a zero or a tie among 2 to 13 values (where scipy's
    "auto" enumerates them, the same p slowly), and every other sample is scipy's answer."""
    magnitudes = [abs(x) for x in d]
    enumerated = 2 <= len(d) <= PERMUTATION_MAX_N and (0.0 in magnitudes or len(set(magnitudes)) < len(d))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(signed_rank, "flips_p", lambda d, alternative: 0.25)
        patch.setattr(signed_rank.stats, "wilcoxon", lambda d, alternative: SimpleNamespace(pvalue=0.75))
        assert signed_rank_p(d, alternative) == (0.25 if enumerated else 0.75)
