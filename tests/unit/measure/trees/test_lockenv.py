"""measure.trees.lockenv: one environment per lock file.  The working tree's lock (or none) runs in --python; another
lock is built once with uv and shared by its commits; a lock uv cannot install is remembered and skips its
commits; the built environments are removed at the end.  Builds here have no dependencies (nothing is fetched)."""

import subprocess
import sys
from pathlib import Path

import pytest

from serverbench.errors import ConfigError
from serverbench.measure.trees import lockenv
from serverbench.measure.trees.commits import Commit
from serverbench.measure.trees.lockenv import EnvironmentBuildError, Environments

PROJECT = """[project]
name = "scratch"
version = "0"
requires-python = ">=3.9"
dependencies = []

[tool.uv]
package = false
"""


@pytest.fixture
def uv():
    found = lockenv.uv_binary(Path(__file__).parents[3])
    if found is None:
        pytest.skip("uv is not installed (./run installs it in .venv)")
    return found


def _checkout(folder, lock=None):
    folder.mkdir()
    (folder / "pyproject.toml").write_text(PROJECT)
    if lock is not None:
        (folder / "uv.lock").write_text(lock)
    return folder


def test_the_working_trees_lock_and_no_lock_run_in_the_given_python(tmp_path):
    """Nothing is built for a commit whose lock is the working tree's, or that has none."""
    with Environments(tmp_path, "uv.lock", "/some/python", "aaa", ()) as envs:
        assert envs.python_for(Commit("1" * 40, "same", "aaa"), tmp_path) == "/some/python"
        assert envs.python_for(Commit("2" * 40, "none", None), tmp_path) == "/some/python"
        assert envs.folder is None


def test_another_lock_without_uv_is_refused_before_anything_starts(tmp_path, monkeypatch):
    """check() names the commits with another lock and how to get uv."""
    monkeypatch.setattr(lockenv, "uv_binary", lambda repo: None)
    envs = Environments(tmp_path, "uv.lock", sys.executable, "aaa", ())
    envs.check([Commit("1" * 40, "same", "aaa")])
    with pytest.raises(ConfigError, match=r"1 commit\(s\) of the range .* have another uv.lock .* `pip install uv`"):
        envs.check([Commit("1" * 40, "same", "aaa"), Commit("2" * 40, "bumped flask", "bbb")])


def test_another_lock_is_built_once_and_shared_then_removed(tmp_path, uv, monkeypatch):
    """Two commits with the same other lock: one uv sync, one interpreter of the same version; gone at the end."""
    monkeypatch.setattr(lockenv, "uv_binary", lambda repo: uv)
    first = _checkout(tmp_path / "first")
    subprocess.run([uv, "lock", "--quiet", "--offline"], cwd=first, check=True)
    lock = (first / "uv.lock").read_text()
    second = _checkout(tmp_path / "second", lock)
    with Environments(tmp_path, "uv.lock", sys.executable, "current", ["--offline"]) as envs:
        one = envs.python_for(Commit("1" * 40, "a", "bbb"), first)
        two = envs.python_for(Commit("2" * 40, "b", "bbb"), second)
        assert one == two and Path(one).is_file()
        version = subprocess.run([one, "-c", "import sys; print(sys.version_info[:3])"], capture_output=True, text=True)
        assert version.stdout.strip() == str(tuple(sys.version_info[:3]))
        folder = envs.folder
    assert folder is not None and not folder.exists()


def test_a_lock_uv_cannot_install_skips_every_commit_of_it(tmp_path, uv, monkeypatch):
    """The build's failure is raised for its commits (the reason of their skip), tried only once."""
    monkeypatch.setattr(lockenv, "uv_binary", lambda repo: uv)
    broken = _checkout(tmp_path / "broken", "this is not a lock file\n")
    calls = []
    real = Environments._build

    def counted(self, commit, checkout):
        calls.append(commit.sha)
        return real(self, commit, checkout)

    monkeypatch.setattr(Environments, "_build", counted)
    with Environments(tmp_path, "uv.lock", sys.executable, "current", ["--offline"]) as envs:
        for sha in ("1", "2"):
            with pytest.raises(EnvironmentBuildError, match="uv sync of its uv.lock failed"):
                envs.python_for(Commit(sha * 40, "x", "bad"), broken)
    assert len(calls) == 1
