"""The A/B gate's counted cost signal, judged by its A/A spread (synthetic counts; no server)."""

import math

import pytest

from serverbench.judge.ab import COST, GATE_POLICY, judge
from serverbench.judge.cost import judge_counts
from serverbench.records.decisions import Decision


def test_a_rise_beyond_one_percent_with_a_tight_spread_is_a_regression():
    """Counts 0.05% apart: a 1.5% higher candidate median is beyond the 1% floor."""
    d = judge_counts([100_000, 100_050, 100_020], [101_500, 101_520, 101_490])
    assert d.verdict == "regression" and d.delta == pytest.approx(0.01480, abs=1e-4)
    assert math.isnan(d.p) and "limit 1.00%" in d.reason


def test_the_limit_widens_with_the_measured_spread():
    """An arm spreading 1% sets a 3% limit: a 2% rise passes, a 4% rise does not."""
    base = [100_000, 101_000, 100_500]
    assert judge_counts(base, [102_500, 102_600, 102_550]).verdict == "pass"
    assert judge_counts(base, [104_600, 104_700, 104_650]).verdict == "regression"


def test_a_drop_is_an_improvement_and_equal_counts_pass():
    """The limit applies both ways."""
    assert judge_counts([100_000, 100_010], [97_000, 97_010]).verdict == "improvement"
    assert judge_counts([100_000, 100_010], [100_005, 100_008]).verdict == "pass"


def test_one_count_per_arm_is_inconclusive():
    """No spread can be measured from one count."""
    assert judge_counts([100_000], [120_000]).verdict == "inconclusive"


def test_cost_gates_the_decision_even_when_timing_passes():
    """A cost regression makes the whole verdict a regression; without counts the verdict is the timed one."""
    pairs = {
        "throughput": ([1000.0] * 12, [1001.0] * 12),
        "cpu": ([1.0] * 12, [1.0] * 12),
        "rss": ([10.0] * 12, [10.0] * 12),
    }
    timed = judge(pairs, False, GATE_POLICY)
    assert COST not in timed.decisions and timed.verdict != "regression"
    counted = judge({**pairs, COST: ((100_000.0, 100_010.0), (103_000.0, 103_020.0))}, False, GATE_POLICY)
    assert COST in counted.gated and counted.verdict == "regression"


def test_a_counted_decision_round_trips_with_no_p_value():
    """NaN p is stored as null (strict JSON) and read back as NaN."""
    d = judge_counts([100_000, 100_010], [101_500, 101_520])
    back = Decision.from_record(d.to_record())
    assert d.to_record()["p"] is None and math.isnan(back.p) and back.verdict == d.verdict
