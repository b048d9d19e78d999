from serverbench.cli.gate import markdown
from serverbench.judge.ab import GATE_POLICY, Judgement, decided
from serverbench.judge.decision import Policy, decide
from serverbench.records.decisions import Measurement


def _run(base, cand, errors=0.0, latency=None, max_error_rate=0.01):
    d = decide(base, cand)
    decisions = {"throughput": d, "cpu": decide(cand, base, Policy(higher_is_better=False))}
    if latency is not None:
        decisions["p50"] = decisions["p90"] = latency
    measured = Measurement(
        "simultaneous",
        ("base", "candidate"),
        {"throughput": (tuple(base), tuple(cand))},
        (),
        len(base),
        0,
        None if latency is None else 2000.0,
        42.0,
        {"base": 0.0, "candidate": errors},
        {"base": 50.0, "candidate": 51.0},
    )
    gated = ("throughput", "p50", "p90", "cpu") if latency is not None else ("throughput", "cpu")
    return decided(
        "aiohttp json c32",
        measured,
        Judgement(decisions, gated),
        policy=GATE_POLICY,
        max_error_rate=max_error_rate,
    )


SAME = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1]


def test_exit_status_by_verdict():
    """pass → 0, regression → 1, too few pairs → 3 (never 0), errors over the limit → 1."""
    assert _run(SAME, SAME, max_error_rate=0.01).exit_status == 0
    assert _run(SAME, [v * 0.8 for v in SAME], max_error_rate=0.01).exit_status == 1
    assert _run(SAME[:3], SAME[:3], max_error_rate=0.01).exit_status == 3
    assert _run(SAME, SAME, errors=0.05, max_error_rate=0.01).exit_status == 1


def test_markdown_step_summary_has_delta_interval_p_and_verdict():
    """The CI step summary shows Δ, its interval, p, n, dispersion and the verdict per signal."""
    text = markdown(_run(SAME, [v * 0.8 for v in SAME]))
    assert "| throughput (rps), saturated | -20.0% | [" in text
    assert "**regression**" in text and "| 8 |" in text
    assert "error rate: base 0.00%, candidate 0.00% (limit 1.00%)" in text
    assert "peak RSS: base 50.0 MB, candidate 51.0 MB (+2.0%)" in text


def test_a_latency_regression_alone_fails_the_cell():
    """Throughput and CPU unchanged but p50/p90 at the fixed rate 30% worse: exit 1, and the table says which."""
    slower = decide(SAME, [v * 1.3 for v in SAME], Policy(higher_is_better=False))
    run = _run(SAME, SAME, latency=slower)
    assert run.verdict == "regression" and run.exit_status == 1
    text = markdown(run)
    assert "| latency p50 at the fixed rate | +30.0% |" in text
    assert "fixed rate: 2000 req/s per arm" in text and ": **regression**" in text


def test_signal_policy_splits_alpha_over_gated_signals_only():
    """Each gated signal gets alpha / (cells x gated signals); a reported-only signal keeps alpha / cells."""
    from serverbench.judge.decision import Policy as P
    from serverbench.judge.signals import SIGNALS

    gate = P(alpha=0.01, cells=3, min_effect=0.03, max_dispersion=0.15)
    by_name = {s.name: s for s in SIGNALS}
    gated = sum(s.gated for s in SIGNALS)
    assert by_name["throughput"].policy(gate, gated).cell_alpha == 0.01 / (3 * gated)
    assert by_name["rss"].policy(gate, gated).cell_alpha == 0.01 / 3
    assert by_name["p50"].policy(gate, gated).min_effect == 0.10
    assert by_name["cpu"].policy(gate, gated).higher_is_better is False


def test_json_record_keeps_every_signal_and_the_paired_values():
    """--json writes the verdict, each signal's Δ/interval/p/n and the paired values, and round-trips as JSON."""
    import json

    rec = json.loads(json.dumps(_run(SAME, [v * 0.8 for v in SAME]).to_record()))
    assert rec["verdict"] == "regression" and rec["exit_status"] == 1
    assert rec["decisions"]["throughput"]["n"] == 8 and rec["decisions"]["throughput"]["delta"] < -0.19
    assert rec["pairs"]["throughput"]["base"] == SAME
