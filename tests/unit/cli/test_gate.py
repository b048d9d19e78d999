"""The gate's door (serverbench.cli.gate): its parser, its help, its exit status, what it prints and writes, and a
stored decision judged again (--rejudge).  The workflow behind it is tests/unit/gate's."""

import math
import sys
from dataclasses import replace

import pytest

from serverbench.cli import gate
from serverbench.judge.ab import GATE_POLICY, Judgement, decided, rejudge, stored_policy
from serverbench.judge.cost import Shift
from serverbench.judge.decision import Policy, decide
from serverbench.records import decisions
from serverbench.records.decisions import Decision, Measurement
from serverbench.report.gate import markdown, show
from tests.unit.gate.test_workflow import BASE, _slower_decision


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


def test_rejudge_appends_the_markdown_table_and_prints_every_signal(tmp_path, capsys):
    """--rejudge --markdown appends one table per run; the printed lines name each judged signal and the errors."""
    path, summary = tmp_path / "d.json", tmp_path / "summary.md"
    decisions.write(path, _slower_decision(errors={"base": 0.0, "candidate": 0.002}))
    summary.write_text("before\n")
    assert gate.main(["--rejudge", str(path), "--markdown", str(summary)]) == 1
    assert summary.read_text() == "before\n" + markdown(rejudge(decisions.read(path), GATE_POLICY, 0.01))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "✗ `json` under aiohttp: throughput −9.5% (−9.8 … −9.1%)"  # the verdict line leads
    assert out[2].startswith("  stopped: ")
    assert out[3].startswith("  throughput (rps), saturated                Δ -9.5% [")
    assert [line.split()[0] for line in out[3:6]] == ["throughput", "server", "peak"]
    assert out[-1] == "  error rate  base 0.00%, candidate 0.20%"


def test_rejudge_with_a_new_error_limit_changes_the_exit_status(tmp_path):
    """--max-error-rate on --rejudge replaces the stored limit: 0.1% turns an arm's 0.2% errors into exit 1."""
    path = tmp_path / "d.json"
    decisions.write(path, _slower_decision(cand=BASE, errors={"base": 0.0, "candidate": 0.002}))
    assert gate.main(["--rejudge", str(path)]) == 0
    assert gate.main(["--rejudge", str(path), "--max-error-rate", "0.001"]) == 1


def test_a_stored_policy_out_of_range_is_bad_input(tmp_path, capsys):
    """A decision file whose stored policy cannot be used is refused (exit 2), naming the file."""
    path = tmp_path / "d.json"
    decisions.write(path, replace(_slower_decision(), policy={**_slower_decision().policy, "alpha": 5.0}))
    assert gate.main(["--rejudge", str(path)]) == 2
    assert f"{path}: its stored policy cannot be used (Policy.alpha=5.0" in capsys.readouterr().err


def test_a_policy_needs_no_direction_to_be_stored():
    """The stored policy's limits rebuild the policy: its direction is each signal's (higher is better here)."""
    assert stored_policy(_slower_decision()) == Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)


def test_the_gate_without_a_variant_outside_a_project_says_what_is_required(tmp_path, capsys):
    """No --variant and no perf_app in --repo: argparse's usage error (exit 2) names --variant and the project way."""
    with pytest.raises(SystemExit) as stop:
        gate.main(["--repo", str(tmp_path)])
    assert stop.value.code == 2
    assert (
        "the following arguments are required: --variant (or run it in a project whose pytest configuration "
        "names perf_app)"
    ) in capsys.readouterr().err


def test_ctrl_c_during_the_gate_exits_130(monkeypatch, capsys):
    """A KeyboardInterrupt while the arms run exits 128 + SIGINT, saying what was cleaned up."""

    def interrupted(plan):
        raise KeyboardInterrupt

    _decided(monkeypatch, interrupted)
    assert gate.main(["--variant", "aiohttp"]) == 130
    assert "interrupted: the servers, backends and base worktree were stopped" in capsys.readouterr().err


def _decided(monkeypatch, run) -> None:
    """The gate's workflow replaced by ``run`` (on the options as its plan): main's own part, with no server."""
    monkeypatch.setattr(gate, "resolve", lambda options: options)
    monkeypatch.setattr(gate.workflow, "run", run)


SHIFT = Shift("python", "handler", "app.views", "app", "app", 10.0, 25.0, 0.015)


def _endpoint(name: str):
    """A user project's decision on endpoint ``name`` (its cell names the endpoint second to last)."""
    return replace(_slower_decision(), cell=f"aiohttp/myapp {name} c32")


def test_the_gate_prints_and_summarises_where_a_cost_regression_came_from(monkeypatch, tmp_path, capsys):
    """Each run's cost shifts are printed and in the Markdown summary, one table per run appended in order."""
    runs = [(_endpoint("list"), (SHIFT,)), (_endpoint("detail"), ())]
    _decided(monkeypatch, lambda plan: runs)
    summary = tmp_path / "summary.md"
    gate.main(["--variant", "aiohttp", "--markdown", str(summary)])
    out = capsys.readouterr().out
    assert "where the counted cost came from (functions by change):" in out and SHIFT.line() in out
    assert summary.read_text() == markdown(*runs[0]) + markdown(*runs[1])
    assert "`app.views.handler`" in summary.read_text()


