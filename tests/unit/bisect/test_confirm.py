"""A regression step confirmed by the gate (bisect.confirm): the gate's workflow called with a plan, parent against
culprit, its decision read as an object into the step's record; a mistake of --gate-args refused before anything is
counted, in the gate's words.  The gate's runs are replaced by a stand-in that keeps the plan: no server starts."""

import sys
from dataclasses import replace

import pytest

from serverbench.bisect import confirm
from serverbench.errors import ConfigError
from serverbench.gate.options import GateOptions
from serverbench.judge.cost import Shift
from serverbench.measure.trees.commits import Commit
from serverbench.report import gate as gate_report
from tests.unit.cli.test_bisect import reference_checkout
from tests.unit.gate.test_workflow import _decision
from tests.unit.measure.trees.test_commits import _git

SHIFTS = (Shift("python", "view", "app.views", "app", "app", 40.0, 90.0, 0.01),)
FIELDS = {"project": ".", "user": False, "variant": "waitress-t4", "app": "flask", "workload": "json"}


@pytest.fixture
def repo(tmp_path):
    """A checkout with three commits of apps/ (the reference apps' layout)."""
    return reference_checkout(tmp_path)


class _Envs:
    """Every commit served by this interpreter (no lock file to build)."""

    def python_for(self, commit, checkout):
        return sys.executable


def _rows(repo) -> list[Commit]:
    """The repository's commits, newest first."""
    return [Commit(*line.split(" ", 1)) for line in _git(repo, "log", "--format=%H %s").splitlines()]


def _worktrees(repo) -> int:
    return len(_git(repo, "worktree", "list").splitlines())


def test_the_gate_confirms_a_step_with_a_plan_and_its_decision_is_read(repo, monkeypatch, capsys):
    """The gate's workflow gets the cell in the culprit's worktree, the parent as its base ref, each commit's
    interpreter, the backends bisect started and the --gate-args; its decision's verdict, windows, signals and
    step-summary table go into the step, and its lines to stderr; no worktree is left."""
    planned = []
    run = _decision("waitress-t4/flask json c32")

    def gate(plan):
        planned.append(plan)
        return [(run, SHIFTS)]

    monkeypatch.setattr(confirm.workflow, "run", gate)
    after, before = _rows(repo)[:2]
    options = GateOptions(blocks=8, rate="off", cost_repeats=1)
    urls = {"redis": "redis://127.0.0.1:1/0"}
    got = confirm.confirm({**FIELDS, "repo": str(repo)}, before, after, _Envs(), urls, options)
    [plan] = planned
    assert plan.base_ref == before.sha and plan.served.top.name.startswith("serverbench-base-")
    assert (plan.served.cell.name, [w.name for w in plan.served.workloads]) == ("waitress-t4/flask", ["json"])
    assert (plan.base.python, plan.candidate.python, plan.urls["redis"]) == (
        sys.executable,
        sys.executable,
        urls["redis"],
    )
    assert (plan.settings["blocks"], plan.settings["rate"], plan.settings["cost_repeats"]) == (8, None, 1)
    assert got == {
        "verdict": run.verdict,
        "exit_status": run.exit_status,
        "stopped": run.stopped,
        "windows": len(run.windows),
        "blocks": run.measurement.blocks,
        "signals": {name: d.summary() for name, d in run.decisions.items()},
        "seconds": round(run.seconds, 1),
        "markdown": gate_report.markdown(run, SHIFTS),
    }
    said = capsys.readouterr()
    assert said.out == "" and f"confirming {after.name} against its parent {before.short} with the A/B gate" in said.err
    assert "waitress-t4/flask json c32: simultaneous" in said.err
    assert _worktrees(repo) == 1, "a worktree was left"


def test_a_gate_that_cannot_run_is_the_steps_error(repo):
    """A gate its resolution refuses (here a rate of 0 requests/s) is recorded as the step's error, in the gate's
    words; the bisection goes on, no worktree left."""
    after, before = _rows(repo)[:2]
    got = confirm.confirm({**FIELDS, "repo": str(repo)}, before, after, _Envs(), {}, GateOptions(rate="0"))
    assert got == {"error": "--rate '0': give requests/s > 0 per arm (finite), 'auto' or 'off'"}
    assert _worktrees(repo) == 1


def test_ctrl_c_in_the_confirming_gate_stops_the_bisection(repo, monkeypatch):
    """A gate stopped by Ctrl-C stops the bisection too (it is no step's error), and its worktrees are removed."""

    def interrupted(plan):
        raise KeyboardInterrupt

    monkeypatch.setattr(confirm.workflow, "run", interrupted)
    after, before = _rows(repo)[:2]
    with pytest.raises(KeyboardInterrupt):
        confirm.confirm({**FIELDS, "repo": str(repo)}, before, after, _Envs(), {}, GateOptions(cost_repeats=0))
    assert _worktrees(repo) == 1, "a worktree was left"


def test_the_gates_options_are_checked_against_the_cell_before_anything_counts(repo):
    """check(): the options given in --gate-args, on the cell the bisection counts, in the working tree; a mistake is
    the gate's own ConfigError, and a project's endpoint is asked for by name."""
    fields = {**FIELDS, "repo": str(repo)}
    confirm.check(fields, GateOptions(cost_repeats=0))
    with pytest.raises(ConfigError, match="^--alpha / --cells / --min-effect: Policy.min_effect=2.0"):
        confirm.check(fields, GateOptions(min_effect=2.0))
    asked = confirm.asked({**fields, "user": True}, GateOptions(), repo)
    assert (asked.endpoints, asked.app, asked.workload, asked.repo) == (("json",), None, None, str(repo / "."))
    assert replace(confirm.asked(fields, GateOptions(), repo), repo=".") == GateOptions(
        variant="waitress-t4", app="flask", workload="json"
    )
