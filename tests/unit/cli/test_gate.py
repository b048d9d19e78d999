import re
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.cli import gate
from serverbench.cli.gate import markdown
from serverbench.errors import ConfigError
from serverbench.judge.ab import COST, GATE_POLICY, Judgement, decided, judge
from serverbench.judge.cost import Shift, attribute
from serverbench.judge.decision import Policy, decide
from serverbench.records import decisions
from serverbench.records.cost import CostBaseline, CostRecord, FunctionCost
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


# Merged from test_gate_plans.py: The gate's command line turned into A/B plans (cli.gate's run_live and run_user),
# and the decision with its cost shifts: the runner is replaced by one that keeps the plan and answers a canned
# decision, the backends by a stand-in, so no server starts (issue 22, mutation survivors of cli.gate).
ROOT = Path(__file__).resolve().parents[3]  # a checkout with apps/ (mutmut's copy too) and no perf_app
PYTHON3 = str(Path(sys.executable).with_name("python3"))
BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7, 100.0, 100.4]
REDIS = "redis://127.0.0.1:1/0"

PROJECT = """
[tool.pytest.ini_options]
perf_app = "shop:app"
perf_app_interface = "wsgi"
perf_app_env = ["GREETING=hi"]
perf_app_backends = ["redis=SHOP_REDIS"]
perf_app_reset = "shop:reset"
perf_cost_requests = 50
perf_endpoints = ["home GET / contains=Welcome", "create POST /items status=201 body={\\"a\\": 1}"]
"""


def _decision(cell="aiohttp/aiohttp json c32"):
    pairs = {
        "throughput": (tuple(BASE), tuple(BASE)),
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
        None,
        60.0,
        {"base": 0.0, "candidate": 0.0},
        {"base": 44.0, "candidate": 44.0},
    )
    return decided(cell, measured, judge(pairs, False, GATE_POLICY), policy=GATE_POLICY, max_error_rate=0.01)


@pytest.fixture
def plans(monkeypatch):
    """The plans the gate hands to the runner, in order; each answered with a canned decision and no shifts."""
    kept = []

    def runner(plan):
        kept.append(plan)
        return _decision(plan.name), ()

    monkeypatch.setattr(gate, "decided_with_shifts", runner)
    return kept


@pytest.fixture
def services(monkeypatch):
    """A stand-in for the backends: what was asked for (names, URLs), answered with services at given URLs."""
    asked = []

    @contextmanager
    def started(names, urls):
        names = list(names)
        asked.append((names, dict(urls)))
        yield {name: SimpleNamespace(url=urls[name] or f"{name}://started") for name in names}

    monkeypatch.setattr(gate.backends, "started", started)
    return asked


@pytest.fixture
def checkouts(monkeypatch, tmp_path):
    """A stand-in for the base worktree: a folder with apps/ (``bare``: without), and the (ref, repo) asked for."""
    asked = []

    @contextmanager
    def worktree(ref, repo):
        asked.append((ref, repo))
        folder = tmp_path / "base"
        (folder / ("empty" if getattr(worktree, "bare", False) else "apps")).mkdir(parents=True, exist_ok=True)
        yield folder

    monkeypatch.setattr(gate, "worktree", worktree)
    worktree.asked = asked
    return worktree


# Every option that reaches a plan, each away from its default (a project's two endpoints make cells 2 too).
GIVEN = (
    "--redis-url",
    REDIS,
    "--mode",
    "sequential",
    "--blocks",
    "20",
    "--rounds",
    "1",
    "--connections",
    "9",
    "--duration",
    "7",
    "--warmup",
    "3",
    "--rate",
    "150",
    "--load",
    "0.4",
    "--alpha",
    "0.02",
    "--min-effect",
    "0.05",
    "--retries",
    "3",
    "--cost-repeats",
    "2",
    "--max-error-rate",
    "0.02",
    "--base-python",
    sys.executable,
    "--cand-python",
    PYTHON3,
    "--base-env",
    "A=1",
    "--cand-env",
    "B=2",
)


