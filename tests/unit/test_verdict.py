from serverbench.config.options import Thresholds
from serverbench.judge.verdict import FAIL, NO_BASELINE, PASS, BaselineCheck
from serverbench.records.baselines import Baseline

T = Thresholds(tolerance=0.2, max_error_rate=0.01)


def _baseline(rps):
    return Baseline("test_x::v/json/c64", rps=rps, error_rate=0.0, p50_ms=1.0, p99_ms=2.0, recorded_at="x")


def test_within_tolerance_passes(make_result):
    """A 10% drop with a 20% tolerance passes and reports the change."""
    verdict = BaselineCheck().judge(make_result(rps=900), _baseline(1000), T)
    assert verdict.status == PASS
    assert verdict.ratio == 0.9 and "-10.0%" in verdict.message


def test_drop_beyond_tolerance_fails(make_result):
    """rps below baseline × (1 − tolerance) fails, naming both numbers."""
    verdict = BaselineCheck().judge(make_result(rps=790), _baseline(1000), T)
    assert verdict.status == FAIL
    assert "790 rps < 800" in verdict.message


def test_exact_floor_passes(make_result):
    """Exactly baseline × (1 − tolerance) is not a regression."""
    assert BaselineCheck().judge(make_result(rps=800), _baseline(1000), T).status == PASS


def test_error_rate_over_limit_fails_even_when_fast(make_result):
    """Errors above the threshold fail the trial, whatever its throughput."""
    verdict = BaselineCheck().judge(make_result(rps=2000, errors={"read": 500}), _baseline(1000), T)
    assert verdict.status == FAIL and "error rate" in verdict.message and "read 500" in verdict.message


def test_missing_baseline_is_reported_with_the_save_command(make_result):
    """No baseline is not a silent pass: the verdict says so and how to store one."""
    verdict = BaselineCheck().judge(make_result(), None, T)
    assert verdict.status == NO_BASELINE
    assert "--perf-save-baseline" in verdict.message


def test_missing_baseline_still_fails_on_errors(make_result):
    """Without a baseline, an error rate over the limit still fails."""
    assert BaselineCheck().judge(make_result(errors={"connect": 100}), None, T).status == FAIL


def test_a_verdict_is_stored_with_its_ratio_rounded(make_result):
    """The stored verdict keeps status, message, baseline rps and the ratio to 4 places (None without a ratio)."""
    verdict = BaselineCheck().judge(make_result(rps=900.0), _baseline(1234.5), T)
    assert verdict.to_record() == {"status": FAIL, "message": verdict.message, "baseline_rps": 1234.5, "ratio": 0.7290}
    assert BaselineCheck().judge(make_result(), None, T).to_record()["ratio"] is None


def test_error_rate_limit_is_inclusive(make_result):
    """An error rate exactly at max_error_rate passes; just over it fails (1% of 5,000 requests is 50)."""
    limit = Thresholds(tolerance=0.2, max_error_rate=0.01)
    at = make_result(rps=1000, errors={"read": 50})
    assert at.error_rate <= 0.01 and BaselineCheck().judge(at, _baseline(1000), limit).status == PASS
    over = make_result(rps=1000, errors={"read": 52})
    assert over.error_rate > 0.01 and BaselineCheck().judge(over, _baseline(1000), limit).status == FAIL
