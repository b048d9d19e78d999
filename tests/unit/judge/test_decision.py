"""Unit tests for serverbench.judge.decision (synthetic samples only, no servers)."""

import math
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from serverbench.judge.decision import Policy, _verdict, decide, wilcoxon_min_pairs

try:
    from serverbench.judge import decision
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "src"))
    from serverbench.judge import decision

from serverbench.judge.decision import Decision
from tests.unit.fuzzing import fuzz

NOISE = 0.03  # 3% lognormal noise per trial
DRIFT = 0.10  # common machine drift per pair (hits base and cand of a pair alike)


def simulate(seed, runs, pairs, effect, noise=NOISE, drift=DRIFT):
    """(base, cand) arrays of shape (runs, pairs); cand is scaled by (1 + effect)."""
    rng = np.random.default_rng(seed)
    common = rng.normal(0.0, drift, (runs, pairs, 1))
    level = 1000.0 * np.exp(common + rng.normal(0.0, noise, (runs, pairs, 2)))
    return level[..., 0], level[..., 1] * (1.0 + effect)


def rate(decisions, verdict):
    return sum(d.verdict == verdict for d in decisions) / len(decisions)


def test_batch_path_matches_decide():
    """The vectorised path used by the simulations gives exactly decide()'s result per row."""
    base, cand = simulate(7, 6, 8, -0.06)
    cand[0, :4] = base[0, :4]  # zeros in the ratios -> scipy's permutation branch
    cand[1] = base[1] * 0.9  # zero variance
    batch = decision._decide_batch(base, cand)
    for i in range(base.shape[0]):
        assert batch[i] == decide(base[i], cand[i])


def test_aa_false_regression_rate_at_most_1pct():
    """A/A: 2,000 runs of 8 pairs flag a false regression in at most 1% of runs."""
    base, cand = simulate(1, 2000, 8, 0.0)
    decisions = decision._decide_batch(base, cand)
    false_regression = rate(decisions, "regression")
    print(f"A/A false regression rate: {false_regression:.4f}")  # measured: 0.0000 (seed 1)
    assert false_regression <= 0.01
    assert rate(decisions, "improvement") <= 0.01


def test_detects_10pct_slowdown_with_8_pairs():
    """An injected 10% throughput drop is flagged as regression in >= 99% of 500 runs."""
    base, cand = simulate(2, 500, 8, -0.10)
    detected = rate(decision._decide_batch(base, cand), "regression")
    print(f"10% drop, 8 pairs, detection: {detected:.4f}")  # measured: 1.0000
    assert detected >= 0.99


def test_5pct_slowdown_with_12_pairs_at_achievable_level():
    """A 5% drop with 12 pairs is flagged, or marked borderline for an extension."""
    base, cand = simulate(3, 500, 12, -0.05)
    decisions = decision._decide_batch(base, cand)
    detected = rate(decisions, "regression")
    flagged = sum(d.verdict == "regression" or (d.verdict == "pass" and d.borderline) for d in decisions)
    flagged /= len(decisions)
    print(f"5% drop, 12 pairs: regression {detected:.4f}, regression-or-borderline {flagged:.4f}")
    # The brief asked for >= 80%, which cannot be met: with min_effect=0.05 a true 5% drop puts
    # the point estimate on the threshold, so about half the runs estimate < 5% and pass at ANY n.
    # Measured: 0.51 here (0.49-0.51 for 12..48 pairs over 2,000-5,000 runs). The p-value is
    # never the limit (it is ~always < 0.05). Measured regression-or-borderline is 0.97.
    assert detected >= 0.40
    assert flagged >= 0.90


def test_latency_direction_detects_increase_and_improvement():
    """higher_is_better=False: a 10% latency rise is a regression, a 10% fall an improvement."""
    lat = Policy(higher_is_better=False)
    base, cand = simulate(4, 500, 8, +0.10)
    detected = rate(decision._decide_batch(base, cand, lat), "regression")
    print(f"latency +10%, 8 pairs, detection: {detected:.4f}")
    assert detected >= 0.99
    base, cand = simulate(5, 500, 8, 0.0)
    assert rate(decision._decide_batch(base, cand, lat), "regression") <= 0.01
    base, cand = simulate(6, 200, 8, -0.10)
    assert rate(decision._decide_batch(base, cand, lat), "improvement") >= 0.99


def test_latency_is_mirror_of_throughput():
    """Reciprocal data under the opposite direction gives the same p, verdict and mirrored delta."""
    base, cand = simulate(8, 1, 10, -0.08)
    thr = decide(base[0], cand[0])
    lat = decide(1 / base[0], 1 / cand[0], Policy(higher_is_better=False))
    assert thr.verdict == lat.verdict == "regression"
    assert lat.p == pytest.approx(thr.p)
    assert lat.delta == pytest.approx(1 / (1 + thr.delta) - 1)
    assert lat.dispersion == pytest.approx(thr.dispersion)


