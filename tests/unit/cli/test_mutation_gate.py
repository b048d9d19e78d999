"""The gate command's pure parts: its options, its lines and its exit status (issue 22, mutation survivors of
cli.gate).  Nothing here starts a server: the live run is the integration tests'."""

from dataclasses import replace

import pytest

from serverbench.cli import gate
from serverbench.errors import ConfigError
from serverbench.judge.ab import GATE_POLICY, decided, judge
from serverbench.judge.cost import Shift
from serverbench.judge.decision import Policy
from serverbench.records import decisions
from serverbench.records.decisions import Measurement

BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7, 100.0, 100.4]
SLOWER = [v * (0.9 + 0.001 * k) for k, v in enumerate(BASE)]


def _decision(cand=SLOWER, rate=None, rss=None, errors=None):
    pairs = {
        "throughput": (tuple(BASE), tuple(cand)),
        "cpu": (tuple(BASE), tuple(BASE)),
        "rss": (tuple(BASE), tuple(BASE)),
    }
    measured = Measurement(
        "simultaneous",
        ("base", "candidate"),
        pairs,
        (),
        len(BASE),
        1,
        rate,
        60.0,
        errors or {"base": 0.0, "candidate": 0.0},
        rss or {"base": 44.0, "candidate": 44.5},
    )
    return decided(
        "aiohttp/aiohttp json c32",
        measured,
        judge(pairs, rate is not None, GATE_POLICY),
        policy=GATE_POLICY,
        max_error_rate=0.01,
    )


def _args(*argv):
    return gate.parser().parse_args(["--variant", "aiohttp", *argv])


def test_exit_status_of_several_decisions_is_the_worst():
    """A regression (1) outranks an inconclusive decision (3), which outranks passes (0); none is 0."""

    def status(*codes):
        return gate.exit_status([replace(_decision(), exit_status=c) for c in codes])

    assert status(0, 3, 1) == 1 and status(3, 0) == 3 and status(0, 0) == 0 and gate.exit_status([]) == 0
    assert status(0, 2) == 2


@pytest.mark.parametrize("text, value", [("auto", "auto"), ("off", None), ("250", 250.0), ("0.5", 0.5)])
def test_rate_accepts_auto_off_and_a_positive_number(text, value):
    """--rate is 'auto', 'off' (None) or requests/s > 0."""
    assert gate._rate(text) == value


@pytest.mark.parametrize("text", ["0", "-1", "inf", "nan", "fast"])
def test_rate_refuses_what_is_not_a_positive_finite_rate(text):
    """--rate 0, a negative, infinite or non-number rate is refused, naming the value."""
    with pytest.raises(ConfigError, match=f"--rate {text!r}: give requests/s > 0"):
        gate._rate(text)


def test_env_settings_are_name_value_split_at_the_first_equals():
    """--base-env A=1 B=x=y gives {A: 1, B: x=y}; a setting without '=' is refused by name."""
    assert gate._env(["A=1", "B=x=y"]) == {"A": "1", "B": "x=y"}
    with pytest.raises(ConfigError, match=r"must look like NAME=VALUE, got \['C'\]"):
        gate._env(["A=1", "C"])


def test_rate_and_rss_lines():
    """The fixed-rate line names the rate or its absence; the RSS line both peaks and the change."""
    assert (
        gate.rate_line(_decision(rate=250.0))
        == "250 req/s per arm (oha, open model, latency from the intended send time)"
    )
    assert gate.rate_line(_decision()).startswith("no fixed-rate windows (--rate off)")
    assert gate.rss_line(_decision()) == "base 44.0 MB, candidate 44.5 MB (+1.1%)"
    assert gate.rss_line(_decision(rss={"candidate": 10.0})) == "base 0.0 MB, candidate 10.0 MB"


def test_policy_of_takes_the_limits_given_and_refuses_bad_ones():
    """--alpha, --cells and --min-effect replace the policy's; an out-of-range one is a ConfigError naming them."""
    assert gate.policy_of(_args(), GATE_POLICY) == GATE_POLICY
    assert gate.policy_of(_args("--alpha", "0.05", "--cells", "4", "--min-effect", "0.1"), GATE_POLICY) == replace(
        GATE_POLICY, alpha=0.05, cells=4, min_effect=0.1
    )
    with pytest.raises(ConfigError, match="--alpha / --cells / --min-effect: Policy.alpha=2.0"):
        gate.policy_of(_args("--alpha", "2"), GATE_POLICY)


