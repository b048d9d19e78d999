"""The memory judge at its limits: a window grows only when its interval's low end is above the tolerance, the fit
needs MIN_SAMPLES samples after the warm-up, a soak spans SOAK_SECONDS, and the gate's growth signal needs
the policy's pairs, the min effect and significance (judge.memory; no server)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from serverbench.judge.decision import MAD_SCALE, Policy
from serverbench.judge.memory import (
    MIN_SAMPLES,
    SOAK_SECONDS,
    WARMUP_FRACTION,
    Growth,
    growth,
    is_soak,
    judge_growth,
    per_connection_kb,
    record_growth,
    record_growths,
    soak_slope,
)
from tests.unit.sample_records import result

POLICY = Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)
# No two pairs' differences equal in size: scipy's Wilcoxon takes its exact path, not a 4,096-way permutation
# test (about 3 s a call, which made each mutant of judge_growth a minute's work).
NOISE = [0.05, -0.05, 0.02, -0.02, 0.005, 0.03, -0.03, 0.01, -0.01, 0.04, -0.04, -0.005]


def test_a_window_grows_only_when_the_low_end_is_above_the_tolerance():
    """Interval low end 0.2501 against a tolerance of 0.25: grows; exactly 0.25: flat; no fit: unknown."""
    assert Growth(1.0, 0.2501, 2.0, 10, 0.25).verdict == "grows"
    assert Growth(1.0, 0.25, 2.0, 10, 0.25).verdict == "flat"
    assert Growth(None, None, None, 3, 0.25).verdict == "unknown"
    assert Growth(1.0, None, None, 10, 0.25).verdict == "unknown"


def test_the_fit_needs_min_samples_after_the_warm_up():
    """Exactly MIN_SAMPLES (8) samples, no warm-up left out: a slope; one fewer: unknown, saying how many there were."""
    t = [float(i) for i in range(MIN_SAMPLES)]
    judged = growth(t, [10 + x for x in t], requests=10_000, duration_s=10.0, warmup_fraction=0.0)
    assert judged.slope == pytest.approx(10.0) and judged.samples == MIN_SAMPLES
    short = growth(t[1:], [10 + x for x in t[1:]], requests=10_000, duration_s=10.0, warmup_fraction=0.0)
    assert short.slope is None and short.verdict == "unknown" and short.samples == MIN_SAMPLES - 1
    assert short.message == f"too few memory samples after warm-up ({MIN_SAMPLES - 1}, at least {MIN_SAMPLES} needed)"


def test_the_warm_up_is_the_first_quarter_of_the_samples_span_and_its_end_sample_is_kept():
    """Samples at 4..12 s: the warm-up ends at 6 s (4 + 25% of 8 s); the sample at 6 s is kept (7 samples)."""
    assert WARMUP_FRACTION == 0.25
    t = [float(i) for i in range(4, 13)]
    assert growth(t, [1.0] * len(t), requests=100, duration_s=1.0).samples == 7
    assert growth(t, [1.0] * len(t), requests=100, duration_s=1.0, warmup_fraction=0.5).samples == 5


def test_missing_samples_are_left_out_before_the_warm_up_is_placed():
    """A sample without PSS (None) is not a point: 12 samples of which 4 are None fit as 8, warm-up off."""
    t = [float(i) for i in range(12)]
    pss = [None if i % 3 == 0 else 5.0 + i for i in range(12)]
    judged = growth(t, pss, requests=10_000, duration_s=10.0, warmup_fraction=0.0)
    assert judged.samples == 8 and judged.slope == pytest.approx(10.0)
    later = [None] * 4 + [5.0 + i for i in range(4, 12)]  # the first point is at 4 s: the warm-up starts there
    assert growth(t, later, requests=10_000, duration_s=10.0).samples == 6


def test_a_window_without_throughput_cannot_be_judged():
    """No requests, or no duration: the slope cannot be put per request, so the verdict is unknown."""
    t = [float(i) for i in range(20)]
    assert growth(t, t, requests=0, duration_s=10.0).verdict == "unknown"
    assert growth(t, t, requests=1000, duration_s=0.0).verdict == "unknown"
    assert growth(t, t, requests=1, duration_s=1e6).verdict != "unknown"


def test_the_slope_is_per_10k_requests_rounded_to_four_places():
    """A thirtieth of a MB a second at 1,000 rps (10 s per 10k requests) is 0.3333 MB per 10k requests, the
    interval's ends the same, each rounded to four places."""
    t = [float(i) for i in range(12)]
    judged = growth(t, [x / 30 for x in t], requests=10_000, duration_s=10.0, warmup_fraction=0.0)
    assert (judged.slope, judged.low, judged.high) == (0.3333, 0.3333, 0.3333)
    assert judged.verdict == "grows"