def test_too_few_pairs_is_inconclusive_never_pass():
    """Fewer than min_pairs pairs gives 'inconclusive' for both a clear drop and no change."""
    for effect in (-0.20, 0.0):
        base, cand = simulate(9, 1, 4, effect)
        d = decide(base[0], cand[0])
        assert d.verdict == "inconclusive"
        assert "min_pairs=5" in d.reason
    assert decide([], []).verdict == "inconclusive"
    assert decide([100.0], [90.0]).verdict == "inconclusive"


def test_wilcoxon_floor_above_cell_alpha_is_inconclusive_with_needed_n():
    """With 20 cells (alpha 0.0025), 8 pairs can't reach significance: inconclusive, needs 9."""
    pol = Policy(cells=20)
    assert decision.wilcoxon_min_pairs(pol.cell_alpha) == 9
    assert decision.wilcoxon_min_pairs(0.0625) == 5  # 0.5**4 == 0.0625 is not strictly below
    base, cand = simulate(10, 1, 9, -0.30, noise=0.01)
    d8 = decide(base[0, :8], cand[0, :8], pol)
    assert d8.verdict == "inconclusive"
    assert "need at least 9 pairs" in d8.reason
    assert decide(base[0], cand[0], pol).verdict == "regression"


def test_high_dispersion_requests_rerun():
    """Noisy pairs (15% per trial) exceed max_dispersion and yield 'rerun' naming the limit."""
    base, cand = simulate(11, 1, 10, -0.10, noise=0.15)
    d = decide(base[0], cand[0])
    assert d.dispersion > 0.10
    assert d.verdict == "rerun"
    assert "max_dispersion 10.0%" in d.reason


def test_zero_variance_is_deterministic():
    """Identical ratios: no change passes with p=1; a uniform 10% drop fails with p=0.5**n."""
    same = decide([100.0] * 8, [100.0] * 8)
    assert (same.verdict, same.p, same.delta, same.dispersion) == ("pass", 1.0, 0.0, 0.0)
    drop = decide([100.0] * 8, [90.0] * 8)
    assert drop.verdict == "regression"
    assert drop.p == 0.5**8
    assert drop.delta == pytest.approx(-0.10)
    assert drop.ci == pytest.approx((-0.10, -0.10))
    gain = decide([100.0] * 8, [90.0] * 8, Policy(higher_is_better=False))
    assert (gain.verdict, gain.p) == ("improvement", 1.0)


@pytest.mark.parametrize(
    "base, cand, fragment",
    [
        ([1.0, 2.0], [1.0], "same length"),
        ([1.0, float("nan")], [1.0, 1.0], "non-finite"),
        ([1.0, 1.0], [1.0, float("inf")], "non-finite"),
        ([1.0, 0.0], [1.0, 1.0], "> 0"),
        ([1.0, 1.0], [1.0, -3.0], "> 0"),
        (["a", "b"], [1.0, 1.0], "numbers"),
        ([[1.0, 2.0]], [[1.0, 2.0]], "1-dimensional"),
    ],
)
def test_invalid_samples_raise(base, cand, fragment):
    """Mismatched, non-finite, non-positive, non-numeric or 2-D samples raise ValueError."""
    with pytest.raises(ValueError, match=re.escape(fragment)):
        decide(base, cand)


@pytest.mark.parametrize(
    "field, value",
    [
        ("alpha", 0.0),
        ("alpha", 1.0),
        ("alpha", float("nan")),
        ("alpha", "0.05"),
        ("cells", 0),
        ("cells", 2.5),
        ("cells", True),
        ("min_effect", -0.01),
        ("min_effect", 1.0),
        ("min_pairs", 1),
        ("min_pairs", 5.0),
        ("max_dispersion", 0.0),
        ("max_dispersion", float("nan")),
        ("higher_is_better", 1),
    ],
)
def test_invalid_policy_fields_raise_with_field_name(field, value):
    """Each invalid Policy field raises ValueError naming the field and the bad value."""
    with pytest.raises(ValueError, match=rf"Policy\.{field}=") as exc:
        Policy(**{field: value})
    assert repr(value) in str(exc.value) and "accepted" in str(exc.value)


@pytest.mark.parametrize(
    "field, value, accepted",
    [
        ("detect", 0.0, "None or a number > 0"),
        ("detect", float("inf"), "None or a number > 0"),
        ("detect", "0.05", "None or a number > 0"),
        ("beta", 0.0, "a number in the open interval (0, 1)"),
        ("beta", 1.0, "a number in the open interval (0, 1)"),
        ("beta", 1.5, "a number in the open interval (0, 1)"),
        ("beta", "0.05", "a number in the open interval (0, 1)"),
    ],
)
def test_the_looks_fields_are_refused_at_and_past_their_bounds_naming_what_is_accepted(field, value, accepted):
    """detect (the effect a settled look rules out) is None or a finite number above 0, beta (a look's miss rate) a
    number strictly between 0 and 1: each bound and a text is refused with the value and what is accepted."""
    with pytest.raises(ValueError) as exc:
        Policy(**{field: value})
    assert str(exc.value) == f"Policy.{field}={value!r} is invalid; accepted: {accepted}"


