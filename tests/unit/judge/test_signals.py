"""Each signal's own limits reach its policy (issue 22, mutation survivors of judge.signals); the alpha shares
stay within the cell's alpha (issue 35, properties)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverbench.judge.ab import GATE_POLICY
from serverbench.judge.decision import Policy
from serverbench.judge.signals import SIGNALS, alpha_shares, gated_signals, judged_signals
from tests.unit.fuzzing import fuzz


def test_a_signals_own_dispersion_limit_replaces_the_gates():
    """Latency tolerates 30% dispersion and CPU the gate's 15%: each signal's policy carries its own limit."""
    by_name = {s.name: s for s in SIGNALS}
    assert by_name["p50"].policy(GATE_POLICY, 4).max_dispersion == 0.30
    assert by_name["cpu"].policy(GATE_POLICY, 4).max_dispersion == GATE_POLICY.max_dispersion == 0.15


@fuzz(200)
@given(
    st.lists(st.sampled_from(SIGNALS), unique_by=lambda s: s.name),
    st.floats(1e-4, 0.5),
    st.integers(1, 40),
)
def test_the_gated_signals_alpha_adds_up_to_the_cells_alpha_at_most(signals, alpha, cells):
    """Whatever signals are judged, the per-cell alphas of the gated ones that share alpha add up to the gate's
    per-cell alpha (Bonferroni), and a signal that takes no share keeps the whole of it."""
    gate = Policy(alpha=alpha, cells=cells)
    shares = alpha_shares(signals)
    assert shares == sum(1 for s in signals if s.gated and s.shares_alpha) <= len(signals)
    sharing = [s.policy(gate, shares).cell_alpha for s in signals if s.gated and s.shares_alpha]
    assert sum(sharing) == pytest.approx(gate.cell_alpha) if sharing else shares == 0
    for s in signals:
        own = s.policy(gate, shares)
        if not (s.gated and s.shares_alpha):
            assert own.cell_alpha == gate.cell_alpha
        assert own.higher_is_better == s.higher_is_better and own.detect == s.detect
        assert own.min_effect == (gate.min_effect if s.min_effect is None else s.min_effect)


@given(st.booleans())
def test_the_gated_signals_are_the_judged_ones_that_gate(rate):
    """With or without fixed-rate windows, the gated signals are the judged ones that gate, in their order, and
    the fixed-rate ones only with them."""
    judged = judged_signals(rate)
    assert gated_signals(rate) == [s for s in judged if s.gated]
    assert judged == [s for s in SIGNALS if rate or not s.rate_only]


def test_the_signals_a_decision_judges_gates_and_splits_alpha_over():
    """With fixed-rate windows a decision judges throughput, p50, p90, CPU, PSS, growth and RSS; without them the
    latency signals go.  All but RSS gate; alpha is split over throughput, p50, p90 and CPU (4 ways), or throughput
    and CPU (2) without fixed-rate windows."""
    assert [s.name for s in judged_signals(True)] == ["throughput", "p50", "p90", "cpu", "pss", "growth", "rss"]
    assert [s.name for s in judged_signals(False)] == ["throughput", "cpu", "pss", "growth", "rss"]
    assert [s.name for s in gated_signals(True)] == ["throughput", "p50", "p90", "cpu", "pss", "growth"]
    assert (alpha_shares(gated_signals(True)), alpha_shares(gated_signals(False))) == (4, 2)


def test_a_noisy_tail_never_withholds_the_verdict_but_still_fails_a_real_worsening():
    """p90's pairs spread about 100%, unsettled and not significant: a borderline pass, where a 30% limit asked for a
    rerun (throughput's pairs as spread still do); a 3x worse p90 as spread is still a regression."""
    import math
    from dataclasses import replace

    import numpy as np

    from serverbench.judge.decision import decide

    by_name = {s.name: s for s in SIGNALS}
    p90, throughput = by_name["p90"].policy(GATE_POLICY, 4), by_name["throughput"].policy(GATE_POLICY, 4)
    assert p90.max_dispersion == math.inf and throughput.max_dispersion == 0.15
    base = np.full(16, 10.0)
    spread = np.exp(np.tile([0.9, -0.7], 8))  # log ratios +0.9 and -0.7 in turn: a mean of +0.1, a MAD of 119%
    quiet = decide(base, base * spread, p90)
    assert quiet.verdict == "pass" and quiet.borderline, quiet.reason
    assert decide(base, base * spread, replace(p90, max_dispersion=0.30)).verdict == "rerun"
    assert decide(base, base * spread, throughput).verdict == "rerun"
    worse = decide(base, base * np.exp(np.tile([1.5, 0.9], 8)), p90)
    assert worse.verdict == "regression", worse.reason
