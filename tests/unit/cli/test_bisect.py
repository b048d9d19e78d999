"""serverbench bisect's bad input, refused before anything starts: each one line on stderr naming the fix, exit 2,
and no worktree, folder or process left behind."""

import os
import shutil
import sys
import tempfile

import pytest

from serverbench.bisect import plan as plan_module
from serverbench.cli import bisect as command
from serverbench.measure.trees.commits import Commit
from tests.unit.measure.trees.test_commits import _git


@pytest.fixture
def repo(tmp_path):
    """A checkout with three commits of apps/ (no pytest configuration: the reference apps' layout)."""
    path = tmp_path / "repo"
    (path / "apps").mkdir(parents=True)
    _git(tmp_path, "init", "-q", "-b", "main", str(path))
    for i in range(3):
        (path / "apps" / "flask_app.py").write_text(f"X = {i}\n")
        _git(path, "add", "-A")
        _git(path, "commit", "-q", "-m", f"c{i}")
    return path


@pytest.fixture(autouse=True)
def scratch(tmp_path, monkeypatch):
    """This test's own temporary folder: whatever the command would leave there is seen (and no one else's)."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _refused(capsys, repo, *argv):
    """The error line of a refused bisection; nothing is left in the repository or the temporary folder."""
    status = command.main(["--repo", str(repo), "--no-confirm", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2, err
    assert len(_git(repo, "worktree", "list").splitlines()) == 1, "a worktree was left"
    left = os.listdir(tempfile.gettempdir())
    assert not left, f"left in the temporary folder: {left}"
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--good", "v0", "--variant", "waitress-t4"], "--good 'v0' does not exist in"),
        (["--good", "HEAD~1", "--bad", "nope", "--variant", "waitress-t4"], "--bad 'nope' does not exist"),
        (
            ["--good", "HEAD", "--bad", "HEAD~2", "--variant", "waitress-t4"],
            "swap them if they are the wrong way round",
        ),
        (["--variant", "waitress-t4"], "--good is required"),
        (["--good", "HEAD~2", "--variant", "nope"], "unknown variant 'nope'; known variants:"),
        (["--good", "HEAD~2", "--variant", "waitress-t4", "--endpoint", "x"], "names no perf_app: use --workload"),
        (["--good", "HEAD~2", "--variant", "waitress-t4", "--threshold", "2"], "--threshold '2': give a fraction"),
        (["--good", "HEAD~2", "--variant", "node-http"], "counted for Python servers only"),
        (["--good", "HEAD~2", "--variant", "waitress-t4", "--workload", "site"], "a mix of URLs"),
    ],
)
def test_bad_input_is_one_line_naming_the_fix(capsys, repo, argv, said):
    """Refs that do not exist, a reversed range, unknown names, a cell that cannot be counted: exit 2."""
    assert said in _refused(capsys, repo, *argv)


def test_valgrind_missing_is_named_with_its_install_line(capsys, repo, tmp_path, monkeypatch):
    """Without valgrind on PATH the bisection says how to install it, before any worktree."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(bin_dir))
    said = _refused(capsys, repo, "--good", "HEAD~2", "--variant", "waitress-t4")
    assert "instructions cannot be counted here: valgrind is not installed: apt-get install valgrind" in said


def test_a_stored_file_that_is_not_a_bisection_is_named(capsys, repo, tmp_path):
    """--confirm with another kind of file, or none, names the file and what to pass."""
    other = tmp_path / "decision.json"
    other.write_text('{"kind": "ab"}')
    assert 'not a bisection file (no "kind": "bisect")' in _refused(capsys, repo, "--confirm", str(other))
    assert "no such file; write one with `serverbench bisect" in _refused(
        capsys, repo, "--confirm", str(tmp_path / "x")
    )


def test_a_projects_perf_app_setup_and_reset_are_in_the_plan(tmp_path, monkeypatch):
    """In a project naming perf_app, the plan carries its perf_app_setup command and perf_app_reset function, which
    each commit's tree runs before its count (as the perf suite, cost and the gate do)."""
    monkeypatch.setattr(plan_module, "valgrind_missing", lambda: "")
    monkeypatch.setattr(plan_module, "missing_modules_in", lambda python, modules: [])
    path = tmp_path / "todo"
    path.mkdir()
    _git(tmp_path, "init", "-q", "-b", "main", str(path))
    (path / "pytest.ini").write_text(TODO_INI)
    for i in range(2):
        (path / "todo.py").write_text(f"X = {i}\n\ndef app(environ, start_response):\n    return []\n")
        _git(path, "add", "-A")
        _git(path, "commit", "-q", "-m", f"c{i}")
    plan, _, _ = command.plan_of(command.parser().parse_args(["--repo", str(path), "--good", "HEAD~1"]))
    assert plan.setup == "flask --app todo init-db"
    assert plan.reset is not None and plan.reset.text == "todo:reset"


TODO_INI = """[pytest]
perf_app = todo:app
perf_app_setup = flask --app todo init-db
perf_app_reset = todo:reset
perf_variants = waitress-t4
perf_endpoints =
    home GET / status=200
"""


class _Envs:
    """Every commit served by this interpreter (no lock file to build)."""

    def python_for(self, commit, checkout):
        return sys.executable


def test_ctrl_c_in_the_confirming_gate_stops_the_bisection(repo, monkeypatch):
    """A gate stopped by Ctrl-C (its exit 130, its worktree removed) stops the bisection too, its worktrees removed;
    it was recorded as the step's error and the bisection went on to the next step."""
    monkeypatch.setattr(command.gate, "main", lambda argv: 130)
    rows = [
        Commit(sha, subject)
        for sha, subject in (line.split(" ", 1) for line in _git(repo, "log", "--format=%H %s").splitlines())
    ]
    fields = {
        "repo": str(repo),
        "project": ".",
        "user": False,
        "variant": "waitress-t4",
        "app": "flask",
        "workload": "json",
    }
    with pytest.raises(KeyboardInterrupt):
        command.confirm(fields, rows[1], rows[0], _Envs(), {}, "")
    assert len(_git(repo, "worktree", "list").splitlines()) == 1, "a worktree was left"