def test_the_looks_fields_just_inside_their_bounds_are_taken():
    """The smallest float above 0 as detect or beta, and the largest below 1 as beta, are valid."""
    assert Policy(detect=5e-324).detect == 5e-324 and Policy(detect=None).detect is None
    assert Policy(beta=5e-324).beta == 5e-324
    assert Policy(beta=0.9999999999999999).beta == 0.9999999999999999


def _pairs_with_ratios(log_ratios):
    base = np.full(len(log_ratios), 1000.0)
    return base, base * np.exp(log_ratios)


def test_borderline_when_ci_straddles_min_effect():
    """Regression/pass whose CI crosses the 5% threshold is borderline; clear cases are not."""
    spread = np.array([-0.035, -0.025, -0.015, -0.005, 0.004, 0.014, 0.024, 0.034])
    reg = decide(*_pairs_with_ratios(math.log(0.94) + spread))
    assert reg.verdict == "regression" and reg.ci[0] < -0.05 < reg.ci[1]
    assert reg.borderline
    near = decide(*_pairs_with_ratios(math.log(0.965) + spread))
    assert near.verdict == "pass" and near.ci[0] < -0.05
    assert near.borderline
    clear_reg = decide(*_pairs_with_ratios(math.log(0.80) + spread / 5))
    assert clear_reg.verdict == "regression" and not clear_reg.borderline
    clear_pass = decide(*_pairs_with_ratios(spread / 5))
    assert clear_pass.verdict == "pass" and not clear_pass.borderline
    gain = decide(*_pairs_with_ratios(math.log(1.06) + spread))
    assert gain.verdict == "improvement" and gain.borderline


def test_summary_and_fields():
    """summary() is one line in the documented format and Decision fields are consistent."""
    d = decide(*_pairs_with_ratios(math.log(0.92) + np.linspace(-0.02, 0.02, 8)))
    assert isinstance(d, Decision) and d.verdict in decision.VERDICTS
    assert re.fullmatch(r"Δ -8\.0% \[-\d+\.\d%, -\d+\.\d%\] p=0\.0039 n=8 disp=\d+\.\d% -> regression", d.summary()), (
        d.summary()
    )
    assert d.ci[0] < d.delta < d.ci[1]
    assert "\n" not in d.summary() and "\n" not in d.reason


def test_p_is_the_larger_of_t_and_wilcoxon():
    """A sample the t-test calls significant but Wilcoxon does not (p=14/256) is not a regression."""
    from scipy import stats

    r = np.array([-0.20, -0.18, -0.16, -0.14, -0.12, 0.02, 0.03, 0.04])
    d = decide(*_pairs_with_ratios(r))
    assert stats.ttest_1samp(r, 0.0, alternative="less").pvalue < 0.05
    assert d.p == pytest.approx(14 / 256)
    assert d.verdict == "pass" and d.delta < -0.05 and d.borderline


def test_high_dispersion_does_not_hide_an_unmistakable_regression():
    """A 40% drop measured on a noisy machine (disp > limit) is still a regression: its whole CI is beyond min_effect."""
    base, cand = simulate(12, 1, 16, -0.40, noise=0.15)
    d = decide(base[0], cand[0])
    assert d.dispersion > 0.10
    assert d.ci[1] < -0.05
    assert d.verdict == "regression", d.reason


def test_high_dispersion_with_a_straddling_interval_still_reruns():
    """Noisy pairs whose interval reaches below min_effect are not judged, in either direction."""
    for seed in range(20):
        base, cand = simulate(seed, 1, 10, -0.05, noise=0.15)
        d = decide(base[0], cand[0])
        if d.dispersion > 0.10 and d.ci[1] > -0.05 and d.ci[0] < 0.05:
            assert d.verdict == "rerun", d.reason


def test_combine_any_regression_fails_and_unjudged_signals_never_pass():
    """A cell's verdict: any gated regression fails it; a rerun or inconclusive signal keeps it from passing."""
    from serverbench.judge.decision import combine

    same = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7]
    ok = decide(same, same)
    worse = decide(same, [v * 0.8 for v in same])
    better = decide(same, [v * 1.2 for v in same])
    few = decide(same[:3], same[:3])
    assert combine({"throughput": ok, "p50": ok}) == "pass"
    assert combine({"throughput": ok, "p50": worse, "cpu": few}) == "regression"
    assert combine({"throughput": ok, "cpu": few}) == "inconclusive"
    assert combine({"throughput": better, "cpu": ok}) == "improvement"
    assert combine({}) == "inconclusive"


