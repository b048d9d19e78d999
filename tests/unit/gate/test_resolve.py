"""A gate's options resolved into its plan (serverbench.gate.resolve): each value checked before anything starts,
with a message naming the option and its fix.  No server starts."""

from dataclasses import replace
from pathlib import Path

import pytest

from serverbench.cli import gate as command
from serverbench.errors import ConfigError
from serverbench.gate import resolve
from serverbench.gate.options import COST_REPEATS, GateOptions
from serverbench.gate.served import served
from serverbench.judge.ab import GATE_POLICY, min_blocks
from serverbench.judge.decision import Policy

ROOT = Path(__file__).resolve().parents[3]  # a checkout with apps/ and no perf_app


def _args(*argv) -> GateOptions:
    """The options of a gate of aiohttp with ``argv`` given (read by the gate's own parser)."""
    return GateOptions.of(command.parser().parse_args(["--variant", "aiohttp", *argv]))


def _cost(*argv) -> int:
    """The counted runs per arm of the gate ``--variant *argv`` asks for, on the cell it names."""
    options = GateOptions.of(command.parser().parse_args(["--variant", *argv]))
    return resolve.cost_repeats(options, served(ROOT, options.variant, options.app, None, (), "gate"))


def test_cost_repeats_default_depends_on_the_runtime_and_valgrind(monkeypatch, capsys):
    """No --cost-repeats: 0 for a non-Python app (the variant's or --app's), the default count when valgrind can
    count (whatever the variant, when its app is Python: a user's app always is), 0 with a note naming what is
    missing."""
    monkeypatch.setattr(resolve, "valgrind_missing", lambda: None)
    assert _cost("aiohttp") == COST_REPEATS == 1
    assert _cost("aiohttp", "--app", "node") == 0
    assert _cost("node-http") == 0
    assert _cost("node-http", "--app", "flask") == 1
    assert capsys.readouterr().err == "note: no cost signal (instructions are counted for Python servers only)\n" * 2
    monkeypatch.setattr(resolve, "valgrind_missing", lambda: "valgrind is not installed")
    assert _cost("aiohttp") == 0
    assert capsys.readouterr().err == "note: no cost signal (valgrind is not installed)\n"
    assert _cost("aiohttp", "--cost-repeats", "2") == 2


def test_every_decision_of_a_gate_runs_on_the_hosts_its_door_resolved(tmp_path):
    """The options' inventory is each decision plan's (as text, as the runner loads it); none given, none."""
    from serverbench.catalog.workloads import WORKLOADS
    from serverbench.measure.trials.arms import Arm

    inventory = tmp_path / "hosts.toml"
    options = replace(_args("--cost-repeats", "0"), hosts=inventory)
    arms = (Arm("base"), Arm("candidate"))
    assert resolve.resolve(options).decision(WORKLOADS["json"], arms, {}).hosts == str(inventory)
    assert resolve.resolve(_args("--cost-repeats", "0")).decision(WORKLOADS["json"], arms, {}).hosts is None


def test_shared_options_default_to_the_gates_own_values():
    """No shared option given: the gate's defaults (1 s windows, 1 s warm-up, 32 connections), not pytest's."""
    values = resolve.shared_options(_args())
    assert values == {
        "perf_duration": 1,
        "perf_warmup": 1,
        "perf_connections": (32,),
        "perf_max_error_rate": 0.01,
        "redis_url": None,
        "mongo_url": None,
        "upstream_url": None,
    }


def test_shared_options_report_every_bad_value_at_once():
    """Two bad shared options: one ConfigError with a line for each."""
    args = _args("--duration", "x", "--warmup", "y")
    with pytest.raises(ConfigError) as err:
        resolve.shared_options(args)
    assert len(str(err.value).splitlines()) == 2