def _given(plan) -> bool:
    """Whether ``plan`` carries GIVEN's load shape, policy, blocks, retries, counts and backend URL."""
    assert (plan.mode, plan.blocks, plan.connections, plan.duration, plan.warmup) == ("sequential", 20, 9, 7, 3)
    assert plan.rounds == 1
    assert (plan.rate, plan.load, plan.retries, plan.max_error_rate) == (150.0, 0.4, 3, 0.02)
    assert plan.policy == replace(GATE_POLICY, alpha=0.02, cells=2, min_effect=0.05)
    assert plan.cost_repeats == 2 and plan.backend_env == {"SERVERBENCH_REDIS_URL": REDIS}
    return True


def _live(*argv):
    return gate.run_live(gate.parser().parse_args(["--repo", str(ROOT), *argv]))


def test_a_reference_cell_plan_carries_every_option_given(plans, services):
    """Each option of the command line lands in the plan: arms, load shape, policy, blocks, retries, counts."""
    runs = _live("--variant", "aiohttp", "--workload", "redis", "--cells", "2", *GIVEN)
    [plan] = plans
    assert [r[0].cell for r in runs] == ["aiohttp/aiohttp redis c9"] and runs[0][1] == ()
    assert (plan.cell.variant, plan.cell.app, plan.workload) == (
        registry()["aiohttp"],
        APPS["aiohttp"],
        WORKLOADS["redis"],
    )
    assert plan.base == gate.Arm("base", sys.executable, ROOT / "apps", {"A": "1"})
    assert plan.candidate == gate.Arm("candidate", PYTHON3, ROOT / "apps", {"B": "2"})
    assert _given(plan) and plan.cost_requests == 50
    assert services == [(["redis"], {"redis": REDIS, "mongo": None, "upstream": None})]


def test_a_reference_cell_plan_takes_the_gates_defaults(plans, services, monkeypatch):
    """With only a variant: the json workload, the variant's own app, the gate's window, auto rate, the gate's
    policy and no retry; --rate off gives no fixed rate and --app another app."""
    monkeypatch.setattr(gate, "valgrind_missing", lambda: "valgrind is not installed")
    _live("--variant", "werkzeug-threaded")
    _live("--variant", "werkzeug-threaded", "--app", "raw-wsgi", "--rate", "off")
    first, second = plans
    assert (first.workload, first.cell.app) == (WORKLOADS["json"], APPS["flask"])
    assert (first.connections, first.duration, first.warmup, first.max_error_rate) == (32, 1, 1, 0.01)
    assert (first.rate, first.load, first.policy, first.retries, first.cost_repeats) == (
        "auto",
        0.25,
        GATE_POLICY,
        0,
        0,
    )
    assert first.blocks == gate.GATE_BLOCKS and first.rounds == 2 and first.backend_env == {}
    assert first.base.env == {} and first.candidate.env == {}
    assert (second.cell.app, second.rate) == (APPS["raw-wsgi"], None)
    assert services == [([], {"redis": None, "mongo": None, "upstream": None})] * 2


def test_a_base_ref_is_checked_out_and_served_as_the_base_arm(plans, services, checkouts, tmp_path):
    """--base-ref: the base arm serves the worktree's apps/, the candidate the repository's."""
    _live("--variant", "aiohttp", "--base-ref", "v1", "--cost-repeats", "0")
    assert checkouts.asked == [("v1", ROOT)]
    assert plans[0].base.apps_dir == tmp_path / "base" / "apps" and plans[0].candidate.apps_dir == ROOT / "apps"


def test_no_worktree_without_a_base_ref(plans, services, checkouts):
    """Without --base-ref nothing is checked out: both arms serve the repository's apps/."""
    _live("--variant", "aiohttp", "--cost-repeats", "0")
    assert checkouts.asked == [] and plans[0].base.apps_dir == ROOT / "apps"