# Settling (Policy.detect): a pass before enough pairs for a regression, for the group-sequential looks.
SAMPLES = st.lists(st.floats(-0.3, 0.3, allow_nan=False), min_size=2, max_size=16)


@fuzz(60)  # each example decides twice with exact Wilcoxon tests: ~0.5 s under load
@given(
    ratios=SAMPLES,
    detect=st.floats(0.005, 0.5),
    beta=st.floats(0.001, 0.5),
    alpha=st.floats(1e-4, 0.2),
    min_effect=st.floats(0.0, 0.2),
    max_dispersion=st.floats(0.01, 0.5),
    higher=st.booleans(),
)
def test_settling_never_makes_or_hides_a_regression(ratios, detect, beta, alpha, min_effect, max_dispersion, higher):
    """For any pairs and limits, a policy that settles gives a regression (or an improvement) exactly when the same
    policy without settling does: stopping on a settled pass cannot add a false regression."""
    base = [100.0] * len(ratios)
    cand = [100.0 * math.exp(r) for r in ratios]
    plain = Policy(alpha=alpha, min_effect=min_effect, max_dispersion=max_dispersion, higher_is_better=higher)
    settles = Policy(**{**plain.__dict__, "detect": detect, "beta": beta})
    a, b = decide(base, cand, plain), decide(base, cand, settles)
    assert (a.verdict == "regression") == (b.verdict == "regression")
    assert (a.verdict == "improvement") == (b.verdict == "improvement")
    assert b.verdict in (a.verdict, "pass")  # settling only turns an unreached verdict into a pass
    if b.verdict == "pass" and a.verdict != "pass":
        assert not b.borderline


@fuzz(60)
@given(ratios=SAMPLES, low=st.floats(0.005, 0.3), more=st.floats(0.0, 0.3), higher=st.booleans())
def test_a_larger_detect_settles_whatever_a_smaller_one_settles(ratios, low, more, higher):
    """Settling is monotone in detect: ruling out a worsening of x also rules out any larger one."""
    base = [100.0] * len(ratios)
    cand = [100.0 * math.exp(r) for r in ratios]

    def settled(detect):
        d = decide(base, cand, Policy(alpha=0.0025, min_effect=0.03, detect=detect, higher_is_better=higher))
        return d.verdict in ("pass", "improvement") and not d.borderline

    if settled(low):
        assert settled(low + more)


def test_a_settled_pass_comes_before_the_pairs_a_regression_needs():
    """Six quiet A/A pairs cannot show a regression at alpha 0.0025 (floor 0.5**9), but they rule out a 5% drop."""
    base, cand = simulate(11, 1, 6, 0.0, noise=0.005, drift=0.0)
    plain = Policy(alpha=0.0025, min_effect=0.03)
    assert decide(base[0], cand[0], plain).verdict == "inconclusive"
    settled = decide(base[0], cand[0], Policy(alpha=0.0025, min_effect=0.03, detect=0.05, beta=0.05))
    assert settled.verdict == "pass" and not settled.borderline
    assert "below 5.0%, the smallest the gate must catch" in settled.reason


def test_a_drop_as_large_as_detect_is_not_settled():
    """A true 10% drop with 1% noise never settles at detect 5%: its bound lies beyond it."""
    base, cand = simulate(12, 200, 6, -0.10, noise=0.01, drift=0.0)
    policy = Policy(alpha=0.0025, min_effect=0.03, detect=0.05, beta=0.05)
    assert not any(d.verdict == "pass" for d in decision._decide_batch(base, cand, policy))


def test_the_settling_bound_is_the_one_sided_t_bound():
    """Five pairs at -1%, 0, +1%, +2%, +3% (lower is better): the bound is mean + t(0.95, 4) * sd / sqrt(5)."""
    ratios = [-0.01, 0.0, 0.01, 0.02, 0.03]
    base, cand = [1.0] * 5, [math.exp(r) for r in ratios]
    bound = math.expm1(0.01 + 2.131847 * np.std(ratios, ddof=1) / math.sqrt(5))
    policy = Policy(alpha=0.0025, higher_is_better=False, beta=0.05, min_pairs=2)
    assert decide(base, cand, replace(policy, detect=bound * 1.001)).verdict == "pass"
    assert decide(base, cand, replace(policy, detect=bound * 0.999)).verdict == "inconclusive"


def test_the_settling_bound_of_a_higher_is_better_signal_is_its_lower_t_bound():
    """Five pairs at +1%, 0, -1%, -2%, -3% (higher is better): the worsening bound is -(mean - t(0.95, 4) * sd / sqrt(5))."""
    ratios = [0.01, 0.0, -0.01, -0.02, -0.03]
    base, cand = [1.0] * 5, [math.exp(r) for r in ratios]
    bound = -math.expm1(-0.01 - 2.131847 * np.std(ratios, ddof=1) / math.sqrt(5))
    policy = Policy(alpha=0.0025, higher_is_better=True, beta=0.05, min_pairs=2)
    assert decide(base, cand, replace(policy, detect=bound * 1.001)).verdict == "pass"
    assert decide(base, cand, replace(policy, detect=bound * 0.999)).verdict == "inconclusive"


