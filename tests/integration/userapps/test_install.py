"""The install lines of the docs, run as written, each in fresh virtual environments: docs/install.md (the wheel
with `uv build` and `python -m pip wheel`, pip's `--find-links` install, pip's git route), docs/setup.md (`uv add`,
`uv sync --locked`, `uv run --locked pytest -m cost` in a project of one's own) and examples/README.md's block.

They need PyPI and take minutes (pip installs numpy and scipy; the examples count under valgrind), so they are
marked `documented`: deselected by default, run by tests.yml's `documented` job.  Where a doc names a placeholder
(`/path/to/serverbench`, `<its repository>@<commit>`), the test puts the real one in; serverbench is not on PyPI
yet, so `uv add` finds its wheel through UV_FIND_LINKS, as a user who built it would (docs/install.md).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from serverbench.measure.trees.lockenv import uv_binary

ROOT = Path(__file__).resolve().parents[3]
pytestmark = [pytest.mark.documented, pytest.mark.usefixtures("no_leaks")]
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
WHEEL = f"serverbench-{VERSION}-py3-none-any.whl"
# One server and short trials, through the environment: the documented commands stay as written.
SHORT = "--perf-duration 1 --perf-warmup 0 --perf-connections 8"


def tokens(page: Path):
    """The page's Markdown tokens, inline ones included."""
    for token in MarkdownIt().parse(page.read_text()):
        yield token
        yield from token.children or ()


def sh_blocks(page: Path) -> list[list[str]]:
    """The lines of each ```sh block of the page."""
    return [t.content.splitlines() for t in tokens(page) if t.type == "fence" and t.info == "sh"]


def code_span(page: Path, pattern: str) -> str:
    """The inline code span of the page that matches ``pattern`` (a regular expression; a span broken over two
    lines is one line)."""
    spans = {" ".join(t.content.split()) for t in tokens(page) if t.type == "code_inline"}
    found = [s for s in spans if re.fullmatch(pattern, s)]
    assert len(found) == 1, f"{page.name}: expected one `{pattern}`, found {found}"
    return found[0]


def user_env(venv: Path | None = None, **extra: str) -> dict[str, str]:
    """A user's shell: no pytest, uv or venv settings of this session; ``venv`` active; ./run's uv on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON", "VIRTUAL_ENV", "UV_", "COV_"))}
    uv = uv_binary(ROOT)
    if uv is None:
        pytest.skip(f"no uv on PATH, beside {sys.executable} nor in .tools/bin/: run the tests through ./run tests")
    path = [str(Path(uv).parent), env.get("PATH", "")]
    if venv is not None:
        path.insert(0, str(venv / "bin"))
        env["VIRTUAL_ENV"] = str(venv)
    return {**env, "PATH": os.pathsep.join(path), **extra}


def shell(line: str, cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    """One documented line, run by bash as written; its output (the test fails with it on a non-zero exit)."""
    done = subprocess.run(
        ["bash", "-ec", line], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=timeout,
    )  # fmt: skip
    assert done.returncode == 0, f"`{line}` exited {done.returncode} in {cwd}:\n{done.stdout[-4000:]}"
    return done.stdout


def venv(path: Path) -> Path:
    """A fresh venv with pip, as `python -m venv` makes it (uv's .venv has no pip)."""
    shell(f"python -m venv {path}", path.parent, user_env())
    return path


@pytest.fixture
def checkout(tmp_path) -> Path:
    """serverbench's sources as a checkout has them (a build in place would leave build/ here), and examples/."""
    copy = tmp_path / "serverbench"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, copy / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".venv", "dist", "baselines")
    shutil.copytree(ROOT / "src", copy / "src", ignore=ignore)
    shutil.copytree(ROOT / "examples", copy / "examples", ignore=ignore)
    return copy


def wheels(folder: Path) -> list[str]:
    """The wheels in a folder (uv build also writes a .gitignore there)."""
    return sorted(p.name for p in folder.glob("*.whl"))


def answers_help(venv_dir: Path) -> None:
    """serverbench's console script lists its commands; pytest loads its plugin (--perf-variants in its help)."""
    listed = shell("serverbench --help", venv_dir.parent, user_env(venv_dir))
    assert all(command in listed for command in ("gate", "report", "compare", "history")), listed
    assert "--perf-variants" in shell("pytest --help", venv_dir.parent, user_env(venv_dir))


def test_install_md_builds_the_wheel_both_ways_and_installs_it_with_find_links(checkout, tmp_path):
    """docs/install.md's block, below its PyPI line: `uv build --wheel --out-dir dist` and `python -m pip wheel
    --no-deps -w dist .` (in a venv with pip) make the same wheel; the `--find-links` line installs it with
    gunicorn and waitress in a fresh venv, where `serverbench --help` answers."""
    index, wheel = [[line.split("#")[0].strip() for line in block] for block in sh_blocks(ROOT / "docs" / "install.md")]
    uv_build, pip_wheel, find_links = wheel
    assert index[0].startswith("pip install serverbench ") and "/path/to/serverbench/dist" in find_links
    shell(uv_build, checkout, user_env())
    by_uv = wheels(checkout / "dist")
    assert by_uv == [WHEEL], by_uv
    shutil.rmtree(checkout / "dist")
    shell(pip_wheel, checkout, user_env(venv(tmp_path / "build-venv")))
    assert wheels(checkout / "dist") == by_uv

    project = venv(tmp_path / "project-venv")
    shell(find_links.replace("/path/to/serverbench", str(checkout)), tmp_path, user_env(project))
    answers_help(project)
    assert "gunicorn" in shell("pip list", tmp_path, user_env(project))


