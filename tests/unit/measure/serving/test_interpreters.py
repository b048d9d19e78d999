"""measure.serving.interpreters: an arm's interpreter given as a version, found, and its environment made from the
lock with uv, cached and reused (a fake uv: offline, in milliseconds; the real one is the integration tests')."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import serverbench
from serverbench.errors import ConfigError
from serverbench.measure.serving.interpreters import (
    COMPLETE,
    Maker,
    cache_root,
    find,
    is_version,
    lock_of,
    pyenv_installed,
)

FAKE_UV = """#!/bin/sh
echo "$*" >> "{log}"
case "$1 $2" in
  "python find") [ "$7" = "{installed}" ] && echo "{python}" && exit 0; exit 2 ;;
esac
case "$1" in
  venv) mkdir -p "$5/bin" "$5/lib/python3.11/site-packages" && ln -s "{python}" "$5/bin/python" ;;
  sync) case "$*" in *--dry-run*) [ -n "{refuse}" ] && echo "error: {refuse}" >&2 && exit 1 ;; esac ;;
esac
exit 0
"""


def _uv(tmp_path: Path, installed: str = "3.11", refuse: str = "") -> tuple[Path, Path]:
    log = tmp_path / "uv.log"
    uv = tmp_path / "uv"
    uv.write_text(FAKE_UV.format(log=log, installed=installed, python=sys.executable, refuse=refuse))
    uv.chmod(0o755)
    return uv, log


def _project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "uv.lock").write_text("version = 1\n")
    (folder / "pyproject.toml").write_text('[project]\nname = "x"\n[project.optional-dependencies]\nservers = []\n')
    return folder


def _maker(tmp_path: Path, uv: Path) -> Maker:
    maker = Maker(tmp_path, root=tmp_path / "cache")
    maker.uv = str(uv)
    return maker


def test_a_version_is_told_from_a_path():
    """3.13, 3.13t, cpython3.12, pypy3.10 are versions; a path or a program name is not."""
    assert all(is_version(v) for v in ("3.10", "3.13t", "cpython3.12", "python3.11", "pypy3.10", "pypy-3.9"))
    assert not any(is_version(v) for v in ("/usr/bin/python3", ".venv/bin/python", "python3", "3", "3.13.1"))


def test_a_version_not_installed_says_where_to_get_it(tmp_path):
    """No such interpreter: the error names uv python install, pyenv, apt and actions/setup-python."""
    uv, _ = _uv(tmp_path, installed="3.11")
    with pytest.raises(ConfigError) as caught:
        find("3.14", "--cand-python", str(uv))
    said = str(caught.value)
    assert said.startswith("--cand-python 3.14: no such interpreter is installed here")
    for where in ("uv python install 3.14", "pyenv install 3.14", "apt install python3.14", "actions/setup-python"):
        assert where in said
    with pytest.raises(ConfigError, match="needs uv: `pip install uv`"):
        find("3.14", "--cand-python", None)


def test_the_environment_is_made_once_and_reused(tmp_path):
    """The first gate makes it (uv venv, uv sync of the lock with the extras it declares); the next reuses it."""
    uv, log = _uv(tmp_path)
    maker, lock = _maker(tmp_path, uv), lock_of(_project(tmp_path))
    python = maker.environment("3.11", "--base-python", lock)
    folder = Path(python).parents[1]
    assert folder.parent == tmp_path / "cache" and lock.digest in folder.name and (folder / COMPLETE).exists()
    calls = log.read_text().splitlines()
    assert [c.split()[0] for c in calls if not c.startswith("python")] == ["sync", "venv", "sync"]
    assert "--frozen --no-install-project" in calls[-1] and "--extra servers" in calls[-1]
    harness = Path((folder / "lib/python3.11/site-packages/serverbench-harness.pth").read_text().strip())
    assert [p.name for p in harness.iterdir()] == ["serverbench"]  # the package alone, not its site-packages
    assert (harness / "serverbench" / "__init__.py").resolve() == Path(serverbench.__file__).resolve()
    log.write_text("")
    assert maker.environment("3.11", "--base-python", lock) == python
    assert [c.split()[0] for c in log.read_text().splitlines()] == ["python"]  # found, then reused: no sync


def test_a_lock_that_does_not_install_on_the_interpreter_is_refused_before_anything(tmp_path):
    """uv's dry run fails: a ConfigError naming the lock, the interpreter and uv's reason; nothing is made."""
    uv, _ = _uv(tmp_path, refuse="the requested interpreter is incompatible with requires-python >=3.12")
    maker = _maker(tmp_path, uv)
    with pytest.raises(ConfigError, match=r"--cand-python 3.11: the project's uv.lock in .* does not install on "):
        maker.check("3.11", "--cand-python", lock_of(_project(tmp_path)))
    assert not list((tmp_path / "cache").glob("cpython-*"))


def test_the_lock_comes_from_the_working_tree_or_a_git_ref(tmp_path):
    """A folder without uv.lock is refused with the fix; at a ref, the lock is the committed one."""
    with pytest.raises(ConfigError, match="has no uv.lock and pyproject.toml: run `uv lock` there"):
        lock_of(tmp_path)
    folder = _project(tmp_path)
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-C", str(folder)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "lock"], check=True)
    (folder / "uv.lock").write_text("version = 1\n# bumped\n")
    at_head, here = lock_of(folder, "HEAD"), lock_of(folder)
    assert at_head.lock == "version = 1\n" and at_head.digest != here.digest and at_head.extras == ["servers"]
    with pytest.raises(ConfigError, match="git cannot show"):
        lock_of(folder, "no-such-ref")


def test_the_cache_is_under_the_users_cache_folder():
    """$XDG_CACHE_HOME/serverbench/envs, else ~/.cache/serverbench/envs."""
    assert cache_root({"XDG_CACHE_HOME": "/c"}) == Path("/c/serverbench/envs")
    assert cache_root({}) == Path.home() / ".cache" / "serverbench" / "envs"


def test_pyenv_installs_are_found_when_uv_stops_at_a_shim(tmp_path):
    """A version pyenv has not selected (its shim does not answer): pyenv's own install, the newest patch first."""
    for version in ("3.13.0", "3.13.1", "3.13.1t", "3.12.1"):
        bin_dir = tmp_path / "versions" / version / "bin"
        bin_dir.mkdir(parents=True)
        suffix = "t" if version.endswith("t") else ""
        (bin_dir / f"python{version[:4]}{suffix}").write_text("")
        (bin_dir / f"python{version[:4]}").write_text("")  # a free-threaded install has the plain name too
    environ = {"PYENV_ROOT": str(tmp_path)}
    assert pyenv_installed("3.13", environ) == [str(tmp_path / "versions/3.13.1/bin/python3.13")]
    assert pyenv_installed("3.13t", environ) == [str(tmp_path / "versions/3.13.1t/bin/python3.13t")]
    assert pyenv_installed("3.14", environ) == [] and pyenv_installed("/usr/bin/python3", environ) == []