def test_several_decisions_are_written_one_file_each_named_by_endpoint(monkeypatch, tmp_path):
    """--json with a project's two endpoints: d-list.json and d-detail.json, each holding its own decision; one
    decision is written to the name given."""
    runs = [(_endpoint("list"), ()), (_endpoint("detail"), ())]
    _decided(monkeypatch, lambda plan: runs)
    gate.main(["--variant", "aiohttp", "--json", str(tmp_path / "d.json")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d-detail.json", "d-list.json"]
    assert decisions.read(tmp_path / "d-list.json").cell == "aiohttp/myapp list c32"
    assert decisions.read(tmp_path / "d-detail.json").cell == "aiohttp/myapp detail c32"
    _decided(monkeypatch, lambda plan: runs[:1])
    gate.main(["--variant", "aiohttp", "--json", str(tmp_path / "one.json")])
    assert decisions.read(tmp_path / "one.json").cell == "aiohttp/myapp list c32"


def test_rejudge_keeps_the_stored_error_limit_unless_one_is_given(tmp_path):
    """A decision stored with a 5% error limit and a candidate at 2% errors passes again (not the gate's 1%
    default); --max-error-rate 0.01 fails it."""
    path = tmp_path / "d.json"
    decisions.write(
        path, replace(_slower_decision(cand=BASE, errors={"base": 0.0, "candidate": 0.02}), max_error_rate=0.05)
    )
    assert gate.main(["--rejudge", str(path)]) == 0
    assert gate.main(["--rejudge", str(path), "--max-error-rate", "0.01"]) == 1


def test_the_parsers_defaults_are_the_gates():
    """No option given: the gate's blocks, auto rate at a quarter load, no retry, empty lists; the shared options
    left None (their gate defaults are applied by shared_options)."""

    assert vars(gate.parser().parse_args([])) == {
        "variant": None,
        "app": None,
        "workload": None,
        "endpoint": [],
        "base_ref": None,
        "repo": ".",
        "base_python": sys.executable,
        "cand_python": sys.executable,
        "base_env": [],
        "cand_env": [],
        "mode": None,
        "blocks": 16,
        "rounds": 2,
        "perf_duration": None,
        "perf_warmup": None,
        "perf_connections": None,
        "perf_max_error_rate": None,
        "redis_url": None,
        "mongo_url": None,
        "upstream_url": None,
        "rate": "auto",
        "load": 0.25,
        "alpha": None,
        "cells": None,
        "min_effect": None,
        "retries": 0,
        "cost_repeats": None,
        "markdown": None,
        "json": None,
        "rejudge": None,
    }


def test_the_parser_reads_each_option_into_its_type():
    """Repeatable options append, numbers are parsed, a mode outside the two is refused."""
    args = gate.parser().parse_args(
        [
            "--endpoint",
            "a",
            "--endpoint",
            "b",
            "--base-env",
            "A=1",
            "--base-env",
            "B=2",
            "--cand-env",
            "C=3",
            "--mode",
            "sequential",
            "--blocks",
            "7",
            "--load",
            "0.5",
            "--retries",
            "0",
            "--cost-repeats",
            "4",
            "--duration",
            "9",
            "--rejudge",
            "d.json",
        ]
    )
    assert (args.endpoint, args.base_env, args.cand_env) == (["a", "b"], ["A=1", "B=2"], ["C=3"])
    assert (args.mode, args.blocks, args.load, args.retries, args.cost_repeats) == ("sequential", 7, 0.5, 0, 4)
    assert (args.perf_duration, args.rejudge) == ("9", "d.json")
    assert gate.parser().parse_args(["--mode", "simultaneous"]).mode == "simultaneous"
    with pytest.raises(SystemExit):
        gate.parser().parse_args(["--mode", "both"])


def test_the_help_names_each_value_and_the_gates_defaults():
    """--help: the command, the first line of the module's doc, each option's value name, the gate's own defaults
    of the shared options (one connection count), and none for an option without a default."""
    text = " ".join(gate.parser().format_help().split())
    assert text.startswith("usage: serverbench gate [-h]")
    assert (
        "The A/B regression gate as a command: base (a git ref, interpreter or environment) vs the working tree. "
        "options:" in text
    )
    for shown in (
        "--endpoint NAME",
        "--base-env NAME=VALUE",
        "--cand-env NAME=VALUE",
        "--rejudge DECISION.json",
        "--mode {simultaneous,sequential}",
        "--duration DURATION",
        "--max-error-rate MAX_ERROR_RATE",
        "each a test. Here: one count, default 32.",
        "the lead-in of the measured run itself. Default here: 1.",
        "trial may have and pass. Default here: 0.01.",
        "--redis-url REDIS_URL Use this running Redis (redis://127.0.0.1:PORT/DB) instead of starting "
        "redis-server. --mongo-url",
    ):
        assert shown in text


def test_the_gate_shows_which_system_calls_moved(capsys):
    """The counted system decision prints its reason (the calls by name) on the terminal and in the markdown."""

    from serverbench.judge.ab import SYSTEM

    said = "rose: +1.00 clock_nanosleep per request (0.00 -> 1.00)"
    run = _run(SAME, SAME)
    run = replace(
        run,
        decisions={
            **run.decisions,
            SYSTEM: Decision("regression", 1.0, (1.0, 1.0), math.nan, 1, math.nan, False, said, "per request"),
        },
    )
    show(run)
    out = capsys.readouterr().out
    assert "system calls, memory kept (counted)" in out and said in out
    assert f"system calls, connections, memory kept (counted): {said}" in markdown(run)
    assert "| system calls, memory kept (counted) | +1.000 per request |" in markdown(run)