# Merged from test_decision_p_value.py: The A/B decision's p: the larger of the one-sided t-test's and the Wilcoxon
# signed-rank test's p, the Wilcoxon exactly as scipy's method='auto' gives it (exact only without zeros or ties and
# up to 50 pairs; otherwise a permutation or the normal approximation). The decision's fast path must not change which
# of them a series gets.
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


def test_a_tied_improvements_p_is_the_one_sided_signed_rank_p():
    """Eleven pairs 2% better and one 1% worse (tied: every sign flip counted): p(better) is Wilcoxon's one-sided p,
    2 flips of 4,096 (0.0005), larger than the t-test's, not the two-sided 4 (0.0010)."""
    d = decide([100.0] * 12, [102.0] * 11 + [99.0], Policy(alpha=0.01, min_effect=0.01))
    assert d.verdict == "improvement" and f"better direction (p={2 / 4096:.4f})" in d.reason


def test_the_batch_path_gives_each_row_its_own_t_test():
    """Two rows judged together (the simulations' path) get the same decisions as each alone."""
    from serverbench.judge.decision import _decide_batch

    (base, worse), (_, better) = _one_outlier(+1), _one_outlier(-1)
    both = _decide_batch(np.vstack([base, base]), np.vstack([worse, better * 1.01]))
    assert both == [decide(base, worse), decide(base, better * 1.01)]


# Merged from test_decision_policy.py: The A/B decision's policy and samples at the edges of what they accept
# (judge.decision): the last value inside each range is accepted, numpy's numbers count as numbers, and a refused
# sample names where it is.
@pytest.mark.parametrize(
    "field, value",
    [
        ("alpha", 1e-9),
        ("alpha", 0.999),
        ("alpha", np.float64(0.05)),
        ("alpha", 1),
        ("cells", 1),
        ("cells", np.int64(3)),
        ("min_effect", 0.0),
        ("min_effect", 0.999),
        ("min_effect", np.float32(0.05)),
        ("min_pairs", 2),
        ("min_pairs", np.int32(4)),
        ("max_dispersion", 1e-9),
        ("max_dispersion", math.inf),
        ("max_dispersion", 2),
        ("higher_is_better", False),
        ("higher_is_better", np.bool_(True)),
    ],
)
def test_each_policy_field_accepts_the_edge_of_its_range(field, value):
    """The last value inside each field's range, and numpy's numbers, make a policy with that value."""
    if (field, value) == ("alpha", 1):
        with pytest.raises(ValueError, match=r"Policy\.alpha=1 is invalid"):
            Policy(alpha=1)
        return
    assert getattr(Policy(**{field: value}), field) == value


@pytest.mark.parametrize(
    "field, value",
    [
        ("alpha", True),
        ("min_effect", False),
        ("max_dispersion", True),
        ("min_pairs", True),
        ("cells", np.float64(2.0)),
        ("min_pairs", "5"),
    ],
)
def test_a_truth_value_or_a_float_count_is_not_a_number_for_the_policy(field, value):
    """True/False are refused where a number is wanted, a float where a whole count is, and text everywhere."""
    with pytest.raises(ValueError, match=rf"Policy\.{field}={re.escape(repr(value))} is invalid; accepted: "):
        Policy(**{field: value})


def test_the_per_cell_alpha_is_alpha_over_the_cells():
    """Bonferroni: alpha 0.05 over 4 cells is 0.0125 per cell."""
    assert Policy(alpha=0.05, cells=4).cell_alpha == 0.0125


# The value is shown as a plain number (not numpy 2's np.float64(0.0)).
@pytest.mark.parametrize(
    "base, cand, pattern",
    [
        (
            [1.0, 2.0, 3.0],
            [1.0, 2.0, 0.0],
            r"cand must be > 0 \(ratios of positive measurements\); got 0\.0 at flat index 2",
        ),
        (
            [1.0, -2.0, 3.0],
            [1.0, 2.0, 3.0],
            r"base must be > 0 \(ratios of positive measurements\); got -2\.0 at flat index 1",
        ),
        ([1.0, 2.0, math.nan], [1.0, 2.0, 3.0], r"base contains a non-finite value nan at flat index 2"),
        ([1.0, 2.0], [1.0, 2.0, 3.0], r"base and cand must have the same length, got 2 and 3"),
    ],
)
def test_a_refused_sample_names_the_side_the_value_and_its_place(base, cand, pattern):
    """A bad value is named with its side (base or cand), the value and its index; mismatched lengths with both."""
    with pytest.raises(ValueError, match=pattern):
        decide(base, cand)