def test_the_warm_up_is_measured_over_the_whole_span_of_the_samples():
    """Samples at 0, 4..12 and 20 s, half of the span left out: the warm-up ends at 10 s, so 4 samples remain."""
    t = [0.0, *(float(i) for i in range(4, 13)), 20.0]
    assert growth(t, [1.0] * len(t), requests=100, duration_s=1.0, warmup_fraction=0.5).samples == 4


def test_a_window_shorter_than_a_second_is_judged():
    """Half a second of load (5,000 requests: 10,000 rps) has a throughput, so its samples are judged."""
    t = [float(i) for i in range(12)]
    assert growth(t, t, requests=5_000, duration_s=0.5, warmup_fraction=0.0).slope == pytest.approx(1.0)


def test_growth_states_pss_in_mb_unless_told_another_quantity():
    """By default the fit is of PSS in MB (its record names no unit); another column names its quantity and unit,
    judged or not."""
    t = [float(i) for i in range(12)]
    pss = growth(t, t, requests=10_000, duration_s=10.0)
    assert pss.message.startswith("PSS grew +10.000 MB per 10,000 requests") and "unit" not in pss.to_record()
    fds = growth(t, t, requests=10_000, duration_s=10.0, tolerance=1.0, quantity="open descriptors", unit="fds")
    assert fds.message.startswith("open descriptors grew +10.000 fds per 10,000 requests")
    short = growth(t[:3], t[:3], requests=10_000, duration_s=10.0, tolerance=1.0, quantity="sockets", unit="sockets")
    assert short.to_record() == {
        "slope_mb_per_10k": None,
        "low": None,
        "high": None,
        "samples": 2,
        "tolerance": 1.0,
        "verdict": "unknown",
        "quantity": "sockets",
        "unit": "sockets",
    }


def test_a_growth_record_names_its_unit_only_when_it_is_not_mb():
    """A PSS growth's record has the slope, interval, samples, tolerance and verdict; another unit adds its name."""
    pss = Growth(1.5, 1.0, 2.0, 9, 0.25)
    assert pss.to_record() == {
        "slope_mb_per_10k": 1.5,
        "low": 1.0,
        "high": 2.0,
        "samples": 9,
        "tolerance": 0.25,
        "verdict": "grows",
    }
    fds = Growth(0.5, -0.5, 1.5, 9, 1.0, "open descriptors", "fds")
    assert fds.to_record()["quantity"] == "open descriptors" and fds.to_record()["unit"] == "fds"
    assert fds.message == (
        "open descriptors grew +0.500 fds per 10,000 requests (95% interval -0.500 to +1.500), tolerance 1: flat"
    )


def test_a_stored_record_without_counts_reads_as_unknown_growth():
    """A record with samples but no requests or duration is unknown; one without memory judges no column."""
    t = [float(i) for i in range(20)]
    assert record_growth({"memory": {"series": {"t_s": t, "pss_mb": t}}}).verdict == "unknown"
    assert (
        record_growth(
            {"memory": {"series": {"t_s": t, "pss_mb": t}}, "requests": 10_000, "duration_s": 10.0}, tolerance=20.0
        ).verdict
        == "flat"
    )
    assert record_growths({"requests": 10, "duration_s": 1.0}) == {}
    for counts in ({"duration_s": 10.0}, {"requests": 10_000}):  # one count missing: no throughput, unknown
        rec = {"memory": {"series": {"t_s": t, "pss_mb": t}}, **counts}
        assert record_growth(rec).verdict == "unknown" and record_growths(rec)["pss_mb"].verdict == "unknown"
    judged = record_growths(
        {"memory": {"series": {"t_s": t, "pss_mb": t, "fds": [3] * 20}}, "requests": 10_000, "duration_s": 10.0}
    )
    assert judged["pss_mb"].slope == pytest.approx(10.0) and judged["fds"].verdict == "flat"
    fds = judged["fds"]
    assert (fds.quantity, fds.unit, fds.tolerance) == ("open descriptors", "fds", 1.0)


def _soak(span_s: float, samples: int = 0):
    """A window whose samples span ``span_s``: one every 0.25 s, or ``samples`` evenly spread (a sampler behind)."""
    n = samples or int(round(span_s / 0.25)) + 1
    t = [span_s * i / (n - 1) for i in range(n)]
    return dataclasses.replace(
        result("t::a/flask/json/c64", 1000.0), memory={"series": {"t_s": t, "pss_mb": [40 + x for x in t]}}
    )