@pytest.mark.parametrize("mode, pairs", [("simultaneous", 1), ("sequential", 2)])
def test_check_blocks_counts_the_default_modes_pairs_and_the_rate(monkeypatch, mode, pairs):
    """No --mode: the machine's default mode sets the pairs per block; a fixed rate adds the latency signal,
    which needs more blocks than no rate."""
    monkeypatch.setattr(resolve, "default_mode", lambda: mode)
    args = _args()
    rated, unrated = min_blocks(GATE_POLICY, True, pairs), min_blocks(GATE_POLICY, False, pairs)
    assert rated > unrated
    for rate, fewest in (("auto", rated), (None, unrated), (150.0, rated)):
        args = replace(args, blocks=fewest)
        resolve.check_blocks(args, GATE_POLICY, rate)
        args = replace(args, blocks=fewest - 1)
        with pytest.raises(ConfigError, match=f"--blocks {fewest - 1} gives {pairs * (fewest - 1)} pairs \\({mode}\\)"):
            resolve.check_blocks(args, GATE_POLICY, rate)


def test_check_blocks_names_the_policy_it_could_not_reach():
    """The refusal names alpha and the cells it is split over."""
    policy = Policy(alpha=0.02, cells=3)
    args = _args("--blocks", "1", "--mode", "simultaneous")
    with pytest.raises(ConfigError, match=r"alpha 0.02 / \(3 cells x gated signals\)"):
        resolve.check_blocks(args, policy, None)


@pytest.mark.parametrize("text, value", [("auto", "auto"), ("off", None), ("250", 250.0), ("0.5", 0.5)])
def test_rate_accepts_auto_off_and_a_positive_number(text, value):
    """--rate is 'auto', 'off' (None) or requests/s > 0."""
    assert resolve.rate_of(text) == value


@pytest.mark.parametrize("text", ["0", "-1", "inf", "nan", "fast"])
def test_rate_refuses_what_is_not_a_positive_finite_rate(text):
    """--rate 0, a negative, infinite or non-number rate is refused, naming the value."""
    with pytest.raises(ConfigError, match=f"--rate {text!r}: give requests/s > 0"):
        resolve.rate_of(text)


def test_env_settings_are_name_value_split_at_the_first_equals():
    """--base-env A=1 B=x=y gives {A: 1, B: x=y}; a setting without '=' is refused by name."""
    assert resolve.env_of(["A=1", "B=x=y"]) == {"A": "1", "B": "x=y"}
    with pytest.raises(ConfigError, match=r"must look like NAME=VALUE, got \['C'\]"):
        resolve.env_of(["A=1", "C"])


def test_policy_of_takes_the_limits_given_and_refuses_bad_ones():
    """--alpha, --cells and --min-effect replace the policy's; an out-of-range one is a ConfigError naming them."""
    assert resolve.policy_of(_args(), GATE_POLICY) == GATE_POLICY
    assert resolve.policy_of(_args("--alpha", "0.05", "--cells", "4", "--min-effect", "0.1"), GATE_POLICY) == replace(
        GATE_POLICY, alpha=0.05, cells=4, min_effect=0.1
    )
    with pytest.raises(ConfigError, match="--alpha / --cells / --min-effect: Policy.alpha=2.0"):
        resolve.policy_of(_args("--alpha", "2"), GATE_POLICY)


def test_check_blocks_refuses_too_few_blocks_to_reach_alpha():
    """Blocks that give fewer pairs than the split alpha needs are refused, naming the fewest that work."""
    fewest = min_blocks(GATE_POLICY, True, 1)
    resolve.check_blocks(_args("--blocks", str(fewest), "--mode", "simultaneous"), GATE_POLICY, "auto")
    with pytest.raises(
        ConfigError,
        match=f"--blocks {fewest - 1} gives {fewest - 1} pairs \\(simultaneous\\), too few"
        f".*use --blocks {fewest} or more",
    ):
        resolve.check_blocks(_args("--blocks", str(fewest - 1), "--mode", "simultaneous"), GATE_POLICY, "auto")


def test_cost_repeats_given_must_be_zero_or_more():
    """--cost-repeats 0, 1 and 2 are taken as given; -1 is refused."""
    assert _cost("aiohttp", "--cost-repeats", "0") == 0
    assert _cost("aiohttp", "--cost-repeats", "1") == 1
    assert _cost("aiohttp", "--cost-repeats", "2") == 2
    for bad in ("-1",):
        with pytest.raises(ConfigError, match=f"--cost-repeats {bad}: use 0"):
            _cost("aiohttp", "--cost-repeats", bad)