def test_check_names_lists_every_unknown_name():
    """An unknown variant, app and workload are all named in one error, with the known ones."""
    args = gate.parser().parse_args(["--variant", "nope", "--app", "nada", "--workload", "zilch"])
    with pytest.raises(ConfigError) as err:
        gate.check_names(args)
    lines = str(err.value).splitlines()
    assert [line.split(";")[0] for line in lines] == [
        "unknown variant 'nope'",
        "unknown app 'nada'",
        "unknown workload 'zilch'",
    ]
    gate.check_names(_args("--workload", "json"))


def test_check_blocks_refuses_too_few_blocks_to_reach_alpha():
    """Blocks that give fewer pairs than the split alpha needs are refused, naming the fewest that work."""
    fewest = gate.min_blocks(GATE_POLICY, True, 1)
    gate.check_blocks(_args("--blocks", str(fewest), "--mode", "simultaneous"), GATE_POLICY, "auto")
    with pytest.raises(
        ConfigError,
        match=f"--blocks {fewest - 1} gives {fewest - 1} pairs \\(simultaneous\\), too few"
        f".*use --blocks {fewest} or more",
    ):
        gate.check_blocks(_args("--blocks", str(fewest - 1), "--mode", "simultaneous"), GATE_POLICY, "auto")


def test_cost_repeats_given_must_be_zero_or_more():
    """--cost-repeats 0, 1 and 2 are taken as given; -1 is refused."""
    assert gate.cost_repeats(_args("--cost-repeats", "0")) == 0
    assert gate.cost_repeats(_args("--cost-repeats", "1")) == 1
    assert gate.cost_repeats(_args("--cost-repeats", "2")) == 2
    for bad in ("-1",):
        with pytest.raises(ConfigError, match=f"--cost-repeats {bad}: use 0"):
            gate.cost_repeats(_args("--cost-repeats", bad))


def test_the_gate_takes_one_connection_count():
    """--connections with two counts is refused: both arms run at one count."""
    with pytest.raises(ConfigError, match="--connections takes one count in the gate"):
        gate.shared_options(_args("--connections", "8,16"))
    assert gate.shared_options(_args("--connections", "8"))["perf_connections"] == (8,)


def test_rejudge_appends_the_markdown_table_and_prints_every_signal(tmp_path, capsys):
    """--rejudge --markdown appends one table per run; the printed lines name each judged signal and the errors."""
    path, summary = tmp_path / "d.json", tmp_path / "summary.md"
    decisions.write(path, _decision(errors={"base": 0.0, "candidate": 0.002}))
    summary.write_text("before\n")
    assert gate.main(["--rejudge", str(path), "--markdown", str(summary)]) == 1
    assert summary.read_text() == "before\n" + gate.markdown(gate.rejudge(decisions.read(path), GATE_POLICY, 0.01))
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("  stopped: ")
    assert out[2].startswith("  throughput (rps), saturated                Δ -9.5% [")
    assert [line.split()[0] for line in out[2:5]] == ["throughput", "server", "peak"]
    assert out[-1] == "  error rate  base 0.00%, candidate 0.20%"


def test_rejudge_with_a_new_error_limit_changes_the_exit_status(tmp_path):
    """--max-error-rate on --rejudge replaces the stored limit: 0.1% turns an arm's 0.2% errors into exit 1."""
    path = tmp_path / "d.json"
    decisions.write(path, _decision(cand=BASE, errors={"base": 0.0, "candidate": 0.002}))
    assert gate.main(["--rejudge", str(path)]) == 0
    assert gate.main(["--rejudge", str(path), "--max-error-rate", "0.001"]) == 1


def test_a_stored_policy_out_of_range_is_bad_input(tmp_path, capsys):
    """A decision file whose stored policy cannot be used is refused (exit 2), naming the file."""
    path = tmp_path / "d.json"
    decisions.write(path, replace(_decision(), policy={**_decision().policy, "alpha": 5.0}))
    assert gate.main(["--rejudge", str(path)]) == 2
    assert f"{path}: its stored policy cannot be used (Policy.alpha=5.0" in capsys.readouterr().err


