"""The gate's workflow (serverbench.gate.workflow): its resolved plans run as one pipeline for the reference apps
and a user's project, and the decision with its cost shifts.  The runner is replaced by one that keeps each plan and
answers a canned decision, the backends and the base worktree by stand-ins, so no server starts (issue 22, mutation
survivors of the gate).  The live run is the integration tests'."""

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
from serverbench.cli import gate as command
from serverbench.errors import ConfigError
from serverbench.gate import loop, resolve, user, workflow
from serverbench.gate.options import COST_REPEATS, GateOptions
from serverbench.judge.ab import COST, GATE_BLOCKS, GATE_POLICY, decided, judge, min_blocks
from serverbench.judge.cost import attribute
from serverbench.measure.trials.arms import Arm
from serverbench.records.cost import CostBaseline, CostRecord, FunctionCost
from serverbench.records.decisions import Measurement
from serverbench.report import gate as report


def _options(*argv) -> GateOptions:
    """The options a command line gives, read by the gate's own parser (what a user types)."""
    return GateOptions.of(command.parser().parse_args(argv))


def _gate(*argv):
    """The gate's decisions on the plan that command line resolves to."""
    return workflow.run(resolve.resolve(_options(*argv)))


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


def _decision(cell="aiohttp/aiohttp json c32"):
    """A pass of ``cell``: both arms alike, 12 pairs, no fixed rate, 44 MB each."""
    return replace(_slower_decision(cand=BASE, rss={"base": 44.0, "candidate": 44.0}), cell=cell)


@pytest.fixture
def plans(monkeypatch):
    """The plans the gate hands to the runner, in order; each answered with a canned decision and no shifts."""
    kept = []

    def runner(plan):
        kept.append(plan)
        return _decision(plan.name), ()

    monkeypatch.setattr(workflow, "decided_with_shifts", runner)
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

    monkeypatch.setattr(workflow.backends, "started", started)
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

    monkeypatch.setattr(workflow, "worktree", worktree)
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
    return _gate("--repo", str(ROOT), *argv)


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
    assert plan.base == Arm("base", sys.executable, ROOT / "apps", {"A": "1"})
    assert plan.candidate == Arm("candidate", PYTHON3, ROOT / "apps", {"B": "2"})
    assert _given(plan) and plan.cost_requests == 50
    assert services == [(["redis"], {"redis": REDIS, "mongo": None, "upstream": None})]


def test_a_reference_cell_plan_takes_the_gates_defaults(plans, services, monkeypatch):
    """With only a variant: the json workload, the variant's own app, the gate's window, auto rate, the gate's
    policy and no retry; --rate off gives no fixed rate and --app another app."""
    monkeypatch.setattr(resolve, "valgrind_missing", lambda: "valgrind is not installed")
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
    assert first.blocks == GATE_BLOCKS and first.rounds == 2 and first.backend_env == {}
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
        _gate("--repo", str(tmp_path), *args)
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
    return _gate("--repo", str(folder), "--variant", "wsgiref", *argv)


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
    monkeypatch.setattr(resolve, "valgrind_missing", lambda: "valgrind is not installed")
    project = _project(tmp_path / "shop", PROJECT.replace("perf_cost_requests = 50\n", ""))
    _user(project)
    _user(project, "--endpoint", "create")
    _user(project, "--endpoint", "create", "--cells", "5")
    first, _, second, third = plans
    assert (first.connections, first.duration, first.warmup, first.max_error_rate) == (32, 1, 1, 0.01)
    assert (first.rate, first.load, first.retries, first.cost_repeats, first.cost_requests) == ("auto", 0.25, 0, 0, 200)
    assert first.policy == replace(GATE_POLICY, cells=2) and first.blocks == GATE_BLOCKS
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

    monkeypatch.setattr(workflow, "worktree", worktree)
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
    one = min_blocks(GATE_POLICY, True, 1)
    two = min_blocks(replace(GATE_POLICY, cells=2), True, 1)
    assert two > one
    with pytest.raises(ConfigError, match=f"--blocks {one} gives"):
        _user(project, "--blocks", str(one), "--mode", "simultaneous", "--cost-repeats", "0")
    _user(project, "--blocks", str(two), "--mode", "simultaneous", "--cost-repeats", "0")
    assert len(plans) == 2


def test_a_project_counts_by_default_when_valgrind_is_there(plans, services, tmp_path, monkeypatch):
    """A user's app is Python: with valgrind, the default count repeats (whatever the variant's reference app)."""
    monkeypatch.setattr(resolve, "valgrind_missing", lambda: None)
    _user(_project(tmp_path / "shop"))
    assert [p.cost_repeats for p in plans] == [COST_REPEATS] * 2


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

    counted = loop.Counted((_count(99_000), base), (_count(131_000), cand))

    def runner(p, on_retry):
        ran.append((p, on_retry))
        return run, counted

    monkeypatch.setattr(workflow.loop, "decide", runner)
    monkeypatch.setattr(workflow, "profile_arms", lambda p, records: profiled.append((p, records)) or records)
    got, shifts = workflow.decided_with_shifts(plan)
    assert got is run and ran == [(plan, report.retrying)] and profiled == [(plan, (base, cand))]
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
    counted = None if verdict is None else loop.Counted((_count(100_000),), (_count(100_000),))
    monkeypatch.setattr(workflow.loop, "decide", lambda p, on_retry: (run, counted))
    monkeypatch.setattr(workflow, "profile_arms", lambda p, records: pytest.fail("profiled without a cost regression"))
    assert workflow.decided_with_shifts(object()) == (run, ())


def test_a_project_without_a_variant_gates_the_first_that_runs_here(plans, services, tmp_path, monkeypatch):
    """No --variant in a project: the first of perf_variants that can run here, counted (a user's app is Python)."""
    monkeypatch.setattr(resolve, "valgrind_missing", lambda: None)
    project = _project(tmp_path / "shop")
    _gate("--repo", str(project))
    first = user.cell(user.project(project), None).variant.name
    assert [p.cell.variant.name for p in plans] == [first, first]
    assert [p.cost_repeats for p in plans] == [COST_REPEATS] * 2


def test_exit_status_of_several_decisions_is_the_worst():
    """A regression (1) outranks an inconclusive decision (3), which outranks passes (0); none is 0."""

    def status(*codes):
        return workflow.exit_status([replace(_slower_decision(), exit_status=c) for c in codes])

    assert status(0, 3, 1) == 1 and status(3, 0) == 3 and status(0, 0) == 0 and workflow.exit_status([]) == 0
    assert status(0, 2) == 2


def test_a_fixed_rate_needs_the_blocks_of_its_latency_signal(plans, services):
    """--rate 150 gates latency too, which needs more blocks: the fewest enough without a rate are refused with
    it (no plan runs), and taken with --rate off."""
    rated, unrated = min_blocks(GATE_POLICY, True, 1), min_blocks(GATE_POLICY, False, 1)
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

    monkeypatch.setattr(workflow, "worktree", worktree)
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
