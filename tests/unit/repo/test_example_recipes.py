"""Every example carries the same CI recipe (a user copies any one of them): the workflow and its scripts; and
the scripts' paths that start no server, run for real on throwaway git repositories: a base without
serverbench, a new branch's first commit, a shallow clone, an install without serverbench named."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from serverbench.drivers.oha import VERSION as OHA_VERSION

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
RECIPE = ("ci/common.sh", "ci/install.sh", "ci/cost.sh", "ci/gate.sh")
PROJECTS = sorted(p for p in EXAMPLES.iterdir() if (p / "pyproject.toml").is_file())
ZERO = "0" * 40


def test_examples_carry_one_ci_recipe():
    """The ci/ scripts are identical in every example, and each workflow installs through ci/install.sh and calls
    ci/cost.sh on a push and ci/gate.sh on a pull request."""
    assert len(PROJECTS) >= 2
    for path in RECIPE:
        texts = {p.name: (p / path).read_text() for p in PROJECTS}
        assert len(set(texts.values())) == 1, f"{path} differs between {sorted(texts)}"
    for p in PROJECTS:
        workflow = yaml.safe_load((p / ".github" / "workflows" / "serverbench.yml").read_text())
        runs = {name: [s.get("run", "") for s in job["steps"]] for name, job in workflow["jobs"].items()}
        assert any(r.startswith("ci/install.sh") for r in runs["cost"]) and 'ci/cost.sh "$BEFORE"' in runs["cost"]
        assert any(r.startswith("ci/install.sh --oha") for r in runs["gate"]) and 'ci/gate.sh "$BASE"' in runs["gate"]


def test_the_recipe_downloads_the_oha_the_driver_is_tested_with():
    """ci/install.sh --oha fetches the release of the driver's pinned oha (1.4.6, fetched before, lacks the
    --output-format flag the driver passes), and its fallback names the same version."""
    text = (PROJECTS[0] / "ci/install.sh").read_text()
    assert f"OHA_URL=https://github.com/hatoo/oha/releases/download/v{OHA_VERSION}/oha-linux-amd64" in text
    assert f"cargo install --locked oha --version {OHA_VERSION}" in text


def test_the_index_route_is_one_line():
    """SERVERBENCH is set once, at the top of each workflow (the line to change once serverbench is on PyPI)."""
    for p in PROJECTS:
        text = (p / ".github" / "workflows" / "serverbench.yml").read_text()
        assert [line for line in text.splitlines() if line.strip().startswith("SERVERBENCH:")] == [
            "  SERVERBENCH: ${{ vars.SERVERBENCH || 'serverbench @ git+https://github.com/OWNER/serverbench@COMMIT' }}"
        ], p.name


def _git(repo: Path, *argv: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=ci@example.org", "-c", "user.name=ci", *argv],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path) -> Path:
    """A project whose first commit has no serverbench settings and whose second adds flask-todo's."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "pyproject.toml").write_text('[project]\nname = "todo"\nversion = "0"\n')
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the app, before serverbench")
    shutil.copytree(EXAMPLES / "flask-todo", repo, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "serverbench")
    return repo


def _script(repo: Path, script: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SERVERBENCH"))}
    return subprocess.run(
        ["sh", f"ci/{script}", *args], cwd=repo, env={**environ, **env}, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("script", ["cost.sh", "gate.sh"])
def test_a_base_without_serverbench_is_not_measured_and_strict_fails_it(repo, script):
    """The push (or pull request) that adds serverbench: "not measured" in the summary, exit 0; exit 3 when strict.
    Nothing is counted or timed (no pytest, no gate is started)."""
    done = _script(repo, script, "HEAD~1")
    summary = (repo / "serverbench-summary.md").read_text()
    assert done.returncode == 0, done.stderr
    assert "**not measured**" in summary and "has no serverbench settings (perf_app)" in summary
    strict = _script(repo, script, "HEAD~1", SERVERBENCH_STRICT="1")
    assert strict.returncode == 3 and "SERVERBENCH_STRICT=1: the job fails on it" in strict.stderr


def test_a_new_branch_counts_against_the_parent_fetched_into_a_shallow_clone(repo, tmp_path):
    """A zero BEFORE in a depth-1 clone: the parent is read from the commit, fetched alone, and judged (here: it
    has no serverbench settings); a first commit with a zero BEFORE has nothing to count."""
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)], check=True)
    done = _script(shallow, "cost.sh", ZERO)
    assert done.returncode == 0, done.stderr
    assert "a new branch; counting against the pushed commit's parent" in done.stderr
    assert "fetching" in done.stderr and "**not measured**" in (shallow / "serverbench-summary.md").read_text()
    _git(repo, "checkout", "-q", "--orphan", "fresh")
    _git(repo, "commit", "-qm", "a first commit")
    first = _script(repo, "cost.sh", ZERO)
    assert first.returncode == 0 and "is the first commit: there is nothing before it" in first.stderr


def test_a_base_that_cannot_be_fetched_names_the_fix(repo):
    """A base commit the clone lacks and origin does not have: exit 2, naming fetch-depth: 0."""
    done = _script(repo, "gate.sh", "1234567890123456789012345678901234567890")
    assert done.returncode == 2 and "fetch-depth: 0" in done.stderr


@pytest.mark.parametrize("value", [None, "serverbench @ git+https://github.com/OWNER/serverbench@COMMIT"])
def test_install_refuses_until_serverbench_is_named(repo, value):
    """ci/install.sh with SERVERBENCH unset or still the placeholder: exit 2 before installing anything."""
    done = _script(repo, "install.sh", "valgrind", **({} if value is None else {"SERVERBENCH": value}))
    assert done.returncode == 2 and "does not name serverbench yet" in done.stderr and "SERVERBENCH" in done.stderr