def test_a_checkout_without_apps_is_refused_naming_it(plans, services, checkouts, tmp_path, capsys):
    """A repository (or a base ref) with no apps/ folder is a ConfigError naming the folder; nothing runs."""
    args = ["--variant", "aiohttp", "--cost-repeats", "0"]
    with pytest.raises(ConfigError, match=f"^{tmp_path} has no apps/ folder to serve$"):
        gate.run_live(gate.parser().parse_args(["--repo", str(tmp_path), *args]))
    checkouts.bare = True
    with pytest.raises(ConfigError, match=f"^{tmp_path / 'base'} has no apps/ folder to serve$"):
        _live(*args, "--base-ref", "v1")
    assert plans == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--variant", "nope"], "unknown variant 'nope'"),
        (["--variant", "aiohttp", "--connections", "8,16"], "--connections takes one count in the gate"),
        (["--variant", "aiohttp", "--alpha", "2"], "--alpha / --cells / --min-effect"),
        (["--variant", "aiohttp", "--rate", "0"], "--rate '0'"),
        (["--variant", "aiohttp", "--blocks", "2"], "--blocks 2 gives"),
        (["--variant", "aiohttp", "--rounds", "0", "--cost-repeats", "0"], "rounds=0: give a whole number"),
        (["--variant", "aiohttp", "--cost-repeats", "-1"], "--cost-repeats -1"),
        (["--variant", "aiohttp", "--base-env", "A"], "must look like NAME=VALUE"),
        (
            ["--variant", "aiohttp", "--cand-env", "B", "--cost-repeats", "0"],
            "must look like NAME=VALUE, got \\['B'\\]",
        ),
    ],
)
def test_bad_input_is_refused_before_anything_starts(plans, services, argv, message):
    """Each bad option is a ConfigError naming it, before a backend starts or a plan runs."""
    with pytest.raises(ConfigError, match=message):
        _live(*argv)
    assert plans == [] and all(names == [] for names, _ in services)


def _project(folder: Path, text: str = PROJECT) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(text)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def _user(folder, *argv):
    return gate.run_live(gate.parser().parse_args(["--repo", str(folder), "--variant", "wsgiref", *argv]))


def test_a_project_gets_one_plan_per_endpoint_with_its_settings(plans, services, tmp_path):
    """In a project naming perf_app: one plan per endpoint, alpha split over them, the app's environment, backend
    URL, reset and cost_requests in both arms, every option given in each plan."""
    project = _project(tmp_path / "shop")
    runs = _user(project, *GIVEN)
    assert [r[0].cell for r in runs] == ["wsgiref/shop home c9", "wsgiref/shop create c9"]
    assert [p.workload.name for p in plans] == ["home", "create"]
    for plan in plans:
        assert plan.cell.variant.name == "wsgiref" and plan.cell.app.name == "shop"
        assert plan.base.label == "base" and plan.candidate.label == "candidate"
        assert (plan.base.python, plan.candidate.python) == (sys.executable, PYTHON3)
        assert plan.base.apps_dir == project.resolve() and plan.candidate.apps_dir == project.resolve()
        assert plan.base.env == {"GREETING": "hi", "SHOP_REDIS": REDIS, "A": "1"}
        assert plan.candidate.env == {"GREETING": "hi", "SHOP_REDIS": REDIS, "B": "2"}
        assert plan.base.reset.text == "shop:reset" and plan.candidate.reset.text == "shop:reset"
        assert _given(plan) and plan.cost_requests == 50
    assert services == [(["redis"], {"redis": REDIS, "mongo": None, "upstream": None})]


def test_a_project_plan_takes_the_gates_defaults_and_cells_given(plans, services, tmp_path, monkeypatch):
    """A project with defaults: the gate's window and auto rate, one retry, no count without valgrind, 200
    counted requests; --endpoint picks one (alpha not split), --cells replaces the endpoints' count."""
    monkeypatch.setattr(gate, "valgrind_missing", lambda: "valgrind is not installed")
    project = _project(tmp_path / "shop", PROJECT.replace("perf_cost_requests = 50\n", ""))
    _user(project)
    _user(project, "--endpoint", "create")
    _user(project, "--endpoint", "create", "--cells", "5")
    first, _, second, third = plans
    assert (first.connections, first.duration, first.warmup, first.max_error_rate) == (32, 1, 1, 0.01)
    assert (first.rate, first.load, first.retries, first.cost_repeats, first.cost_requests) == ("auto", 0.25, 0, 0, 200)
    assert first.policy == replace(GATE_POLICY, cells=2) and first.blocks == gate.GATE_BLOCKS
    assert first.backend_env == {"SERVERBENCH_REDIS_URL": "redis://started"}
    assert first.base.env == {"GREETING": "hi", "SHOP_REDIS": "redis://started"}
    assert second.workload.name == "create" and third.workload.name == "create"
    assert second.policy == GATE_POLICY and third.policy == replace(GATE_POLICY, cells=5)