IDENTITY = {"NAME": "serverbench tests", "EMAIL": "tests@serverbench.invalid"}


def git_out(*args: str) -> str:
    """What git prints for ARGS in this checkout (a runner's git has no identity: commit-tree gets one)."""
    who = {f"GIT_{role}_{field}": value for role in ("AUTHOR", "COMMITTER") for field, value in IDENTITY.items()}
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, env={**os.environ, **who})
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def test_install_md_git_route_installs_a_pinned_commit(tmp_path):
    """docs/install.md's git route, `pip install 'serverbench @ git+https://github.com/<its repository>@<commit>'`:
    on GitHub Actions this repository at this commit; elsewhere (no github.com) the same pip route from a bare
    clone of this checkout (git+file). pip builds the wheel from that commit, which it records."""
    line = code_span(ROOT / "docs" / "install.md", r"pip install 'serverbench @ git\+https://github\.com/.*@<commit>'")
    commit = git_out("rev-parse", "HEAD")
    if os.environ.get("GITHUB_ACTIONS") == "true" and not os.environ.get("ACT"):
        url = f"{os.environ['GITHUB_SERVER_URL']}/{os.environ['GITHUB_REPOSITORY']}"
        commit = os.environ["GITHUB_SHA"]
    else:
        bare = tmp_path / "serverbench.git"
        if git_out("rev-parse", "--is-shallow-repository") == "true":
            # A depth-1 checkout (a runner's, rehearsed): pip's `git clone --filter=blob:none` from a shallow
            # repository fetches missing objects from itself without end (thousands of nested fetches). Its commit's
            # tree as a commit of its own, in a repository that is not shallow.
            commit = git_out("commit-tree", "HEAD^{tree}", "-m", f"the tree of {commit} (a depth-1 checkout)")
            subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
            subprocess.run(["git", "-C", str(ROOT), "push", "-q", str(bare), f"{commit}:refs/heads/main"], check=True)
        else:
            subprocess.run(["git", "clone", "-q", "--bare", str(ROOT), str(bare)], check=True)
        url = f"file://localhost{bare}"  # pip wants a host
    line = re.sub(r"https://github\.com/<its repository>@<commit>", f"{url}@{commit}", line)
    project = venv(tmp_path / "project-venv")
    shell(line, tmp_path, user_env(project))
    answers_help(project)
    [record] = (project / "lib").glob("python3*/site-packages/serverbench-*.dist-info/direct_url.json")
    assert json.loads(record.read_text())["vcs_info"]["commit_id"] == commit


def test_setup_md_uv_lines_lock_and_run_the_cost_tests_of_a_project(checkout, tmp_path):
    """docs/setup.md's lines for a project of one's own (flask-todo here): `uv add --dev serverbench gunicorn
    waitress` writes them into pyproject.toml and uv.lock, `uv sync --locked` installs that lock, and `uv run
    --locked pytest -m cost` counts every endpoint (one server here, through PYTEST_ADDOPTS)."""
    setup = ROOT / "docs" / "setup.md"
    add = code_span(setup, r"uv add --dev serverbench .*")
    sync = code_span(setup, r"uv sync --locked")
    cost = code_span(setup, r"uv run --locked pytest -m cost")
    shell("uv build --wheel -q --out-dir dist", checkout, user_env())
    project = checkout / "examples" / "flask-todo"
    env = user_env(UV_FIND_LINKS=str(checkout / "dist"))  # until serverbench is on PyPI
    shell(add, project, env)
    pyproject = (project / "pyproject.toml").read_text()
    assert re.search(r'\[dependency-groups\]\ndev = \[\n(    "(gunicorn|serverbench|waitress)>=.*",\n){3}\]', pyproject)
    assert 'name = "serverbench"' in (project / "uv.lock").read_text()
    shell(sync, project, env)
    out = shell(cost, project, {**env, "PYTEST_ADDOPTS": "--perf-variants waitress-t4"})
    assert re.search(r"\b2 passed\b", out) and "failed" not in out, out[-3000:]
    assert re.search(r"waitress-t4/todo\.app/list/n\d+ +[\d,]+ ", out), out[-3000:]


def test_examples_readme_block_runs_as_written(checkout):
    """examples/README.md's block in a checkout: a venv, `pip wheel --no-deps -w dist ../..`, `pip install
    --find-links dist '.[perf]'`, `pytest -m perf` and `pytest -m cost --perf-save-baseline` (one server and short
    trials, through PYTEST_ADDOPTS): every endpoint measured and its counted baseline stored."""
    [block] = ["\n".join(lines) for lines in sh_blocks(ROOT / "examples" / "README.md")]
    assert block.startswith("cd examples/django-notes\n"), block
    env = user_env(PYTEST_ADDOPTS=f"{SHORT} --perf-variants waitress-t4")
    out = shell(block, checkout, env, timeout=1800)
    example = checkout / "examples" / "django-notes"
    assert wheels(example / "dist") == [WHEEL]
    assert len(re.findall(r"\b3 passed\b", out)) == 2 and "failed" not in out, out[-3000:]
    [baseline] = (example / "baselines" / "cost").glob("*.json")
    cells = sorted(json.loads(baseline.read_text())["entries"])
    assert [c.split("/")[:3] for c in cells] == [
        ["waitress-t4", "notes_site.wsgi", endpoint] for endpoint in ("create", "list", "page")
    ], cells
