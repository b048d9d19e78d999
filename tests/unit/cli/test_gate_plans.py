"""The gate's command line turned into A/B plans (cli.gate's run_live and run_user), and the decision with
its cost shifts: the runner is replaced by one that keeps the plan and answers a canned decision, the
backends by a stand-in, so no server starts (issue 22, mutation survivors of cli.gate)."""

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
from serverbench.errors import ConfigError
from serverbench.judge.ab import COST, GATE_POLICY, decided, judge
from serverbench.judge.cost import Shift, attribute
from serverbench.judge.decision import Policy
from serverbench.records.cost import CostBaseline, CostRecord, FunctionCost
from serverbench.records.decisions import Measurement

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
    assert (first.connections, first.duration, first.warmup, first.max_error_rate) == (32, 2, 1, 0.01)
    assert (first.rate, first.load, first.policy, first.retries, first.cost_repeats) == (
        "auto",
        0.25,
        GATE_POLICY,
        0,
        0,
    )
    assert first.blocks == gate.GATE_BLOCKS and first.backend_env == {}
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
    assert (first.connections, first.duration, first.warmup, first.max_error_rate) == (32, 2, 1, 0.01)
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


def test_as_baseline_keeps_every_field_the_attribution_reads():
    """The base arm's count as a baseline: key, per request, packages, both profiles, time, bytecodes per request."""
    record = _count(123_400)
    assert gate.as_baseline(record) == CostBaseline(
        "aiohttp/aiohttp/json/n100",
        1234.0,
        {"app": "1.0", "python": "3.11"},
        FUNCTIONS,
        PY_FUNCTIONS,
        "2026-11-25T00:00:00+00:00",
        40.0,
    )


def _with_cost(verdict):
    run = _decision()
    return replace(run, decisions={**run.decisions, COST: replace(run.decisions["throughput"], verdict=verdict)})


def test_a_cost_regression_is_attributed_to_functions(monkeypatch, capsys):
    """A counted cost regression profiles both arms of the same plan and names the functions it came from."""
    plan, run = object(), _with_cost("regression")
    ran, profiled = [], []
    base = _count(100_000)
    cand = _count(
        130_000,
        (*FUNCTIONS[:1], replace(FUNCTIONS[1], per_request=400.0)),
        (replace(PY_FUNCTIONS[0], per_request=90.0),),
    )

    def runner(p, on_retry):
        ran.append((p, on_retry))
        return run

    monkeypatch.setattr(gate.ab, "run", runner)
    monkeypatch.setattr(gate, "profile_arms", lambda p: profiled.append(p) or (base, cand))
    got, shifts = gate.decided_with_shifts(plan)
    assert got is run and ran == [(plan, gate._say_retry)] and profiled == [plan]
    assert shifts == attribute(gate.as_baseline(base), cand) and len(shifts) >= 2
    assert {(s.level, s.function) for s in shifts} >= {("c", "handle"), ("python", "view")}
    assert "aiohttp/aiohttp json c32: counted cost regression; profiling both arms" in capsys.readouterr().err


@pytest.mark.parametrize("verdict", [None, "pass", "improvement", "inconclusive"])
def test_no_profile_without_a_cost_regression(monkeypatch, verdict):
    """No counted cost, or a cost that did not regress (even when timing did): no profiling, no shifts."""
    run = _decision() if verdict is None else _with_cost(verdict)
    run = replace(
        run, decisions={**run.decisions, "throughput": replace(run.decisions["throughput"], verdict="regression")}
    )
    monkeypatch.setattr(gate.ab, "run", lambda p, on_retry: run)
    monkeypatch.setattr(gate, "profile_arms", lambda p: pytest.fail("profiled without a cost regression"))
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
    """No shared option given: the gate's defaults (2 s windows, 1 s warm-up, 32 connections), not pytest's."""
    values = gate.shared_options(gate.parser().parse_args(["--variant", "aiohttp"]))
    assert values == {
        "perf_duration": 2,
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
    first = gate.usergate.cell(gate.usergate.project(project), None).variant.name
    assert [p.cell.variant.name for p in plans] == [first, first]
    assert [p.cost_repeats for p in plans] == [gate.COST_REPEATS] * 2