def test_a_policy_must_be_a_policy():
    """Passing anything but a Policy is a ValueError naming the type given."""
    with pytest.raises(ValueError, match="policy must be a Policy, got dict"):
        decide([1.0] * 8, [1.0] * 8, {"alpha": 0.05})


@pytest.mark.parametrize(
    "field, value, accepted",
    [
        ("alpha", 0.0, "a number in the open interval (0, 1)"),
        ("cells", 0, "an integer >= 1"),
        ("min_effect", 1.0, "a number in [0, 1)"),
        ("min_pairs", 1, "an integer >= 2"),
        ("max_dispersion", 0.0, "a number > 0 (inf disables the check)"),
        ("higher_is_better", "yes", "True or False"),
    ],
)
def test_a_refused_policy_field_says_what_it_accepts(field, value, accepted):
    """The error names the field, the value given and, in words, what the field accepts."""
    with pytest.raises(ValueError) as refused:
        Policy(**{field: value})
    assert str(refused.value) == f"Policy.{field}={value!r} is invalid; accepted: {accepted}"


def test_one_pair_is_inconclusive_but_states_its_change():
    """A single pair (100 -> 90 rps) cannot be judged, yet the decision states its -10% change and no spread."""
    one = decide([100.0], [90.0])
    assert one.verdict == "inconclusive" and one.n == 1
    assert one.delta == pytest.approx(-0.10) and one.dispersion == 0.0


def test_two_pairs_are_inconclusive_but_carry_an_interval_and_a_p():
    """Two pairs are below the Wilcoxon floor (inconclusive), but their interval and p(worse) are computed."""
    two = decide([100.0, 100.0], [90.0, 92.0], Policy(min_pairs=2))
    assert two.verdict == "inconclusive" and "Wilcoxon floor" in two.reason
    assert all(math.isfinite(end) for end in two.ci) and two.ci[0] < two.delta < two.ci[1]
    assert 0.0 < two.p <= 1.0


# Merged from test_mutation_decision.py: The A/B decision's rules at exact equality (issue 22, mutation survivors).
# ``_verdict`` takes the statistics themselves (mean log ratio, CI half-width, dispersion, p on each side), so each
# limit can be met exactly: a statistic equal to its limit is on the documented side of it.
A = 0.05  # Policy()'s alpha, one cell
MEAN = math.log(0.8)  # throughput 20% lower: worse by 20% (higher is better)
HALF = 0.05


def _worse_by(mean):
    return -math.expm1(mean)


def _judge(pol=None, n=10, mean=MEAN, half=HALF, disp=0.0, p=0.001, p_better=0.999, reach=math.nan):
    return _verdict(pol or Policy(), n, 5, mean, half, 0.0, disp, p, p_better, reach)


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


# Properties (issue 35): invariants a rule keeps whatever its inputs, held against mutants of kinds mutmut does not
# make (a call replaced by one of its arguments, an element dropped from a tuple: benchmarks/mutants_extra.py).
MIRROR = {"regression": "improvement", "improvement": "regression"}
LIMITS = {
    "alpha": st.floats(1e-3, 0.2),
    "max_dispersion": st.floats(0.01, 0.5),
    "higher": st.booleans(),
}


# Untied, non-zero log ratios: scipy's Wilcoxon takes its exact path (ties send it to a slow permutation test).
UNTIED = st.lists(st.floats(-0.3, 0.3).filter(lambda r: abs(r) > 1e-6), min_size=2, max_size=16, unique_by=abs)


def _arms(ratios):
    return [100.0] * len(ratios), [100.0 * math.exp(r) for r in ratios]


@fuzz(25)  # each example decides twice or more with exact Wilcoxon tests
@given(ratios=UNTIED, **LIMITS)
def test_swapping_the_arms_mirrors_the_decision(ratios, alpha, max_dispersion, higher):
    """decide(cand, base) is decide(base, cand) seen from the other arm: a regression becomes an improvement and
    back, any other verdict stays; the change inverts (1 / (1 + delta) - 1), so do its interval's ends; n and the
    dispersion stay (at min_effect 0, where a worsening of x and the gain 1 / (1 - x) - 1 both clear it)."""
    base, cand = _arms(ratios)
    policy = Policy(alpha=alpha, min_effect=0.0, max_dispersion=max_dispersion, higher_is_better=higher)
    ab, ba = decide(base, cand, policy), decide(cand, base, policy)
    assert ba.verdict == MIRROR.get(ab.verdict, ab.verdict)
    assert ba.delta == pytest.approx(1 / (1 + ab.delta) - 1, rel=1e-9, abs=1e-12)
    ends = (*ab.ci, *ba.ci)
    logs = [math.log1p(x) for x in ends] if min(ends) > -1 else [math.inf]  # -1: exp of a huge negative end
    if max(map(abs, logs)) < 690:  # an end of two pairs' interval at a tiny alpha saturates (decision._expm1)
        assert logs[2:] == [pytest.approx(-logs[1], rel=1e-6), pytest.approx(-logs[0], rel=1e-6)]
    assert (ba.n, ba.dispersion) == (ab.n, pytest.approx(ab.dispersion, abs=1e-12))