def test_a_soak_spans_soak_seconds_whatever_its_sampler_kept_up_with():
    """Samples spanning exactly SOAK_SECONDS (9.5 s) have a soak slope, with 39 samples or with 20 (a sampler that
    fell behind); 9.25 s have none; a span of SOAK_SECONDS is a soak from MIN_SAMPLES samples, not in fewer."""
    r = _soak(SOAK_SECONDS)
    assert soak_slope(r) == pytest.approx(10_000 / r.rps)
    assert soak_slope(_soak(SOAK_SECONDS, 20)) == pytest.approx(10_000 / r.rps)
    assert soak_slope(_soak(SOAK_SECONDS - 0.25)) is None
    assert is_soak(_soak(SOAK_SECONDS, MIN_SAMPLES).memory["series"])
    assert not is_soak(_soak(SOAK_SECONDS, MIN_SAMPLES - 1).memory["series"])


def _pairs(diff: float, n: int = 12) -> tuple[list[float], list[float]]:
    base = [-0.5 + 0.1 * i for i in range(n)]
    return base, [b + diff + e for b, e in zip(base, NOISE[:n])]


def test_growth_pairs_need_the_policys_min_pairs_as_well_as_the_wilcoxon_floor():
    """min_pairs=10 at alpha 5% (Wilcoxon floor 5): nine pairs are inconclusive naming 10, ten are judged."""
    policy = Policy(alpha=0.05, min_pairs=10)
    short = judge_growth(*_pairs(3.0, 9), policy)
    assert short.verdict == "inconclusive" and "at least 10 needed" in short.reason and short.n == 9
    assert math.isnan(short.delta) and short.unit == "MB/10k req"
    assert math.isnan(short.p) and math.isnan(short.dispersion) and all(math.isnan(end) for end in short.ci)
    assert short.borderline is False
    assert judge_growth(*_pairs(3.0, 10), policy).verdict == "regression"


def test_the_growth_decision_carries_its_mean_interval_spread_and_p():
    """Delta is the mean difference, the interval the t interval at the per-cell alpha, the dispersion the
    scaled MAD of the differences, p the one-sided p that the candidate grows faster."""
    base, cand = _pairs(2.0)
    d = np.asarray(cand) - np.asarray(base)
    judged = judge_growth(base, cand, POLICY)
    half = stats.t.ppf(1 - POLICY.cell_alpha / 2, 11) * d.std(ddof=1) / math.sqrt(12)
    assert judged.delta == pytest.approx(d.mean())
    assert judged.ci == pytest.approx((d.mean() - half, d.mean() + half))
    assert judged.dispersion == pytest.approx(MAD_SCALE * np.median(np.abs(d - np.median(d))))
    p = max(stats.ttest_1samp(d, 0.0, alternative="greater").pvalue, stats.wilcoxon(d, alternative="greater").pvalue)
    assert judged.p == pytest.approx(p) and judged.n == 12
    assert judged.reason.startswith("growth: candidate +2.000 MB per 10k requests") and judged.reason.endswith(
        ": regression"
    )


def test_the_growth_p_is_the_one_sided_t_test_when_it_is_the_larger():
    """Eleven pairs growing 1-2 MB/10k faster and one 15 slower: the one-sided t-test's p (0.46), larger than
    Wilcoxon's, is the decision's p, and the mean (under the min effect) passes."""
    d = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, -15.0]
    judged = judge_growth([0.0] * 12, d, POLICY)
    assert judged.p == pytest.approx(stats.ttest_1samp(d, 0.0, alternative="greater").pvalue)
    assert 0.4 < judged.p < 0.5 and judged.verdict == "pass"


def test_growth_at_exactly_the_min_effect_in_either_direction_decides():
    """All pairs exactly 1.0 MB/10k apart (the min effect): regression; exactly -1.0: improvement; both at the
    Wilcoxon floor; 0.999: pass."""
    base = [0.0] * 12
    assert judge_growth(base, [1.0] * 12, POLICY).verdict == "regression"
    better = judge_growth(base, [-1.0] * 12, POLICY)
    assert better.verdict == "improvement" and better.p == 1.0
    assert judge_growth(base, [0.999] * 12, POLICY).verdict == "pass"
    assert judge_growth(base, [-0.999] * 12, POLICY).verdict == "pass"


def test_identical_growth_in_both_arms_has_p_one():
    """Every pair's slopes equal (no difference at all): p is 1, not the Wilcoxon floor, and the verdict pass."""
    same = judge_growth([0.5] * 12, [0.5] * 12, POLICY)
    assert same.p == 1.0 and same.verdict == "pass" and same.delta == 0.0


