"""The stored-baseline verdict and the work check at exact equality (issue 22, mutation survivors)."""

import math

from test_backend_checks import _result

from serverbench.config.options import Thresholds
from serverbench.judge.verdict import FAIL, PASS, BaselineCheck, check_ops
from serverbench.records.baselines import Baseline
from serverbench.records.schema import BackendUsage


def _redis(ops):
    return BackendUsage("redis", "redis-server", 1.0, 5.0, 1, ops)


def _baseline(rps):
    return Baseline("test_x::v/json/c64", rps=rps, error_rate=0.0, p50_ms=1.0, p99_ms=2.0, recorded_at="x")


def test_ops_at_exactly_the_lower_limit_pass():
    """ops = responses x (1 - tolerance) passes; one fewer fails."""
    assert check_ops(_result(1000, _redis(500)), tolerance=0.5) == []
    assert check_ops(_result(1000, _redis(499)), tolerance=0.5)


def test_a_backend_without_a_count_does_not_stop_the_check():
    """A backend that counts nothing is skipped; the next one is still checked."""
    upstream = BackendUsage("upstream", "external", None, 5.0, 1, None)
    assert len(check_ops(_result(1000, upstream, _redis(10)))) == 1


def test_ops_problem_states_the_ratio():
    """The problem gives ops per response; with no responses at all the ratio is infinite."""
    (problem,) = check_ops(_result(1000, _redis(200)))
    assert "(ratio 0.200; allowed 985..1,079)" in problem
    (problem,) = check_ops(_result(0, _redis(100)))
    assert "counted 100 operations for 0 responses (ratio inf;" in problem


def test_min_rps_exactly_met_passes(make_result):
    """rps equal to the marker's min_rps passes; a little more required fails."""
    assert BaselineCheck().judge(make_result(rps=1000), None, Thresholds(0.1, 0.01, min_rps=1000)).status != FAIL
    assert BaselineCheck().judge(make_result(rps=1000), None, Thresholds(0.1, 0.01, min_rps=1001)).status == FAIL


def test_error_rate_exactly_at_its_limit_passes(make_result):
    """An error rate equal to max_error_rate passes; the limit is the largest rate allowed."""
    result = make_result(rps=1000, errors={"read": 50})
    assert BaselineCheck().judge(result, _baseline(1000), Thresholds(0.1, result.error_rate)).status == PASS
    assert BaselineCheck().judge(result, _baseline(1000), Thresholds(0.1, result.error_rate * 0.99)).status == FAIL


def test_every_problem_is_named_and_joined(make_result):
    """Two problems (errors of two kinds, and too slow) are both named, separated by '; '."""
    result = make_result(rps=1000, errors={"read": 50, "timeout": 5})
    t = Thresholds(0.1, 0.001, min_rps=2000)
    for baseline in (None, _baseline(1000)):
        message = BaselineCheck().judge(result, baseline, t).message
        assert message.startswith("error rate 1.09% > limit 0.10% (read 50, timeout 5); 1,000 rps < required 2,000")


def test_baseline_of_one_rps_is_divided_by(make_result):
    """A stored baseline of 1 rps gives a real ratio; a baseline of 0 an infinite one."""
    assert BaselineCheck().judge(make_result(rps=2), _baseline(1.0), Thresholds(0.1, 0.01)).ratio == 2.0
    verdict = BaselineCheck().judge(make_result(rps=2), _baseline(0.0), Thresholds(0.1, 0.01))
    assert verdict.status == PASS and math.isinf(verdict.ratio)


def test_pass_and_fail_carry_the_baseline_rps(make_result):
    """Both a pass and a fail against a baseline record its rps and the ratio."""
    ok = BaselineCheck().judge(make_result(rps=1000), _baseline(1000), Thresholds(0.1, 0.01))
    bad = BaselineCheck().judge(make_result(rps=500), _baseline(1000), Thresholds(0.1, 0.01))
    assert (ok.status, ok.baseline_rps, ok.ratio) == (PASS, 1000, 1.0)
    assert (bad.status, bad.baseline_rps, bad.ratio) == (FAIL, 1000, 0.5)