def test_the_gate_takes_one_connection_count():
    """--connections with two counts is refused: both arms run at one count."""
    with pytest.raises(ConfigError, match="--connections takes one count in the gate"):
        resolve.shared_options(_args("--connections", "8,16"))
    assert resolve.shared_options(_args("--connections", "8"))["perf_connections"] == (8,)


# Issue 35: the stop line, the blocks each attempt needs, and a project's setup command.
def test_check_blocks_splits_alpha_between_the_attempts():
    """--retries 1 gives each of the two attempts half of alpha: blocks enough for that half are taken, one fewer
    is refused naming the halved alpha (blocks enough for a single attempt are not enough)."""
    halved = replace(GATE_POLICY, alpha=GATE_POLICY.alpha / 2)
    one, two = min_blocks(GATE_POLICY, True, 1), min_blocks(halved, True, 1)
    assert two > one
    argv = ("--mode", "simultaneous", "--retries", "1")
    resolve.check_blocks(_args(*argv, "--blocks", str(two)), GATE_POLICY, "auto")
    with pytest.raises(ConfigError, match=f"--blocks {two - 1} gives .* alpha {halved.alpha:g} / "):
        resolve.check_blocks(_args(*argv, "--blocks", str(two - 1)), GATE_POLICY, "auto")


class _Maker:
    """A Maker that records what it was asked: checks first, then environments (no uv, no interpreter found)."""

    def __init__(self, refuse: str = ""):
        self.calls: list[tuple[str, str, str]] = []
        self.refuse = refuse

    def check(self, version, flag, lock):
        self.calls.append(("check", flag, version))
        if version == self.refuse:
            raise ConfigError(f"{flag} {version}: no such interpreter is installed here")

    def environment(self, version, flag, lock):
        self.calls.append(("environment", flag, version))
        return f"/cache/cpython-{version}-{lock.digest}/bin/python"


def _what():
    return served(ROOT, "aiohttp", None, None, (), "gate")


def test_an_interpreter_version_gets_the_environment_made_from_the_projects_lock():
    """--base-python 3.11 --cand-python 3.13: both checked before either is made, each from the checkout's uv.lock."""
    maker = _Maker()
    base, cand = resolve.arm_pythons(_what(), _args("--base-python", "3.11", "--cand-python", "3.13"), maker)
    assert base.startswith("/cache/cpython-3.11-") and cand.startswith("/cache/cpython-3.13-")
    assert [c[0] for c in maker.calls] == ["check", "check", "environment", "environment"]


def test_a_version_not_installed_stops_before_any_environment_is_made():
    """The candidate's 3.14 is not installed: the error, and the base's environment was not made either."""
    maker = _Maker(refuse="3.14")
    with pytest.raises(ConfigError, match="--cand-python 3.14: no such interpreter"):
        resolve.arm_pythons(_what(), _args("--base-python", "3.11", "--cand-python", "3.14"), maker)
    assert ("environment", "--base-python", "3.11") not in maker.calls


def test_a_venv_path_is_kept_as_given_and_one_that_is_not_an_interpreter_is_refused(tmp_path):
    """A path runs as given (no environment made); a file that is not Python names what to give."""
    maker = _Maker()
    import sys

    assert resolve.arm_pythons(_what(), _args("--cand-python", sys.executable), maker) == (sys.executable,) * 2
    assert maker.calls == []
    with pytest.raises(
        ConfigError, match="^--base-python .*nope is not a Python interpreter that runs here.*bin/python"
    ):
        resolve.arm_pythons(_what(), _args("--base-python", str(tmp_path / "nope")), maker)


def test_the_gate_and_ci_doors_both_take_the_interpreters():
    """--base-python and --cand-python are among the arguments every door shares (serverbench ci's after --)."""
    from serverbench.change.gated import gate_options

    options, _ = gate_options(["--base-python", "3.11", "--cand-python", "3.13t"])
    assert (options.base_python, options.cand_python) == ("3.11", "3.13t")
