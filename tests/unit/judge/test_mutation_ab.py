"""The A/B judge's bookkeeping (issue 22, mutation survivors): gated signals with cost, the stored policy, and
judging a stored decision again."""

from dataclasses import replace

import numpy as np

from serverbench.judge.ab import (
    COST,
    GATE_POLICY,
    decided,
    judge,
    min_blocks,
    policy_record,
    rejudge,
    stored_policy,
)
from serverbench.judge.decision import Policy
from serverbench.records.decisions import Measurement


def _pairs(throughput=1.0, n=12, rate=True):
    rng = np.random.default_rng(3)

    def pair(level, factor):
        base = level * np.exp(rng.normal(0, 0.01, n))
        return tuple(base), tuple(base * factor * np.exp(rng.normal(0, 0.01, n)))

    out = {"throughput": pair(10_000, throughput), "cpu": pair(80, 1.0), "rss": pair(44.0, 1.0)}
    if rate:
        out |= {"p50": pair(1.0, 1.0), "p90": pair(2.0, 1.0)}
    return out


def _measurement(pairs, rate=None, error_rate=None):
    return Measurement(
        "simultaneous",
        ("base", "candidate"),
        pairs,
        (),
        12,
        0,
        rate,
        60.0,
        error_rate or {"base": 0.0, "candidate": 0.0},
        {"base": 44.0, "candidate": 44.0},
    )


def test_counted_cost_gates_beside_the_other_signals():
    """With counts measured, cost is added to the gated signals; the others still gate."""
    pairs = {**_pairs(), COST: ((1000.0, 1000.0), (1000.0, 1000.0))}
    assert judge(pairs, True, GATE_POLICY).gated == ("throughput", "p50", "p90", "cpu", COST)


def test_min_blocks_counts_one_pair_per_block_by_default():
    """By default each block gives one pair: the blocks needed equal the pairs needed; two per block halve it."""
    one = min_blocks(GATE_POLICY, True)
    assert min_blocks(GATE_POLICY, True, pairs_per_block=1) == one
    assert min_blocks(GATE_POLICY, True, pairs_per_block=2) == (one + 1) // 2 < one


def test_policy_record_keeps_the_limits_not_the_direction():
    """A stored policy has alpha, cells, min_effect, min_pairs and max_dispersion, not higher_is_better."""
    assert policy_record(Policy(alpha=0.02, cells=3)) == {
        "alpha": 0.02,
        "cells": 3,
        "min_effect": 0.05,
        "min_pairs": 5,
        "max_dispersion": 0.10,
    }


def test_stored_policy_reads_back_the_policy_judged_under():
    """A decision's stored policy is the one it was judged under; an unknown key is ignored."""
    pol = Policy(alpha=0.02, cells=3, min_effect=0.07, min_pairs=6, max_dispersion=0.2)
    d = decided("c", _measurement(_pairs()), judge(_pairs(), True, pol), policy=pol, max_error_rate=0.01)
    assert stored_policy(d) == pol
    assert stored_policy(replace(d, policy={**d.policy, "future": 1})) == pol


def test_decided_keeps_the_gated_signals_and_the_exit_status():
    """The decision record names the gated signals, and its exit status follows the verdict."""
    pairs = _pairs(throughput=0.8)
    d = decided(
        "c",
        _measurement(pairs, rate=100.0),
        judge(pairs, True, GATE_POLICY),
        policy=GATE_POLICY,
        max_error_rate=0.01,
    )
    assert d.gated == ("throughput", "p50", "p90", "cpu")
    assert (d.verdict, d.exit_status, d.stopped, d.max_error_rate) == ("regression", 1, "regression", 0.01)


def test_rejudge_judges_the_fixed_rate_signals_when_they_were_measured():
    """A stored decision with a fixed rate is judged again on its latency signals too; one without, not."""
    pairs = _pairs()
    stored = decided(
        "c",
        _measurement(pairs, rate=100.0),
        judge(pairs, True, GATE_POLICY),
        policy=GATE_POLICY,
        max_error_rate=0.01,
    )
    again = rejudge(stored, GATE_POLICY, 0.01)
    assert again.gated == ("throughput", "p50", "p90", "cpu") and "p50" in again.decisions
    unrated = _pairs(rate=False)
    stored = decided(
        "c",
        _measurement(unrated),
        judge(unrated, False, GATE_POLICY),
        policy=GATE_POLICY,
        max_error_rate=0.01,
    )
    assert rejudge(stored, GATE_POLICY, 0.01).gated == ("throughput", "cpu")
