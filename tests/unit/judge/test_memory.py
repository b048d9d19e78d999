"""Memory that means what it says: the PSS/USS record fields and the growth judge (no server)."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy import stats

from serverbench.judge.ab import GATE_POLICY, judge, rejudge
from serverbench.judge.decision import MAD_SCALE, Policy
from serverbench.judge.memory import (
    GROWTH_MIN_EFFECT,
    GROWTH_UNIT,
    MIN_SAMPLES,
    SOAK_SECONDS,
    WARMUP_FRACTION,
    Growth,
    growth,
    growth_pairs,
    is_soak,
    judge_growth,
    per_connection_kb,
    record_growth,
    record_growths,
    series_growth,
    soak_slope,
)
from serverbench.records.decisions import ABDecision, Decision, Measurement, Window
from serverbench.records.schema import Result
from tests.unit.sample_records import result


def test_memory_fields_round_trip_and_old_records_load_without_them():
    """PSS and the memory object survive to_record/from_record; a record without them reads as None / {}."""
    base = result("t::v/app/json/c64", 1000.0)
    full = dataclasses.replace(
        base,
        server_pss_mb=30.5,
        server_pss_end_mb=29.0,
        memory={"uss_mb": 20.0, "processes": [], "series": {"t_s": [0.0], "pss_mb": [30.5]}},
    )
    back = Result.from_record(full.to_record())
    assert (back.server_pss_mb, back.server_pss_end_mb, back.memory["uss_mb"]) == (30.5, 29.0, 20.0)
    old = base.to_record()
    assert "pss_mb" not in old["server"] and "memory" not in old
    again = Result.from_record(old)
    assert again.server_pss_mb is None and dict(again.memory) == {}


def test_growth_catches_a_steady_leak_and_passes_a_flat_sawtooth():
    """A PSS rising 1 MB/s at 1,000 rps (10 MB per 10k) grows; a flat one with a sawtooth stays flat."""
    t = [i * 0.25 for i in range(120)]
    leak = growth(t, [50 + x for x in t], requests=30_000, duration_s=30)
    assert leak.verdict == "grows" and leak.slope == pytest.approx(10.0, rel=0.01)
    saw = growth(t, [50 + (i % 7) * 0.1 for i in range(120)], requests=30_000, duration_s=30)
    assert saw.verdict == "flat"


def test_growth_ignores_the_warmup_and_needs_samples():
    """A rise only in the first quarter does not count; too few samples are unknown."""
    t = [float(i) for i in range(40)]
    assert growth(t, [40 + min(x, 8) * 2 for x in t], requests=40_000, duration_s=40).verdict == "flat"
    assert growth(t[:5], [1.0] * 5, requests=100, duration_s=5).verdict == "unknown"


def test_record_growth_reads_a_stored_series():
    """The growth of a stored record comes from its memory series and its requests."""
    rec = {
        "requests": 10_000,
        "duration_s": 10.0,
        "memory": {"series": {"t_s": [float(i) for i in range(20)], "pss_mb": [float(i) for i in range(20)]}},
    }
    assert record_growth(rec).slope == pytest.approx(10.0)
    assert record_growth({"requests": 1, "duration_s": 1.0}).verdict == "unknown"


def test_per_connection_cost_is_the_rise_over_idle_per_connection():
    """1,000 connections adding 10 MB cost 10.24 KB each; none held gives None."""
    assert per_connection_kb(40.0, 50.0, 1000) == pytest.approx(10.24)
    assert per_connection_kb(40.0, 50.0, 0) is None


def test_a_soak_whose_pss_keeps_growing_is_flagged_and_a_short_window_is_not():
    """memory-growth flags a 40-sample window rising 1 MB/s; the same rise over 20 samples is not judged."""
    from serverbench.judge.checks import memory_growth

    t = [i * 0.25 for i in range(48)]
    soak = dataclasses.replace(
        result("t::a/flask/json/c64", 1000.0), memory={"series": {"t_s": t, "pss_mb": [40 + x for x in t]}}
    )
    flag = memory_growth(soak)
    assert flag is not None and flag.name == "memory-growth" and "grows" in flag.message
    short = dataclasses.replace(soak, memory={"series": {"t_s": t[:20], "pss_mb": [40 + x for x in t[:20]]}})
    assert memory_growth(short) is None


def test_the_gate_judges_peak_pss_where_measured_and_leaves_it_out_where_not():
    """A candidate holding 20% more PSS in every pair is a regression; pairs without PSS judge no PSS signal."""
    from serverbench.judge.ab import GATE_POLICY, judge, min_blocks

    n = min_blocks(GATE_POLICY, False)
    same = ([1000.0 + i for i in range(n)], [1000.0 + i for i in range(n)])
    cpu = ([100.0 + i % 3 for i in range(n)], [100.0 + i % 3 for i in range(n)])
    pss = ([50.0 + 0.01 * i for i in range(n)], [60.0 + 0.01 * i for i in range(n)])
    judged = judge({"throughput": same, "cpu": cpu, "pss": pss}, rate=False, policy=GATE_POLICY)
    assert judged.decisions["pss"].verdict == "regression" and judged.verdict == "regression"
    without = judge({"throughput": same, "cpu": cpu}, rate=False, policy=GATE_POLICY)
    assert "pss" not in without.decisions and without.verdict != "regression"


# Merged from test_memory_boundaries.py: The memory judge at its limits: a window grows only when its interval's low
# end is above the tolerance, the fit needs MIN_SAMPLES samples after the warm-up, a soak spans SOAK_SECONDS, and the
# gate's growth signal needs the policy's pairs, the min effect and significance (judge.memory; no server).
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


def test_the_growth_p_of_tied_differences_is_the_one_sided_signed_rank_p():
    """Eleven pairs 2 MB/10k apart and one 1 the other way (tied: every sign flip counted): p is Wilcoxon's
    one-sided p, 2 flips of 4,096 at or above the observed sum, not the two-sided 4, and larger than the t-test's."""
    d = [2.0] * 11 + [-1.0]
    judged = judge_growth([0.0] * 12, d, POLICY)
    assert judged.p == 2 / 4096
    assert judged.p == pytest.approx(stats.wilcoxon(d, alternative="greater").pvalue, rel=1e-12)
    assert stats.ttest_1samp(d, 0.0, alternative="greater").pvalue < judged.p and judged.verdict == "regression"


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


