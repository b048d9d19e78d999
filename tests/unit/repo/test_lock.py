"""`./run lock` in each form docs/setup.md gives it, on a copy of pyproject.toml and uv.lock: plain on an up-to-date
lock (no change), plain after an edit of pyproject.toml, `--upgrade-package flask` and `--upgrade`.

The forms that resolve need PyPI (about 20 s each), so they are deselected unless -m documented (tests.yml's
`documented` job runs them); the up-to-date lock needs no index and runs with the unit tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
UV = ROOT / ".tools" / "bin" / "uv"


def versions(lock: Path) -> dict[str, list[str]]:
    """Each package of a lock and its versions (a forked resolution locks several)."""
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    found: dict[str, list[str]] = {}
    for package in tomllib.loads(lock.read_text())["package"]:
        found.setdefault(package["name"], []).append(package.get("version", ""))
    return found


def requirements(lock: Path, name: str) -> set[str]:
    """The names a locked package depends on (any of its versions)."""
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    return {
        dep["name"]
        for package in tomllib.loads(lock.read_text())["package"]
        if package["name"] == name
        for dep in package.get("dependencies", ())
    }


@pytest.fixture
def checkout(tmp_path) -> Path:
    """What `./run lock` reads and writes, copied: run, pyproject.toml, uv.lock; ./run's pinned uv linked in."""
    if not UV.is_file():
        pytest.skip(f"no {UV.relative_to(ROOT)}: run the tests through ./run tests, which installs it")
    for name in ("run", "pyproject.toml", "uv.lock", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, tmp_path / name)
    (tmp_path / ".tools").symlink_to(ROOT / ".tools")
    return tmp_path


def run_lock(checkout: Path, *args: str, offline: bool = False) -> subprocess.CompletedProcess:
    """`./run lock ARGS` in the copy; fails the test with uv's output when it exits non-zero."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "UV_"))}
    if offline:
        env["UV_OFFLINE"] = "1"
    done = subprocess.run(["./run", "lock", *args], cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"./run lock {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done


def test_run_lock_leaves_an_up_to_date_lock_as_it_is(checkout):
    """`./run lock` on the committed pyproject.toml and uv.lock resolves from the lock alone (no index) and
    rewrites nothing: the committed lock is the one pyproject.toml asks for."""
    done = run_lock(checkout, offline=True)
    assert "Resolved " in done.stderr, done.stderr
    assert (checkout / "uv.lock").read_bytes() == (ROOT / "uv.lock").read_bytes(), (
        "./run lock changed uv.lock: it is stale against pyproject.toml; run ./run lock and commit uv.lock"
    )


@pytest.mark.documented
def test_run_lock_after_an_edit_drops_what_pyproject_no_longer_asks_for(checkout):
    """`./run lock` after a dependency is removed from pyproject.toml (bottle, of the `apps` extra): bottle leaves
    the lock and every other package keeps its version."""
    pyproject = checkout / "pyproject.toml"
    text = pyproject.read_text()
    assert '    "bottle>=0.12",\n' in text, "pyproject.toml's apps extra no longer names bottle; pick another"
    pyproject.write_text(text.replace('    "bottle>=0.12",\n', ""))
    before = versions(checkout / "uv.lock")
    run_lock(checkout)
    after = versions(checkout / "uv.lock")
    assert "bottle" in before and "bottle" not in after
    assert after == {name: v for name, v in before.items() if name != "bottle"}


def pin_flask_back(checkout: Path) -> str:
    """Lock an older flask than the committed one (uv's own `--upgrade-package 'flask<X'`); its version."""
    committed = versions(checkout / "uv.lock")["flask"]
    subprocess.run(
        [str(UV), "lock", "--quiet", "--upgrade-package", f"flask<{committed[0]}"],
        cwd=checkout,
        check=True,
        capture_output=True,
        timeout=600,
    )
    older = versions(checkout / "uv.lock")["flask"]
    assert older != committed, f"uv lock --upgrade-package 'flask<{committed[0]}' left flask at {older}"
    return older[0]


@pytest.mark.documented
def test_run_lock_upgrade_package_moves_that_package_alone(checkout):
    """`./run lock --upgrade-package flask` on a lock with an older flask: flask moves up, and every package that
    is neither flask nor one flask depends on keeps its version."""
    older = pin_flask_back(checkout)
    before = versions(checkout / "uv.lock")
    done = run_lock(checkout, "--upgrade-package", "flask")
    after = versions(checkout / "uv.lock")
    assert after["flask"] != [older], done.stderr
    assert f"Updated flask v{older} -> " in done.stderr, done.stderr
    moved = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    assert moved <= {"flask"} | requirements(checkout / "uv.lock", "flask"), moved


@pytest.mark.documented
def test_run_lock_upgrade_moves_every_package_to_its_newest(checkout):
    """`./run lock --upgrade` on a lock with an older flask: flask moves up with the rest, and the lock it writes is
    the one pyproject.toml asks for (`./run lock --check`)."""
    older = pin_flask_back(checkout)
    done = run_lock(checkout, "--upgrade")
    assert versions(checkout / "uv.lock")["flask"] != [older], done.stderr
    assert f"Updated flask v{older} -> " in done.stderr, done.stderr
    run_lock(checkout, "--check", offline=True)
