"""A bisection's options resolved into its plan (bisect.resolve): the cell by the gate's own resolution, the range,
the threshold, the counted requests and the environment, for the reference apps and a user's project.  Nothing is
counted: the plans ask this interpreter which packages it has, valgrind is taken as found."""

import pytest

from serverbench.bisect import plan as plan_module
from serverbench.bisect.resolve import REFERENCE_SYNC, USER_SYNC, BisectOptions, plan_of, urls_of
from serverbench.errors import ConfigError
from tests.unit.measure.trees.test_commits import _git

TODO_INI = """[pytest]
perf_app = todo:app
perf_app_env = TODO_DB=todo.sqlite3
perf_app_backends = redis=TODO_REDIS
perf_app_setup = flask --app todo init-db
perf_app_reset = todo:reset
perf_cost_requests = 40
perf_variants = waitress-t4
perf_endpoints =
    home GET / status=200
    list GET /todos status=200
"""


@pytest.fixture(autouse=True)
def countable(monkeypatch):
    """valgrind found and every package importable: what is resolved here, not what this machine has."""
    monkeypatch.setattr(plan_module, "valgrind_missing", lambda: "")
    monkeypatch.setattr(plan_module, "missing_modules_in", lambda python, modules: [])


def _repo(tmp_path, files: dict[str, str]):
    """A git checkout of two commits with ``files`` (the second adds a line to each)."""
    path = tmp_path / "repo"
    path.mkdir()
    _git(tmp_path, "init", "-q", "-b", "main", str(path))
    for i in range(2):
        for name, text in files.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_text(text + f"X = {i}\n")
        _git(path, "add", "-A")
        _git(path, "commit", "-q", "-m", f"c{i}")
    return path


def test_a_projects_perf_app_setup_and_reset_are_in_the_plan(tmp_path):
    """In a project naming perf_app, the plan carries its first endpoint (or the one named), perf_app_setup command,
    perf_app_reset function, environment, backends' names and perf_cost_requests, which each commit's tree runs
    before its count (as the perf suite, cost and the gate do); its lock beside its configuration."""
    path = _repo(tmp_path, {"pytest.ini": TODO_INI, "todo.py": "def app(environ, start_response):\n    return []\n"})
    (path / "pytest.ini").write_text(TODO_INI)
    plan, needed, sync = plan_of(BisectOptions(good="HEAD~1", repo=str(path)))
    assert plan.setup == "flask --app todo init-db"
    assert plan.reset is not None and plan.reset.text == "todo:reset"
    assert (plan.workload.name, plan.requests, plan.app_folder, plan.user, plan.project) == ("home", 40, ".", True, ".")
    assert plan.env["TODO_DB"] == "todo.sqlite3" and plan.backend_vars == {"redis": "TODO_REDIS"}
    assert (plan.lock_path, needed, sync) == ("uv.lock", ["redis"], USER_SYNC)
    other, _, _ = plan_of(BisectOptions(good="HEAD~1", repo=str(path), endpoint="list", requests=70, lock="x.lock"))
    assert (other.workload.name, other.requests, other.lock_path) == ("list", 70, "x.lock")


def test_the_reference_apps_plan_counts_the_variants_app_on_json_by_default(tmp_path):
    """A checkout of the reference apps: the variant's own app on json from apps/, the registry's backends, the
    cost test's requests and threshold, the reference sync arguments."""
    path = _repo(tmp_path, {"apps/flask_app.py": ""})
    plan, needed, sync = plan_of(BisectOptions(good="HEAD~1", repo=str(path), variant="waitress-t4"))
    assert (plan.cell.name, plan.workload.name, plan.app_folder, plan.user) == (
        "waitress-t4/flask",
        "json",
        "apps",
        False,
    )
    assert (plan.requests, plan.threshold, plan.backend_vars, plan.repo) == (
        plan_module.DEFAULT_REQUESTS,
        plan_module.DEFAULT_THRESHOLD,
        None,
        path.resolve(),
    )
    assert (needed, sync, len(plan.commits)) == ([], REFERENCE_SYNC, 2)
    redis, _, given = plan_of(
        BisectOptions(good="HEAD~1", repo=str(path), variant="waitress-t4", workload="redis", sync_args="--x")
    )
    assert (redis.workload.name, given) == ("redis", "--x")


def test_a_range_needs_its_good_end(tmp_path):
    """No --good: refused naming it (and --confirm, the other way in)."""
    with pytest.raises(ConfigError, match="^--good is required: .*--confirm BISECT.json"):
        plan_of(BisectOptions(variant="waitress-t4"))


def test_the_backends_given_by_url_are_parsed_by_the_option_table():
    """--redis-url and the like by backend name (None: started); a URL the table refuses names its flag."""
    assert urls_of(BisectOptions()) == {"redis": None, "mongo": None, "upstream": None}
    assert urls_of(BisectOptions(urls={"redis_url": "redis://127.0.0.1:1/0"}))["redis"] == "redis://127.0.0.1:1/0"
    with pytest.raises(ConfigError, match="^--redis-url='http://x': expected a URL"):
        urls_of(BisectOptions(urls={"redis_url": "http://x"}))
