"""Each signal's own limits reach its policy (issue 22, mutation survivors of judge.signals)."""

from serverbench.judge.ab import GATE_POLICY
from serverbench.judge.signals import SIGNALS


def test_a_signals_own_dispersion_limit_replaces_the_gates():
    """Latency tolerates 30% dispersion and CPU the gate's 15%: each signal's policy carries its own limit."""
    by_name = {s.name: s for s in SIGNALS}
    assert by_name["p50"].policy(GATE_POLICY, 4).max_dispersion == 0.30
    assert by_name["cpu"].policy(GATE_POLICY, 4).max_dispersion == GATE_POLICY.max_dispersion == 0.15