def test_a_project_base_ref_serves_the_apps_folder_of_the_worktree(plans, services, tmp_path, monkeypatch):
    """--base-ref in a project: a worktree of the project's repository; the base arm serves the app's folder in it."""
    project = _project(tmp_path / "repo")
    asked = []

    @contextmanager
    def worktree(ref, repo):
        asked.append((ref, repo))
        (tmp_path / "base").mkdir()
        yield tmp_path / "base"

    monkeypatch.setattr(gate, "worktree", worktree)
    _user(project, "--base-ref", "v1", "--cost-repeats", "0")
    assert asked == [("v1", project.resolve())]
    assert [p.base.apps_dir for p in plans] == [tmp_path / "base"] * 2
    assert [p.candidate.apps_dir for p in plans] == [project] * 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--app", "flask"], "names perf_app = shop:app: the gate compares your app"),
        (["--workload", "json"], "names perf_app = shop:app: the gate compares your app"),
        (["--endpoint", "lst"], "unknown endpoint"),
        (["--variant", "aiohttp"], "--variant 'aiohttp' is not a variant of shop:app"),
        (["--connections", "8,16"], "--connections takes one count"),
        (["--alpha", "2"], "--alpha / --cells / --min-effect"),
        (["--rate", "x"], "--rate 'x'"),
        (["--blocks", "2"], "--blocks 2 gives"),
        (["--cost-repeats", "-1"], "--cost-repeats -1"),
        (["--cost-repeats", "0", "--base-env", "A"], "must look like NAME=VALUE, got \\['A'\\]"),
        (["--cost-repeats", "0", "--cand-env", "B"], "must look like NAME=VALUE, got \\['B'\\]"),
    ],
)
def test_a_projects_bad_input_is_refused_before_anything_starts(plans, services, tmp_path, argv, message):
    """In a project, each bad option is a ConfigError naming it; no plan runs."""
    with pytest.raises(ConfigError, match=message):
        _user(_project(tmp_path / "shop"), *argv)
    assert plans == []


def test_the_blocks_are_checked_against_the_projects_split_alpha(plans, services, tmp_path):
    """A project's endpoints split alpha: blocks enough for one cell are too few for two."""
    project = _project(tmp_path / "shop")
    one = gate.min_blocks(GATE_POLICY, True, 1)
    two = gate.min_blocks(replace(GATE_POLICY, cells=2), True, 1)
    assert two > one
    with pytest.raises(ConfigError, match=f"--blocks {one} gives"):
        _user(project, "--blocks", str(one), "--mode", "simultaneous", "--cost-repeats", "0")
    _user(project, "--blocks", str(two), "--mode", "simultaneous", "--cost-repeats", "0")
    assert len(plans) == 2


def test_a_project_counts_by_default_when_valgrind_is_there(plans, services, tmp_path, monkeypatch):
    """A user's app is Python: with valgrind, the default count repeats (whatever the variant's reference app)."""
    monkeypatch.setattr(gate, "valgrind_missing", lambda: None)
    _user(_project(tmp_path / "shop"))
    assert [p.cost_repeats for p in plans] == [gate.COST_REPEATS] * 2


FUNCTIONS = (
    FunctionCost("c", "PyEval", "libpython.so", "python", "interpreter", 900.0),
    FunctionCost("c", "handle", "_app.so", "app", "app", 100.0),
)
PY_FUNCTIONS = (FunctionCost("python", "view", "app.views", "app", "app", 40.0),)


def _count(instructions, functions=FUNCTIONS, python=PY_FUNCTIONS, timestamp="2026-11-25T00:00:00+00:00"):
    return CostRecord(
        "t::c",
        "aiohttp",
        "aiohttp",
        "json",
        "/json",
        100,
        instructions,
        (),
        functions,
        {"packages": {"app": "1.0", "python": "3.11"}},
        1.0,
        timestamp,
        python,
    )


def _with_cost(verdict):
    run = _decision()
    return replace(run, decisions={**run.decisions, COST: replace(run.decisions["throughput"], verdict=verdict)})