def test_the_real_uv_makes_an_environment_once_offline_and_reuses_it(tmp_path):
    """uv itself (./run's pinned one, or on PATH) on a project without dependencies: offline, about a second. The
    environment runs this interpreter's version with serverbench importable; the second call reuses it."""
    from serverbench.measure.trees.lockenv import uv_binary

    uv = uv_binary(Path(__file__).resolve().parents[4])
    if uv is None:
        pytest.skip("uv is not installed: `pip install uv` (./run keeps it in .tools/bin)")
    project = tmp_path / "tiny"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "tiny"\nversion = "0"\ndependencies = []\n')
    subprocess.run(
        [uv, "lock", "--offline", "--quiet", "--python", sys.executable], cwd=project, check=True, timeout=60
    )
    maker = Maker(tmp_path, root=tmp_path / "cache")
    maker.uv = uv
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    try:
        python = maker.environment(version, "--cand-python", lock_of(project))
    except ConfigError as exc:  # uv's discovery and pyenv's installs do not know this interpreter (a bare venv)
        pytest.skip(f"this interpreter is not findable by version here: {exc}")
    ran = subprocess.run(
        [python, "-c", "import serverbench, sys; print(sys.version_info[:2])"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.stdout.strip() == str(sys.version_info[:2]), ran.stderr
    made = (Path(python).parents[1] / COMPLETE).stat().st_mtime
    assert maker.environment(version, "--cand-python", lock_of(project)) == python
    assert (Path(python).parents[1] / COMPLETE).stat().st_mtime == made