def test_a_policy_needs_no_direction_to_be_stored():
    """The stored policy's limits rebuild the policy: its direction is each signal's (higher is better here)."""
    assert gate.stored_policy(_decision()) == Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)


def test_unknown_names_are_listed_with_every_known_one():
    """The error for an unknown variant, app or workload lists the known names, comma-separated."""
    from serverbench.catalog.apps import APPS
    from serverbench.catalog.variants import registry
    from serverbench.catalog.workloads import WORKLOADS

    args = gate.parser().parse_args(["--variant", "nope", "--app", "nada", "--workload", "zilch"])
    with pytest.raises(ConfigError) as err:
        gate.check_names(args)
    text = str(err.value)
    for known in (registry(), APPS, WORKLOADS):
        assert ", ".join(known) in text


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

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(gate, "run_live", interrupted)
    assert gate.main(["--variant", "aiohttp"]) == 130
    assert "interrupted: the servers, backends and base worktree were stopped" in capsys.readouterr().err


SHIFT = Shift("python", "handler", "app.views", "app", "app", 10.0, 25.0, 0.015)


def _endpoint(name: str):
    """A user project's decision on endpoint ``name`` (its cell names the endpoint second to last)."""
    return replace(_decision(), cell=f"aiohttp/myapp {name} c32")


def test_the_gate_prints_and_summarises_where_a_cost_regression_came_from(monkeypatch, tmp_path, capsys):
    """Each run's cost shifts are printed and in the Markdown summary, one table per run appended in order."""
    runs = [(_endpoint("list"), (SHIFT,)), (_endpoint("detail"), ())]
    monkeypatch.setattr(gate, "run_live", lambda args: runs)
    summary = tmp_path / "summary.md"
    gate.main(["--variant", "aiohttp", "--markdown", str(summary)])
    out = capsys.readouterr().out
    assert "where the counted cost came from (functions by change):" in out and SHIFT.line() in out
    assert summary.read_text() == gate.markdown(*runs[0]) + gate.markdown(*runs[1])
    assert "`app.views.handler`" in summary.read_text()


def test_several_decisions_are_written_one_file_each_named_by_endpoint(monkeypatch, tmp_path):
    """--json with a project's two endpoints: d-list.json and d-detail.json, each holding its own decision; one
    decision is written to the name given."""
    runs = [(_endpoint("list"), ()), (_endpoint("detail"), ())]
    monkeypatch.setattr(gate, "run_live", lambda args: runs)
    gate.main(["--variant", "aiohttp", "--json", str(tmp_path / "d.json")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d-detail.json", "d-list.json"]
    assert decisions.read(tmp_path / "d-list.json").cell == "aiohttp/myapp list c32"
    assert decisions.read(tmp_path / "d-detail.json").cell == "aiohttp/myapp detail c32"
    monkeypatch.setattr(gate, "run_live", lambda args: runs[:1])
    gate.main(["--variant", "aiohttp", "--json", str(tmp_path / "one.json")])
    assert decisions.read(tmp_path / "one.json").cell == "aiohttp/myapp list c32"


def test_rejudge_keeps_the_stored_error_limit_unless_one_is_given(tmp_path):
    """A decision stored with a 5% error limit and a candidate at 2% errors passes again (not the gate's 1%
    default); --max-error-rate 0.01 fails it."""
    path = tmp_path / "d.json"
    decisions.write(path, replace(_decision(cand=BASE, errors={"base": 0.0, "candidate": 0.02}), max_error_rate=0.05))
    assert gate.main(["--rejudge", str(path)]) == 0
    assert gate.main(["--rejudge", str(path), "--max-error-rate", "0.01"]) == 1


def test_the_parsers_defaults_are_the_gates():
    """No option given: the gate's blocks, auto rate at a quarter load, no retry, empty lists; the shared options
    left None (their gate defaults are applied by shared_options)."""
    import sys

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


def test_the_lines_read_whole_and_an_arm_without_a_peak_is_zero():
    """The no-rate line in full; an arm with no RSS peak reads 0.0 MB (the change then from the base's peak)."""
    assert gate.rate_line(_decision()) == (
        "no fixed-rate windows (--rate off): latency not gated, CPU per request from the saturated windows"
    )
    assert gate.rss_line(_decision(rss={"base": 10.0})) == "base 10.0 MB, candidate 0.0 MB (-100.0%)"