@fuzz(25)
@given(ratios=UNTIED, min_effect=st.floats(0.0, 0.2), **LIMITS)
def test_a_regression_is_never_a_regression_of_the_other_arm(ratios, min_effect, alpha, max_dispersion, higher):
    """Whatever the limits, the two arms cannot both be worse than each other, and the change's sign flips."""
    base, cand = _arms(ratios)
    policy = Policy(alpha=alpha, min_effect=min_effect, max_dispersion=max_dispersion, higher_is_better=higher)
    ab, ba = decide(base, cand, policy), decide(cand, base, policy)
    assert not (ab.verdict == ba.verdict == "regression")
    assert ab.delta * ba.delta <= 0


@fuzz(25)
@given(ratios=UNTIED, min_effect=st.floats(0.0, 0.2), alpha=st.floats(1e-3, 0.2))
def test_turning_the_direction_mirrors_the_verdict_and_keeps_the_change(ratios, min_effect, alpha):
    """The same pairs under "higher is better" and "lower is better": a regression under one is an improvement
    under the other (with the same borderline), other verdicts stay, and the change and its interval are the same."""
    base, cand = _arms(ratios)
    up = Policy(alpha=alpha, min_effect=min_effect, higher_is_better=True)
    a, b = decide(base, cand, up), decide(base, cand, replace(up, higher_is_better=False))
    assert b.verdict == MIRROR.get(a.verdict, a.verdict)
    assert (b.delta, b.ci, b.n, b.dispersion) == (a.delta, a.ci, a.n, a.dispersion)
    if a.verdict in MIRROR:
        assert b.borderline == a.borderline


@fuzz(25)
@given(ratios=UNTIED, worse=st.floats(0.0, 0.5), min_effect=st.floats(0.0, 0.2), **LIMITS)
def test_a_larger_worsening_never_turns_a_regression_into_anything_else(
    ratios, worse, min_effect, alpha, max_dispersion, higher
):
    """Making every candidate value worse by the same factor keeps a regression a regression (and an improvement
    of the worse candidate was one of the better candidate): a bigger worsening never passes."""
    base, cand = _arms(ratios)
    factor = math.exp(-worse if higher else worse)
    policy = Policy(alpha=alpha, min_effect=min_effect, max_dispersion=max_dispersion, higher_is_better=higher)
    before, after = decide(base, cand, policy), decide(base, [c * factor for c in cand], policy)
    if before.verdict == "regression":
        assert after.verdict == "regression"
    if after.verdict == "improvement":
        assert before.verdict == "improvement"


def _alternating(size: float, pairs: int = 10) -> tuple[list[float], list[float]]:
    """Pairs whose log ratios alternate +size, -size: no change on average, a dispersion of about 1.5 x size."""
    return [1.0] * pairs, [math.exp(size if i % 2 == 0 else -size) for i in range(pairs)]


def test_a_settled_pass_stands_on_pairs_too_noisy_for_any_other_verdict():
    """Pairs at +-15% (dispersion 22%, above max_dispersion 10%): rerun without detect and with a detect their bound
    (9.6%) does not rule out; a pass, not borderline, with a detect it does (20%)."""
    base, cand = _alternating(0.15)
    lower = Policy(higher_is_better=False)
    assert decide(base, cand, lower).verdict == "rerun"
    assert decide(base, cand, replace(lower, detect=0.05)).verdict == "rerun"
    settled = decide(base, cand, replace(lower, detect=0.2))
    assert settled.verdict == "pass" and not settled.borderline
    assert settled.reason.endswith(
        "; settled: the worsening's one-sided 0.95 bound 9.6% is below 20.0%, the smallest the gate must catch."
    )


@pytest.mark.parametrize("higher", [False, True])
def test_a_pass_says_whether_it_is_settled_and_which_bound_against_which_detect(higher):
    """Quiet pairs at +-1%: a pass either way; against detect 0.5% 'not settled' (borderline: more pairs could show a
    regression), against 20% 'settled' (not borderline), each naming the bound and the detect."""
    base, cand = _alternating(0.01)
    policy = Policy(higher_is_better=higher)
    near = decide(base, cand, replace(policy, detect=0.005))
    assert near.verdict == "pass" and near.borderline
    assert near.reason.endswith(
        "; not settled: the worsening's one-sided 0.95 bound 0.6% is not below 0.5%, the smallest the gate must catch."
    )
    far = decide(base, cand, replace(policy, detect=0.2))
    assert far.verdict == "pass" and not far.borderline
    assert far.reason.endswith(
        "; settled: the worsening's one-sided 0.95 bound 0.6% is below 20.0%, the smallest the gate must catch."
    )