def test_a_growth_verdict_is_borderline_when_its_interval_reaches_across_the_min_effect():
    """A regression whose interval's low end is under the min effect is borderline, one wholly over it is not;
    the same for an improvement; a pass whose interval reaches the min effect is borderline."""
    wide = [0.6, -0.6, 0.5, -0.5, 0.4, -0.4, 0.3, -0.3, 0.2, -0.2, 0.1, -0.1]
    base = [0.0] * 12
    reg = judge_growth(base, [1.2 + e for e in wide], POLICY)
    assert reg.verdict == "regression" and reg.ci[0] < 1.0 and reg.borderline
    clear = judge_growth(base, [3.0 + e / 10 for e in wide], POLICY)
    assert clear.verdict == "regression" and not clear.borderline
    imp = judge_growth(base, [-1.2 + e for e in wide], POLICY)
    assert imp.verdict == "improvement" and imp.ci[1] > -1.0 and imp.borderline
    assert not judge_growth(base, [-3.0 + e / 10 for e in wide], POLICY).borderline
    near = judge_growth(base, [0.8 + e for e in wide], POLICY)
    assert near.verdict == "pass" and near.ci[1] >= 1.0 and near.borderline
    assert not judge_growth(base, [0.003 + e / 10 for e in wide], POLICY).borderline


def test_per_connection_cost_needs_a_held_connection_and_is_rounded_to_two_places():
    """One held connection costs the whole rise (in KB, two decimals); none or a negative count: None."""
    assert per_connection_kb(40.0, 40.5, 1) == 512.0
    assert per_connection_kb(40.0, 41.0, 3) == 341.33
    assert per_connection_kb(40.0, 50.0, -1) is None


def test_a_soak_is_read_from_its_first_sample_not_from_zero():
    """Samples from 5.0 s to 14.0 s span 9.0 s: not a soak, though the last sample is past SOAK_SECONDS."""
    t = [5.0 + 0.25 * i for i in range(37)]
    assert not is_soak({"t_s": t, "pss_mb": [40.0] * len(t)})
    assert is_soak({"t_s": [5.0 + 0.25 * i for i in range(39)]})


def test_a_growth_p_exactly_at_alpha_is_not_significant():
    """Eleven pairs growing 2-12 MB/10k faster and one 1 slower: Wilcoxon's exact p is 2/4096, the larger; at
    alpha 2/4096 that is no regression (pass), just above it is; the mirror image the same for an improvement."""
    d = [-1.0] + [float(k) for k in range(2, 13)]
    at = Policy(alpha=2 / 4096, min_effect=0.03, max_dispersion=0.15)
    above = Policy(alpha=float(np.nextafter(2 / 4096, 1)), min_effect=0.03, max_dispersion=0.15)
    base = [0.0] * 12
    assert judge_growth(base, d, at).p == 2 / 4096
    assert [judge_growth(base, d, p).verdict for p in (at, above)] == ["pass", "regression"]
    assert [judge_growth(base, [-v for v in d], p).verdict for p in (at, above)] == ["pass", "improvement"]


def test_a_growth_interval_ending_exactly_at_the_min_effect_decides_borderline():
    """With the min effect set to an end of the interval: a regression whose low end is exactly it is not borderline,
    nor an improvement whose high end is exactly minus it; a pass whose high end reaches exactly it is."""
    base = [0.0] * 12
    reg = [3.0 + e for e in NOISE]
    low = judge_growth(base, reg, POLICY).ci[0]
    assert judge_growth(base, reg, POLICY, min_effect=low).verdict == "regression"
    assert not judge_growth(base, reg, POLICY, min_effect=low).borderline
    imp = [-3.0 + e for e in NOISE]
    high = judge_growth(base, imp, POLICY).ci[1]
    judged = judge_growth(base, imp, POLICY, min_effect=-high)
    assert judged.verdict == "improvement" and not judged.borderline
    near = [0.3 + 10 * e for e in NOISE]
    top = judge_growth(base, near, POLICY).ci[1]
    judged = judge_growth(base, near, POLICY, min_effect=top)
    assert judged.verdict == "pass" and judged.borderline


def test_a_growth_reason_gives_both_ends_of_the_interval():
    """The reason names the mean and the interval's low and high ends, each signed to three decimals."""
    judged = judge_growth([0.0] * 12, [3.0 + e for e in NOISE], POLICY)
    assert (
        f"candidate +3.000 MB per 10k requests against the base (interval {judged.ci[0]:+.3f} to {judged.ci[1]:+.3f})"
        in judged.reason
        and judged.ci[0] < judged.ci[1]
    )