def test_a_cost_regression_is_attributed_to_functions(monkeypatch, capsys):
    """A counted cost regression profiles both arms of the same plan from the decision's last counts (not counted
    again) and names the functions it came from."""
    plan, run = object(), _with_cost("regression")
    ran, profiled = [], []
    base = _count(100_000)
    cand = _count(
        130_000,
        (*FUNCTIONS[:1], replace(FUNCTIONS[1], per_request=400.0)),
        (replace(PY_FUNCTIONS[0], per_request=90.0),),
    )

    counted = gate.loop.Counted((_count(99_000), base), (_count(131_000), cand))

    def runner(p, on_retry):
        ran.append((p, on_retry))
        return run, counted

    monkeypatch.setattr(gate.loop, "decide", runner)
    monkeypatch.setattr(gate, "profile_arms", lambda p, records: profiled.append((p, records)) or records)
    got, shifts = gate.decided_with_shifts(plan)
    assert got is run and ran == [(plan, gate._say_retry)] and profiled == [(plan, (base, cand))]
    assert shifts == attribute(CostBaseline.of(base), cand) and len(shifts) >= 2
    assert {(s.level, s.function) for s in shifts} >= {("c", "handle"), ("python", "view")}
    assert "aiohttp/aiohttp json c32: counted cost regression; profiling both arms" in capsys.readouterr().err


@pytest.mark.parametrize("verdict", [None, "pass", "improvement", "inconclusive"])
def test_no_profile_without_a_cost_regression(monkeypatch, verdict):
    """No counted cost, or a cost that did not regress (even when timing did): no profiling, no shifts."""
    run = _decision() if verdict is None else _with_cost(verdict)
    run = replace(
        run, decisions={**run.decisions, "throughput": replace(run.decisions["throughput"], verdict="regression")}
    )
    counted = None if verdict is None else gate.loop.Counted((_count(100_000),), (_count(100_000),))
    monkeypatch.setattr(gate.loop, "decide", lambda p, on_retry: (run, counted))
    monkeypatch.setattr(gate, "profile_arms", lambda p, records: pytest.fail("profiled without a cost regression"))
    assert gate.decided_with_shifts(object()) == (run, ())


def test_a_retry_names_each_unreached_gated_signal(capsys):
    """The retry line names the verdict, each gated signal that is rerun or inconclusive, and the new blocks."""
    run = _decision()
    decisions = {
        **run.decisions,
        "throughput": replace(run.decisions["throughput"], verdict="inconclusive"),
        "cpu": replace(run.decisions["cpu"], verdict="rerun"),
    }
    run = replace(run, decisions=decisions, verdict="inconclusive", gated=("throughput", "cpu", "rss"))
    gate._say_retry(run, 24)
    assert capsys.readouterr().err == (
        f"inconclusive: throughput {decisions['throughput'].summary()}; "
        f"cpu {decisions['cpu'].summary()}; retrying with 24 blocks\n"
    )


def test_cost_repeats_default_depends_on_the_runtime_and_valgrind(monkeypatch, capsys):
    """No --cost-repeats: 0 for a non-Python app (the variant's or --app's), the default count when valgrind can
    count, 0 with a note naming what is missing; a user's app is always Python."""

    def args(*argv):
        return gate.parser().parse_args(["--variant", *argv])

    monkeypatch.setattr(gate, "valgrind_missing", lambda: None)
    assert gate.cost_repeats(args("aiohttp")) == gate.COST_REPEATS == 1
    assert gate.cost_repeats(args("aiohttp", "--app", "node")) == 0
    assert gate.cost_repeats(args("node-http")) == 0
    assert gate.cost_repeats(args("node-http", "--app", "flask")) == 1
    assert capsys.readouterr().err == "note: no cost signal (instructions are counted for Python servers only)\n" * 2
    assert gate.cost_repeats(args("node-http"), user_app=True) == 1
    monkeypatch.setattr(gate, "valgrind_missing", lambda: "valgrind is not installed")
    assert gate.cost_repeats(args("aiohttp")) == 0
    assert capsys.readouterr().err == "note: no cost signal (valgrind is not installed)\n"
    assert gate.cost_repeats(args("aiohttp", "--cost-repeats", "2")) == 2


