"""A bisection's workflow (bisect.workflow): the backends handed to each commit's server under the names the app
reads them by, and a step attributed to its functions (C functions alone when the Python profile cannot be taken).
The whole run, counted under valgrind, is tests/integration/gate/test_bisect.py's."""

from dataclasses import replace
from types import SimpleNamespace

from serverbench.bisect import workflow
from serverbench.errors import ServerStartError
from serverbench.judge.cost import attribute
from serverbench.measure.counting.bisect import Attempt
from serverbench.records.cost import CostBaseline
from tests.unit.bisect.test_search import make_plan
from tests.unit.records.test_cost import make

SERVICES = {"redis": SimpleNamespace(url="redis://127.0.0.1:1/0")}


def test_the_backends_reach_the_app_under_its_own_names():
    """The reference apps read the registry's variables; a user's app its perf_app_backends names."""
    plan = make_plan(3)
    assert workflow.server_env(plan, SERVICES) == {"SERVERBENCH_REDIS_URL": "redis://127.0.0.1:1/0"}
    assert workflow.server_env(replace(plan, backend_vars={"redis": "SHOP_REDIS"}), SERVICES) == {
        "SHOP_REDIS": "redis://127.0.0.1:1/0"
    }


def test_a_step_without_a_python_profile_is_attributed_to_its_c_functions(monkeypatch, capsys):
    """When the second, profiled pass of a commit cannot run, the step's functions come from the counts alone, and
    a note says so."""
    attempts = {0: Attempt(0, make(1_000_000), "", 1.0, "py"), 1: Attempt(1, make(1_300_000), "", 1.0, "py")}

    def profiled(plan, index, record, envs, env):
        raise ServerStartError("waitress-t4/flask", "it exited", "python -m waitress", "")

    monkeypatch.setattr(workflow, "profiled", profiled)
    got = workflow.attribution(make_plan(3), attempts, 0, 1, envs=None, env={})
    expected = attribute(CostBaseline.of(attempts[0].record), attempts[1].record)
    assert got == [s.to_record() for s in expected] and got
    assert capsys.readouterr().err.startswith("note: no Python-level profile of the step (waitress-t4/flask did not")


def test_a_step_is_attributed_with_both_commits_python_profiles(monkeypatch):
    """Both commits profiled (a second pass each, in fresh worktrees): their records with the profiles compared."""
    asked = []

    def profiled(plan, index, record, envs, env):
        asked.append((index, env))
        return record

    monkeypatch.setattr(workflow, "profiled", profiled)
    attempts = {0: Attempt(0, make(1_000_000), "", 1.0, "py"), 2: Attempt(2, make(1_200_000), "", 1.0, "py")}
    workflow.attribution(make_plan(3), attempts, 0, 2, envs=None, env={"A": "1"})
    assert asked == [(0, {"A": "1"}), (2, {"A": "1"})]