# Merged from test_memory_gate.py: Growth as a gated A/B signal (judge.memory.judge_growth, growth_pairs), and the
# soak's other columns: sockets and the Python heap a server writes (measure.host.sampling), each judged for growth like
# PSS (no server).
# No two pairs' differences equal in size: scipy's Wilcoxon takes its exact path, not a 4,096-way permutation
# test (about 3 s a call, which made each mutant of judge_growth a minute's work).


def _noisy_pairs(diff: float, noise=NOISE) -> tuple[list[float], list[float]]:
    """Twelve pairs whose base slopes wander and whose candidate is ``diff`` above, plus noise."""
    base = [-0.5 + 0.1 * i for i in range(len(noise))]
    return base, [b + diff + e for b, e in zip(base, noise)]


def test_a_candidate_growing_faster_by_the_min_effect_is_a_regression():
    """Every pair's candidate ~1.0 MB/10k above the base (mean exactly the minimum effect): regression."""
    d = judge_growth(*_noisy_pairs(GROWTH_MIN_EFFECT), POLICY)
    assert d.verdict == "regression" and d.delta == pytest.approx(GROWTH_MIN_EFFECT) and d.unit == GROWTH_UNIT


def test_a_significant_difference_just_under_the_min_effect_passes():
    """0.9 MB/10k faster in every pair is significant but below the minimum effect: pass."""
    d = judge_growth(*_noisy_pairs(0.9 * GROWTH_MIN_EFFECT), POLICY)
    assert d.p < POLICY.cell_alpha and d.ci[1] < GROWTH_MIN_EFFECT and d.verdict == "pass" and not d.borderline


def test_a_large_difference_that_is_not_significant_passes():
    """A mean 1.2 MB/10k above, but half the pairs below the base: not significant, pass."""
    noise = [3.0 + 0.01 * k if k % 2 == 0 else -2.6 - 0.01 * (k - 1) for k in range(12)]
    d = judge_growth(*_noisy_pairs(1.2, noise), POLICY)
    assert d.delta == pytest.approx(1.4) and d.p > POLICY.cell_alpha and d.verdict == "pass"


def test_a_candidate_that_stops_a_leak_is_an_improvement():
    """A candidate 3 MB/10k below the base in every pair: improvement."""
    assert judge_growth(*_noisy_pairs(-3.0), POLICY).verdict == "improvement"


def test_identical_differences_reach_the_wilcoxon_floor():
    """All pairs exactly 2 MB/10k apart (no variance): regression at the exact floor; all equal: pass."""
    base = [0.0] * 12
    d = judge_growth(base, [2.0] * 12, POLICY)
    assert d.verdict == "regression" and d.p == pytest.approx(0.5**12) and d.dispersion == 0.0
    assert judge_growth(base, base, POLICY).verdict == "pass"


def test_too_few_soak_pairs_are_inconclusive():
    """Six pairs cannot reach the 1% level (Wilcoxon floor 0.5**6 > 0.01): inconclusive, naming how many."""
    d = judge_growth([0.0] * 6, [5.0] * 6, POLICY)
    assert d.verdict == "inconclusive" and "at least 7 needed" in d.reason