def test_shared_options_default_to_the_gates_own_values():
    """No shared option given: the gate's defaults (1 s windows, 1 s warm-up, 32 connections), not pytest's."""
    values = gate.shared_options(gate.parser().parse_args(["--variant", "aiohttp"]))
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
    args = gate.parser().parse_args(["--variant", "aiohttp", "--duration", "x", "--warmup", "y"])
    with pytest.raises(ConfigError) as err:
        gate.shared_options(args)
    assert len(str(err.value).splitlines()) == 2


@pytest.mark.parametrize("mode, pairs", [("simultaneous", 1), ("sequential", 2)])
def test_check_blocks_counts_the_default_modes_pairs_and_the_rate(monkeypatch, mode, pairs):
    """No --mode: the machine's default mode sets the pairs per block; a fixed rate adds the latency signal,
    which needs more blocks than no rate."""
    monkeypatch.setattr(gate, "default_mode", lambda: mode)
    args = gate.parser().parse_args(["--variant", "aiohttp"])
    rated, unrated = gate.min_blocks(GATE_POLICY, True, pairs), gate.min_blocks(GATE_POLICY, False, pairs)
    assert rated > unrated
    for rate, fewest in (("auto", rated), (None, unrated), (150.0, rated)):
        args.blocks = fewest
        gate.check_blocks(args, GATE_POLICY, rate)
        args.blocks = fewest - 1
        with pytest.raises(ConfigError, match=f"--blocks {fewest - 1} gives {pairs * (fewest - 1)} pairs \\({mode}\\)"):
            gate.check_blocks(args, GATE_POLICY, rate)


def test_check_blocks_names_the_policy_it_could_not_reach():
    """The refusal names alpha and the cells it is split over."""
    policy = Policy(alpha=0.02, cells=3)
    args = gate.parser().parse_args(["--variant", "aiohttp", "--blocks", "1", "--mode", "simultaneous"])
    with pytest.raises(ConfigError, match=r"alpha 0.02 / \(3 cells x gated signals\)"):
        gate.check_blocks(args, policy, None)


def test_sigterm_exits_with_128_plus_the_signal():
    """The SIGTERM handler exits 128 + the signal's number (143), through every finally."""
    with pytest.raises(SystemExit) as stop:
        gate._exit_on_sigterm(15, None)
    assert stop.value.code == 143
    with pytest.raises(SystemExit) as stop:
        gate._exit_on_sigterm(2, None)
    assert stop.value.code == 130


SHIFTS = (
    Shift("c", "handle", "_app.so", "app", "app", 100.0, 400.0, 0.25),
    Shift("python", "view", "app.views", "app", "app", None, 90.0, -0.0125),
)


def test_markdown_is_the_whole_table_with_the_cost_shifts():
    """The step summary, line for line: heading, one row per judged signal, rate, RSS, errors, mode and windows,
    then the functions of a cost regression (C in instructions as module:function, Python in bytecodes)."""
    run = _decision()
    rows = [
        f"| {label} | {d.amount(d.delta)} | {d.interval()} | {gate.p_text(d.p)} | {d.n} | "
        f"{d.amount(d.dispersion, sign=False)} | **{d.verdict}** |"
        for name, label in gate._shown()
        if (d := run.decisions.get(name)) is not None
    ]
    assert len(rows) == 3
    expected = [
        f"### serverbench A/B: aiohttp/aiohttp json c32: **{run.verdict}**",
        "",
        "| signal | Δ | interval | p | n | dispersion | verdict |",
        "|---|---:|---|---:|---:|---:|---|",
        *rows,
        "",
        f"fixed rate: {gate.rate_line(run)}",
        "",
        "peak RSS: base 44.0 MB, candidate 44.0 MB (+0.0%)",
        "",
        "error rate: base 0.00%, candidate 0.00% (limit 1.00%); mode simultaneous; 0 windows, 1 re-run; "
        "stopped: last look; 60 s",
        "",
    ]
    assert gate.markdown(run) == "\n".join(expected)
    assert gate.markdown(run, SHIFTS) == "\n".join(
        [
            *expected,
            "where the counted cost came from (functions by change; C in instructions, Python in bytecodes "
            "per request):",
            "",
            "| share of the cell | change/req | role | package | function |",
            "|---:|---:|---|---|---|",
            "| +25.00% | +300 instr | app | app | `_app.so:handle` |",
            "| -1.25% | +90 bytecodes | app | app | `app.views.view` |",
            "",
        ]
    )


