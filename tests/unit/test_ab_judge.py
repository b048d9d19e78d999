"""The A/B judge on synthetic pairs: which signals are judged, the verdict, extension and retry, min_blocks."""

import numpy as np

from serverbench.judge.ab import GATE_POLICY, Step, exit_status, judge, min_blocks, next_step
from serverbench.judge.decision import Policy

SAME = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7, 100.0, 100.4]


def _pairs(throughput=1.0, cpu=1.0, p50=1.0, n=12, seed=1):
    """Paired values per signal: the candidate is the base times each factor, with 1% noise."""
    rng = np.random.default_rng(seed)

    def pair(level, factor):
        base = level * np.exp(rng.normal(0, 0.01, n))
        return tuple(base), tuple(base * factor * np.exp(rng.normal(0, 0.01, n)))

    return {
        "throughput": pair(10_000, throughput),
        "cpu": pair(80, cpu),
        "p50": pair(1.0, p50),
        "p90": pair(2.0, p50),
        "rss": pair(44.0, 1.0),
    }


def test_identical_arms_pass_on_every_judged_signal():
    """A/A pairs: every signal is judged, none regresses, the verdict is pass; peak RSS is judged, not gated."""
    j = judge(_pairs(), True, GATE_POLICY)
    assert set(j.decisions) == {"throughput", "p50", "p90", "cpu", "rss"}
    assert j.gated == ("throughput", "p50", "p90", "cpu")
    assert j.verdict == "pass", {k: d.summary() for k, d in j.decisions.items()}


def test_a_cpu_regression_alone_fails_the_decision():
    """CPU per request 10% worse, throughput unchanged: the combined verdict is regression."""
    j = judge(_pairs(cpu=1.10), True, GATE_POLICY)
    assert j.decisions["cpu"].verdict == "regression" and j.decisions["throughput"].verdict == "pass"
    assert j.verdict == "regression"


def test_without_fixed_rate_windows_latency_is_neither_judged_nor_gated():
    """rate=False: throughput, CPU and RSS are judged, throughput and CPU gate (alpha split over two)."""
    j = judge(_pairs(), False, GATE_POLICY)
    assert set(j.decisions) == {"throughput", "cpu", "rss"} and j.gated == ("throughput", "cpu")


def test_a_signal_without_pairs_is_inconclusive_never_pass():
    """Every pair of a signal discarded: it is judged on none, and the decision is inconclusive."""
    pairs = _pairs()
    del pairs["p50"]
    j = judge(pairs, True, GATE_POLICY)
    assert j.decisions["p50"].verdict == "inconclusive" and j.decisions["p50"].n == 0
    assert j.verdict == "inconclusive"


def test_borderline_extends_once_by_half_the_blocks():
    """A borderline throughput verdict asks for half as many blocks again, after the attempt's; only once."""
    j = judge(_pairs(throughput=0.97, n=12, seed=3), True, GATE_POLICY)
    assert j.borderline, j.decisions["throughput"].summary()
    assert next_step(j, blocks=12, extended=False, attempt=0, extend=True, retries=1) == Step(True, 6, 12)
    assert j.verdict == "pass" and next_step(j, blocks=12, extended=True, attempt=0, extend=True, retries=1) is None
    assert next_step(j, blocks=1, extended=False, attempt=0, extend=True, retries=0) == Step(True, 1, 1)
    assert next_step(j, blocks=12, extended=False, attempt=0, extend=False, retries=0) is None


def test_unreached_verdict_retries_with_twice_the_blocks_up_to_retries():
    """Inconclusive: a fresh attempt of twice the blocks while retries are left, then the verdict stands."""
    j = judge(_pairs(n=3), True, GATE_POLICY)
    assert j.verdict == "inconclusive" and not j.borderline
    assert next_step(j, blocks=3, extended=False, attempt=0, extend=True, retries=1) == Step(False, 6, 0)
    assert next_step(j, blocks=6, extended=False, attempt=1, extend=True, retries=1) is None
    assert next_step(j, blocks=3, extended=False, attempt=0, extend=True, retries=0) is None


def test_a_reached_verdict_is_final():
    """Pass or regression without a borderline signal: nothing more is measured."""
    j = judge(_pairs(throughput=0.5, cpu=2.0), True, GATE_POLICY)
    assert j.verdict == "regression" and not j.borderline
    assert next_step(j, blocks=12, extended=False, attempt=0, extend=True, retries=3) is None


def test_min_blocks_reaches_every_gated_signals_level():
    """alpha 0.01 over 4 gated signals needs 9 pairs (0.5**9 < 0.0025): 9 simultaneous or 5 sequential blocks."""
    assert min_blocks(GATE_POLICY, True, 1) == 9
    assert min_blocks(GATE_POLICY, True, 2) == 5
    assert min_blocks(GATE_POLICY, False, 1) == 8  # alpha / 2 signals: 0.5**8 < 0.005
    assert min_blocks(Policy(alpha=0.01, cells=10, min_effect=0.03), True, 1) > 9


def test_exit_status_of_verdicts_and_error_rates():
    """0 pass/improvement, 1 regression or an arm's error rate over the limit, 3 rerun/inconclusive."""
    clean = {"base": 0.0, "candidate": 0.0}
    assert [exit_status(v, clean, 0.01) for v in ("pass", "improvement", "regression", "rerun", "inconclusive")] == [
        0,
        0,
        1,
        3,
        3,
    ]
    assert exit_status("pass", {"base": 0.0, "candidate": 0.02}, 0.01) == 1