def test_a_bound_below_no_worsening_is_said_as_none():
    """Pairs all 5-6% better (lower is better) with a 50% min_effect: a pass whose worsening bound is below zero,
    said as 0.0%, never as a negative worsening."""
    base, cand = [1.0] * 10, [math.exp(-0.05 if i % 2 else -0.06) for i in range(10)]
    decided = decide(base, cand, Policy(higher_is_better=False, detect=0.2, min_effect=0.5))
    assert decided.verdict == "pass"
    assert "bound 0.0% is below 20.0%" in decided.reason


@pytest.mark.parametrize("shift", [0.04, -0.04])
def test_a_settled_pass_stands_on_noisy_pairs_whose_change_reaches_min_effect_unproven(shift):
    """Pairs at +-15% around a 4% worsening or a 4% gain (lower is better): the change reaches min_effect 3% but is not
    significant, so the settled pass stands (detect 50%) where without detect they are too noisy (rerun)."""
    base = [1.0] * 10
    cand = [math.exp(shift + (0.15 if i % 2 == 0 else -0.15)) for i in range(10)]
    policy = Policy(higher_is_better=False, min_effect=0.03)
    assert decide(base, cand, policy).verdict == "rerun"
    settled = decide(base, cand, replace(policy, detect=0.5))
    assert settled.verdict == "pass" and not settled.borderline
    assert settled.reason.startswith("No regression: the ")


def test_a_settled_pass_at_the_pairs_a_regression_needs_is_judged_as_any_full_decision():
    """Five quiet pairs, as many as alpha 0.05 needs (0.5**5 < 0.05): the settled pass is the full decision's, with its
    test's statistics and its settled bound, not the early 'no regression to catch' before enough pairs."""
    base, cand = [1.0] * 5, [math.exp(r) for r in (0.01, -0.01, 0.005, -0.005, 0.0)]
    decided = decide(base, cand, Policy(higher_is_better=False, detect=0.2))
    assert decided.verdict == "pass"
    assert decided.reason.startswith("No regression: the change is not significant at per-cell alpha 0.05 (Δ")
    assert "n=5); settled: the worsening's one-sided 0.95 bound 0.8% is below 20.0%" in decided.reason


def test_a_bound_exactly_at_detect_is_not_settled():
    """Four pairs (below the five alpha needs): a worsening bound equal to detect does not settle (inconclusive);
    a detect just above the bound does (a pass)."""
    reach = math.log(0.9)  # the one-sided bound's end: throughput 10% lower
    bound = -math.expm1(reach)
    at = _judge(Policy(min_pairs=2, detect=bound), n=4, reach=reach)
    assert at.verdict == "inconclusive"
    above = _judge(Policy(min_pairs=2, detect=bound * 1.001), n=4, reach=reach)
    assert above.verdict == "pass" and "0.5**4 is not below" in above.reason


@pytest.mark.parametrize(
    ("case", "mean", "p", "p_better", "min_effect"),
    [
        ("worse, p exactly alpha", MEAN, A, 0.999, 0.05),
        ("worse by exactly min_effect", MEAN, 0.001, 0.999, _worse_by(MEAN)),
        ("better, p(better) exactly alpha", math.log(1.2), 0.999, A, 0.05),
        ("better by exactly min_effect", math.log(1.2), 0.999, 0.001, math.expm1(math.log(1.2))),
    ],
)
def test_noise_turns_a_settled_verdict_into_a_rerun_only_where_the_quiet_verdict_is_not_a_pass(
    case, mean, p, p_better, min_effect
):
    """A settled signal on pairs too noisy to judge (dispersion 50%) keeps a quiet pass, and asks for a rerun where the
    same statistics on quiet pairs would be a regression or an improvement (whose intervals do not clear min_effect):
    the noise guard uses the verdict's own limits, so at p == alpha and a change == min_effect they agree."""
    pol = Policy(min_effect=min_effect, detect=0.5)
    quiet = _judge(pol, mean=mean, p=p, p_better=p_better, reach=0.0)
    noisy = _judge(pol, mean=mean, p=p, p_better=p_better, reach=0.0, disp=0.5)
    assert quiet.verdict in ("pass", "regression", "improvement"), case
    assert noisy.verdict == ("pass" if quiet.verdict == "pass" else "rerun"), case


def test_an_interval_end_past_the_cap_saturates_at_expm1_of_700():
    """A CI end of two pairs at a tiny alpha (a log change far past 709, where expm1 overflows) is stored as
    expm1(700), about 1.01e304: finite, the same for every such end, and below it an end is exact."""
    assert decision._expm1(1e6) == decision._expm1(701.0) == math.expm1(700.0)
    assert decision._expm1(699.5) == math.expm1(699.5)