def test_a_project_without_a_variant_gates_the_first_that_runs_here(plans, services, tmp_path, monkeypatch):
    """No --variant in a project: the first of perf_variants that can run here, counted (a user's app is Python)."""
    monkeypatch.setattr(gate, "valgrind_missing", lambda: None)
    project = _project(tmp_path / "shop")
    gate.run_live(gate.parser().parse_args(["--repo", str(project)]))
    first = gate.user.cell(gate.user.project(project), None).variant.name
    assert [p.cell.variant.name for p in plans] == [first, first]
    assert [p.cost_repeats for p in plans] == [gate.COST_REPEATS] * 2


# Merged from test_mutation_gate.py: The gate command's pure parts: its options, its lines and its exit status (issue
# 22, mutation survivors of cli.gate). Nothing here starts a server: the live run is the integration tests'.
SLOWER = [v * (0.9 + 0.001 * k) for k, v in enumerate(BASE)]


def _slower_decision(cand=SLOWER, rate=None, rss=None, errors=None):
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
        return gate.exit_status([replace(_slower_decision(), exit_status=c) for c in codes])

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
        gate.rate_line(_slower_decision(rate=250.0))
        == "250 req/s per arm (oha, open model, latency from the intended send time)"
    )
    assert gate.rate_line(_slower_decision()).startswith("no fixed-rate windows (--rate off)")
    assert gate.rss_line(_slower_decision()) == "base 44.0 MB, candidate 44.5 MB (+1.1%)"
    assert gate.rss_line(_slower_decision(rss={"candidate": 10.0})) == "base 0.0 MB, candidate 10.0 MB"


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
    decisions.write(path, _slower_decision(errors={"base": 0.0, "candidate": 0.002}))
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
    assert gate.stored_policy(_slower_decision()) == Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)


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
    return replace(_slower_decision(), cell=f"aiohttp/myapp {name} c32")


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
    decisions.write(
        path, replace(_slower_decision(cand=BASE, errors={"base": 0.0, "candidate": 0.02}), max_error_rate=0.05)
    )
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


def test_the_lines_read_whole_and_an_arm_without_a_peak_is_zero():
    """The no-rate line in full; an arm with no RSS peak reads 0.0 MB (the change then from the base's peak)."""
    assert gate.rate_line(_slower_decision()) == (
        "no fixed-rate windows (--rate off): latency not gated, CPU per request from the saturated windows"
    )
    assert gate.rss_line(_slower_decision(rss={"base": 10.0})) == "base 10.0 MB, candidate 0.0 MB (-100.0%)"


# Issue 35: the stop line, the blocks each attempt needs, and a project's setup command.
def test_a_decision_stopped_before_any_look_names_no_look():
    """A decision that stopped while counting (before any timed block) says only why; one stopped at a look says
    which look of how many, and the blocks measured."""
    run = replace(_decision(), looks=(6, 12), look=1)
    assert gate.stop_line(replace(run, stopped="counted")) == "stopped: counted"
    assert gate.stop_line(replace(run, stopped="settled")) == "stopped: settled at look 2 of 2 (12 blocks)"


def test_the_stop_line_lists_each_phase_of_half_a_second_or_more():
    """The time spent is listed by phase, in the measured order, joined by ', ', in whole seconds from one second
    and in tenths below it (half a second rounded to even would print as "0 s"); phases under half a second are
    left out, and with none left the line has no time part."""
    run = _decision()
    phases = {"count": 41.2, "warm-up": 1.0, "verify": 0.5, "stop": 0.49}
    line = gate.stop_line(replace(run, measurement=replace(run.measurement, phases=phases)))
    assert line == "stopped: last look; time: count 41 s, warm-up 1 s, verify 0.5 s"
    quick = replace(run, measurement=replace(run.measurement, phases={"stop": 0.49}))
    assert gate.stop_line(quick) == "stopped: last look"


