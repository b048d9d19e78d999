"""measure.counting.bisect, counting one commit of a bisection: what it reads of the plan is the plan's, and a user's app is
made ready in each commit's tree (perf_app_setup, then perf_app_reset) before it is counted (no valgrind here)."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

import pytest

from serverbench.bisect.plan import BisectPlan
from serverbench.catalog.apps import APPS
from serverbench.catalog.matrix import Cell
from serverbench.catalog.userapp import AppTarget
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS, Workload
from serverbench.measure.counting import bisect as measure_bisect
from serverbench.measure.counting.bisect import Bisection
from serverbench.measure.trees.commits import Commit
from tests.unit.measure.trees.test_commits import _commit, _git


def test_a_count_reads_only_what_a_bisect_plan_holds():
    """Every field counting a commit reads (measure.counting.bisect.Bisection, below the plan's floor) is a BisectPlan field,
    and the plan has the app_dir it calls: a renamed field fails here, not in a bisection's first count."""
    assert set(Bisection.__annotations__) <= {f.name for f in fields(BisectPlan)}
    assert callable(BisectPlan.app_dir)


@dataclass(frozen=True)
class _Plan:
    """The fields counting a commit reads (measure.counting.bisect.Bisection), for a user's app in app/ of a scratch repo."""

    repo: Path
    commits: tuple[Commit, ...]
    setup: str | None
    reset: AppTarget | None
    cell: Cell = Cell(registry()["waitress-t4"], APPS["flask"])
    workload: Workload = WORKLOADS["json"]
    requests: int = 40
    app_folder: str = "app"
    python: str = sys.executable
    env: Mapping[str, str] = field(default_factory=lambda: {"DB": "todo.sqlite3"})

    def app_dir(self, checkout: Path) -> Path:
        return Path(checkout) / self.app_folder


class _Envs:
    """Every commit served by this interpreter (no lock file to build)."""

    def python_for(self, commit, checkout):
        return sys.executable


@pytest.fixture
def todo(tmp_path):
    """A scratch repository of one commit: app/state.py, whose reset needs the table its init command makes."""
    repo = tmp_path / "todo"
    (repo / "app").mkdir(parents=True)
    _git(tmp_path, "init", "-q", "-b", "main", str(repo))
    sha = _commit(repo, "c0", STATE, file="app/state.py")
    return repo, (Commit(sha, "c0"),)


STATE = (
    "import os, sqlite3\n"
    "def init():\n"
    "    sqlite3.connect(os.environ['DB']).execute('create table todo (title text)')\n"
    "def reset():\n"
    "    with sqlite3.connect(os.environ['DB']) as db:\n"
    "        db.execute('delete from todo')\n"
    "        db.execute(\"insert into todo values ('milk')\")\n"
)
INIT = "python -c 'import state; state.init()'"


@dataclass(frozen=True)
class _Record:
    python_functions: object = None


def _rows(cost):
    """The rows of the database the server would read, or why there are none."""
    try:
        with sqlite3.connect(cost.apps_dir / cost.env["DB"]) as db:
            return db.execute("select title from todo").fetchall()
    except sqlite3.OperationalError as exc:
        return str(exc)


def _counted_rows(monkeypatch):
    """measure_cost and the profile pass replaced by a look at the app's database; what each saw."""
    seen = []
    monkeypatch.setattr(measure_bisect, "measure_cost", lambda cost: seen.append(_rows(cost)) or _Record())
    monkeypatch.setattr(measure_bisect, "profile_python", _rows)
    return seen


def test_each_commit_runs_perf_app_setup_then_perf_app_reset_before_it_is_counted(todo, monkeypatch):
    """A fresh worktree has no database: perf_app_setup makes its table, then perf_app_reset seeds it, before the
    count (as the perf suite, pytest -m cost and the gate do); without them the app's tables do not exist."""
    repo, commits = todo
    seen = _counted_rows(monkeypatch)
    plan = _Plan(repo, commits, INIT, AppTarget.parse("state:reset"))
    attempt = measure_bisect.count_commit(plan, 0, _Envs(), {})
    assert (attempt.record, attempt.reason, seen) == (_Record(), "", [[("milk",)]])
    # the profile pass of a step, in a fresh tree of its own, is made ready the same way
    assert measure_bisect.profiled(plan, 0, _Record(), _Envs(), {}).python_functions == [("milk",)]


def test_a_commit_whose_perf_app_setup_fails_is_skipped_with_its_output(todo, monkeypatch):
    """A setup command that fails in a commit's tree is the commit's doing: skipped, the reason naming the command."""
    repo, commits = todo
    seen = _counted_rows(monkeypatch)
    plan = _Plan(repo, commits, "echo no init here >&2; exit 3", None)
    attempt = measure_bisect.count_commit(plan, 0, _Envs(), {})
    assert attempt.record is None and seen == []
    assert attempt.reason.startswith("perf_app_setup = 'echo no init here >&2; exit 3' failed (exit 3)"), attempt
