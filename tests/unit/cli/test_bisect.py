"""serverbench bisect's bad input, refused before anything starts: each one line on stderr naming the fix, exit 2,
and no worktree, folder or process left behind."""

import os
import shutil
import tempfile

import pytest

from serverbench.cli import bisect as command
from serverbench.cli import gate
from serverbench.errors import ConfigError
from serverbench.gate.options import GateOptions
from tests.unit.measure.trees.test_commits import _git


@pytest.fixture
def repo(tmp_path):
    """A checkout with three commits of apps/ (no pytest configuration: the reference apps' layout)."""
    return reference_checkout(tmp_path)


def reference_checkout(tmp_path):
    """tmp_path/repo: three commits of apps/flask_app.py."""
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
        (
            ["--good", "HEAD~2", "--variant", "waitress-t4", "--endpoint", "x"],
            "naming perf_app: use --workload, or run bisect in your project",
        ),
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


def test_gate_args_are_read_by_the_gates_own_arguments():
    """--gate-args is read as the gate's command line reads the same options; a mistake is bad input, one line."""
    options = command.gate_options("--blocks 8 --rate off --cost-repeats 1 --duration 1 --base-env A=1")
    assert (options.blocks, options.rate, options.cost_repeats, options.base_env) == (8, "off", 1, ("A=1",))
    assert options.shared == {"perf_duration": "1"}
    assert command.gate_options("") == GateOptions()
    with pytest.raises(ConfigError, match="^--gate-args: argument --blocks: invalid int value: 'x'$"):
        command.gate_options("--blocks x")
    with pytest.raises(ConfigError, match="^--gate-args: unrecognized arguments: --good HEAD$"):
        command.gate_options("--good HEAD")


TODO_INI = """[pytest]
perf_app = todo:app
perf_variants = waitress-t4
perf_endpoints =
    home GET / status=200
"""


@pytest.fixture
def project(tmp_path):
    """A user's project of two commits (its pytest configuration names perf_app)."""
    path = tmp_path / "todo"
    path.mkdir()
    _git(tmp_path, "init", "-q", "-b", "main", str(path))
    (path / "pytest.ini").write_text(TODO_INI)
    for i in range(2):
        (path / "todo.py").write_text(f"X = {i}\n\ndef app(environ, start_response):\n    return []\n")
        _git(path, "add", "-A")
        _git(path, "commit", "-q", "-m", f"c{i}")
    return path


def _said(capsys, main, argv) -> list[str]:
    """The lines a door printed on stderr when it refused ``argv`` (exit 2)."""
    status = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2, err
    return err


# The same mistake given to each door, in a checkout of the reference apps (repo) or a user's project: the gate's
# words (its argv) and bisect's (--gate-args for the gate's own options).  Each is checked by one path
# (gate.served, gate.resolve), so the lines are the same.
SAME_MISTAKE = [
    ("repo", ["--variant", "nope"], [], "unknown variant 'nope'; known variants:"),
    ("repo", ["--variant", "waitress-t4", "--app", "nada"], [], "unknown app 'nada'"),
    ("repo", ["--variant", "waitress-t4", "--workload", "zilch"], [], "unknown workload 'zilch'"),
    ("repo", ["--variant", "waitress-t4", "--redis-url", "http://x"], [], "--redis-url='http://x': expected a URL"),
    ("repo", ["--variant", "waitress-t4"], ["--rate", "0"], "--rate '0'"),
    (
        "repo",
        ["--variant", "waitress-t4"],
        ["--min-effect", "2"],
        "--alpha / --cells / --min-effect: Policy.min_effect",
    ),
    ("repo", ["--variant", "waitress-t4"], ["--connections", "8,16"], "--connections takes one count in the gate"),
    ("repo", ["--variant", "waitress-t4"], ["--blocks", "2", "--cost-repeats", "0"], "--blocks 2 gives"),
    ("project", ["--endpoint", "lst"], [], "unknown endpoint(s) 'lst'; todo:app has home (perf_endpoints)"),
    ("project", ["--variant", "aiohttp"], [], "--variant 'aiohttp' is not a variant of todo:app"),
]


@pytest.mark.parametrize("where, argv, gate_args, said", SAME_MISTAKE)
def test_bisect_and_the_gate_refuse_the_same_mistake_with_the_same_line(capsys, request, where, argv, gate_args, said):
    """An unknown name, endpoint or variant, a bad backend URL, or a bad option of the gate (given to bisect in
    --gate-args): both doors exit 2 with the same one line, before anything is counted or measured."""
    folder = str(request.getfixturevalue(where))
    from_gate = _said(capsys, gate.main, ["--repo", folder, *argv, *gate_args])
    bisect_argv = [*argv, "--gate-args", " ".join(gate_args)] if gate_args else argv
    from_bisect = _said(capsys, command.main, ["--repo", folder, "--good", "HEAD~1", *bisect_argv])
    assert from_gate == from_bisect and len(from_gate) == 1 and said in from_gate[0], (from_gate, from_bisect)