def test_check_blocks_splits_alpha_between_the_attempts():
    """--retries 1 gives each of the two attempts half of alpha: blocks enough for that half are taken, one fewer
    is refused naming the halved alpha (blocks enough for a single attempt are not enough)."""
    halved = replace(GATE_POLICY, alpha=GATE_POLICY.alpha / 2)
    one, two = gate.min_blocks(GATE_POLICY, True, 1), gate.min_blocks(halved, True, 1)
    assert two > one
    argv = ("--mode", "simultaneous", "--retries", "1")
    gate.check_blocks(_args(*argv, "--blocks", str(two)), GATE_POLICY, "auto")
    with pytest.raises(ConfigError, match=f"--blocks {two - 1} gives .* alpha {halved.alpha:g} / "):
        gate.check_blocks(_args(*argv, "--blocks", str(two - 1)), GATE_POLICY, "auto")


def test_a_fixed_rate_needs_the_blocks_of_its_latency_signal(plans, services):
    """--rate 150 gates latency too, which needs more blocks: the fewest enough without a rate are refused with
    it (no plan runs), and taken with --rate off."""
    rated, unrated = gate.min_blocks(GATE_POLICY, True, 1), gate.min_blocks(GATE_POLICY, False, 1)
    assert rated > unrated
    argv = ("--variant", "aiohttp", "--mode", "simultaneous", "--blocks", str(unrated), "--cost-repeats", "0")
    with pytest.raises(ConfigError, match=f"--blocks {unrated} gives"):
        _live(*argv, "--rate", "150")
    assert plans == []
    _live(*argv, "--rate", "off")
    assert [p.blocks for p in plans] == [unrated]


def test_a_projects_setup_runs_in_each_arms_tree_with_its_environment(plans, services, tmp_path, monkeypatch, capsys):
    """perf_app_setup runs once per arm before any plan: in that arm's tree (the base worktree's, then the
    project's), with perf_app_env, the backends' URLs and the arm's --base-env / --cand-env set and the arm's
    interpreter's folder first on PATH; each run is said on stderr with its folder."""
    setup = "perf_app_setup = 'echo \"$GREETING $SHOP_REDIS $A$B ${PATH%%:*}\" > setup.txt'\n"
    project = _project(tmp_path / "repo", PROJECT + setup)
    base_bin = tmp_path / "base-venv" / "bin"
    base_bin.mkdir(parents=True)
    (base_bin / "python").symlink_to(sys.executable)

    @contextmanager
    def worktree(ref, repo):
        (tmp_path / "base").mkdir()
        yield tmp_path / "base"

    monkeypatch.setattr(gate, "worktree", worktree)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # not the folder of either arm
    argv = ("--base-ref", "v1", "--cost-repeats", "0", "--redis-url", REDIS, "--base-env", "A=1", "--cand-env", "B=2")
    _user(project, *argv, "--base-python", str(base_bin / "python"), "--cand-python", PYTHON3)
    assert (tmp_path / "base" / "setup.txt").read_text() == f"hi {REDIS} 1 {base_bin}\n"
    assert (project / "setup.txt").read_text() == f"hi {REDIS} 2 {Path(PYTHON3).parent}\n"
    assert list((tmp_path / "elsewhere").iterdir()) == [] and len(plans) == 2
    said = capsys.readouterr().err
    for label, folder in (("base", tmp_path / "base"), ("candidate", project)):
        assert re.search(rf"^{label}: perf_app_setup ran in \d+\.\d s in {re.escape(str(folder))}$", said, re.M)


def test_the_gate_shows_which_system_calls_moved(capsys):
    """The counted system decision prints its reason (the calls by name) on the terminal and in the markdown."""
    import math

    from serverbench.judge.ab import SYSTEM
    from serverbench.records.decisions import Decision

    said = "rose: +1.00 clock_nanosleep per request (0.00 -> 1.00)"
    run = _run(SAME, SAME)
    run = replace(
        run,
        decisions={
            **run.decisions,
            SYSTEM: Decision("regression", 1.0, (1.0, 1.0), math.nan, 1, math.nan, False, said, "per request"),
        },
    )
    gate.show(run)
    out = capsys.readouterr().out
    assert "system calls, memory kept (counted)" in out and said in out
    assert f"system calls, connections, memory kept (counted): {said}" in markdown(run)
    assert "| system calls, memory kept (counted) | +1.000 per request |" in markdown(run)