def test_the_gate_gates_growth_when_soak_pairs_are_there_and_keeps_it_on_rejudge():
    """With growth pairs the gate judges and gates them (in MB/10k); the decision file keeps them, --rejudge too."""
    n = 12
    same = ([1000.0 + i for i in range(n)], [1000.0 + i for i in range(n)])
    cpu = ([100.0 + i % 3 for i in range(n)], [100.0 + i % 3 for i in range(n)])
    pairs = {"throughput": same, "cpu": cpu, "growth": _noisy_pairs(3.0)}
    judged = judge(pairs, rate=False, policy=GATE_POLICY)
    assert "growth" in judged.gated and judged.decisions["growth"].verdict == "regression"
    assert judged.verdict == "regression"
    assert "growth" not in judge({"throughput": same, "cpu": cpu}, rate=False, policy=GATE_POLICY).decisions
    from serverbench.judge.ab import decided

    m = Measurement.of(
        "simultaneous", ("base", "candidate"), {k: tuple(map(tuple, v)) for k, v in pairs.items()}, (), n, 0, None, 10.0
    )
    stored = ABDecision.from_record(
        json.loads(json.dumps(decided("c", m, judged, policy=GATE_POLICY, max_error_rate=0.01).to_record()))
    )
    assert stored.decisions["growth"].unit == GROWTH_UNIT and "MB/10k req" in stored.decisions["growth"].summary()
    again = rejudge(stored, GATE_POLICY, 0.01)
    assert again.decisions["growth"].verdict == "regression" and again.exit_status == 1


def test_a_decision_without_a_unit_is_stored_as_before():
    """A ratio signal's record has no 'unit' key and reads back relative."""
    d = Decision("pass", 0.01, (-0.01, 0.03), 0.2, 12, 0.02, False, "r")
    assert "unit" not in d.to_record() and Decision.from_record(d.to_record()).unit == ""
    assert d.summary().startswith("Δ +1.0% [-1.0%, +3.0%]")


SOAK = 44  # an 11 s window's samples at the sampler's 0.25 s


def _window(
    arm: str, block: int, slope_mb_per_s: float, samples: int, phase: str = "saturated", every_s: float = 0.25
) -> Window:
    t = [i * every_s for i in range(samples)]
    r = dataclasses.replace(
        result("ab::x/app/json/c32", 1000.0),
        memory={"series": {"t_s": t, "pss_mb": [50 + slope_mb_per_s * x for x in t]}},
    )
    return Window(arm, phase, block, r)


def test_growth_pairs_come_from_soak_windows_one_pair_per_block():
    """Two blocks of two windows per arm: one pair per block, each arm's mean slope; rate windows ignored."""
    rps = result("ab::x/app/json/c32", 1000.0).rps
    windows = [
        _window(arm, b, s, SOAK) for b in (0, 1) for arm, s in (("base", 0.0), ("candidate", 0.1)) for _ in range(2)
    ] + [_window("base", 0, 5.0, 8, phase="rate")]
    base, cand = growth_pairs(("base", "candidate"), windows)
    assert len(base) == len(cand) == 2
    assert base == pytest.approx((0.0, 0.0)) and cand == pytest.approx((0.1 * 10_000 / rps,) * 2)


def test_growth_pairs_need_every_window_to_be_a_soak():
    """One window shorter than a soak (samples spanning 9.25 s): no growth pairs at all."""
    windows = [_window("base", 0, 0.0, SOAK), _window("candidate", 0, 0.0, 38)]
    assert growth_pairs(("base", "candidate"), windows) is None
    assert growth_pairs(("base", "candidate"), []) is None


def test_a_soak_whose_sampler_fell_behind_is_still_a_soak():
    """An 11 s window sampled every 0.29 s (38 samples, as measured on a busy machine) still gives growth pairs."""
    windows = [_window("base", 0, 0.0, SOAK), _window("candidate", 0, 0.0, 38, every_s=0.29)]
    base, cand = growth_pairs(("base", "candidate"), windows)
    assert base == pytest.approx((0.0,)) and cand == pytest.approx((0.0,))


def test_every_sampled_column_is_judged_for_growth_in_its_own_unit():
    """Heap blocks rising 2 per request grow; sockets flat at 65 do not; a column the window lacks is left out."""
    t = [i * 0.25 for i in range(60)]
    series = {
        "t_s": t,
        "pss_mb": [50.0] * 60,
        "sockets": [65] * 60,
        "fds": [70] * 60,
        "heap_blocks": [20_000 + 2 * 1000 * x for x in t],
    }  # 1,000 requests a second
    judged = series_growth(series, requests=15_000, duration_s=15.0)
    assert judged["heap_blocks"].verdict == "grows" and judged["heap_blocks"].slope == pytest.approx(20_000)
    assert "blocks per 10,000 requests" in judged["heap_blocks"].message
    assert judged["sockets"].verdict == judged["pss_mb"].verdict == "flat"
    assert "heap_malloc_mb" not in judged


def test_a_series_that_never_changed_is_flat_even_when_two_samples_share_a_time():
    """Every sample the same, two of them at the same rounded time (a clean server's heap figure, sampled every
    0.25 s): a slope of exactly 0 with no spread, not scipy's NaN from a negative variance (which, under
    filterwarnings=error, failed a clean server's memory test)."""
    t = [3.08 + 0.255 * i for i in range(40)]
    t[30] = t[29]
    g = growth(t, [9.87] * 40, requests=40_000, duration_s=10.0, warmup_fraction=0.0)
    assert (g.slope, g.low, g.high, g.verdict) == (0.0, 0.0, 0.0, "flat")
