"""The example projects (examples/) used as a user would: serverbench's wheel and the example in a fresh
virtual environment, then the example's own `pytest -m perf`; and the README's "Use it in your project"
section is the django-notes example, file for file and command for command.

Each run installs the example's packages with uv (`uv pip install`, the README's pip arguments; its cache
makes reruns quicker), so this test needs PyPI.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from serverbench.measure.trees.lockenv import uv_binary

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
README_SECTION = "Use it in your project"
README_EXAMPLE = "django-notes"
# Short trials: this checks that every cell runs, is verified and is recorded, not its numbers.
QUICK = ("--perf-duration", "1", "--perf-warmup", "0", "--perf-connections", "8")


def toml(text: str) -> dict:
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    return tomllib.loads(text)


def readme_blocks() -> list[tuple[str, str]]:
    """The fenced code blocks of the README's "Use it in your project" section: (language, text)."""
    tokens = MarkdownIt().parse((ROOT / "README.md").read_text())
    blocks, inside = [], False
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            inside = tokens[i + 1].content == README_SECTION
        elif inside and token.type == "fence":
            blocks.append((token.info.strip(), token.content))
    assert blocks, f"README.md has no code block under a '## {README_SECTION}' heading"
    return blocks


def readme_commands() -> list[list[str]]:
    """The shell commands of the README section, each split into words."""
    return [
        shlex.split(line, comments=True)
        for lang, text in readme_blocks()
        if lang == "sh"
        for line in text.splitlines()
        if shlex.split(line, comments=True)
    ]


def ini_options(example: Path) -> dict:
    return toml((example / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]


def perf_extra(example: Path) -> list[str]:
    """The names of the packages of the example's ``perf`` extra (serverbench and the servers)."""
    extra = toml((example / "pyproject.toml").read_text())["project"]["optional-dependencies"]["perf"]
    return [re.match(r"[A-Za-z0-9._-]+", requirement).group(0) for requirement in extra]


def test_readme_section_is_the_django_example():
    """The README's install line, ini table, test file and command are the django-notes example's."""
    example = EXAMPLES / README_EXAMPLE
    blocks = readme_blocks()
    tables = [toml_text for lang, toml_text in blocks if lang == "toml"]
    assert len(tables) == 1, f"expected one toml block in the README section, found {len(tables)}"
    assert toml(tables[0])["tool"]["pytest"]["ini_options"] == ini_options(example), (
        f"the README's ini table differs from examples/{README_EXAMPLE}/pyproject.toml's"
    )
    assert tables[0] in (example / "pyproject.toml").read_text(), "the README's ini table is not verbatim"
    python = [text for lang, text in blocks if lang == "python"]
    assert python == [(example / "tests" / "test_perf.py").read_text()], (
        f"the README's test file differs from examples/{README_EXAMPLE}/tests/test_perf.py"
    )
    assert readme_commands() == [["pip", "install", *perf_extra(example)], ["pytest", "-m", "perf"]]


def uv_or_skip() -> str:
    """The uv ./run installs (or one on PATH): an environment uv made, as ./run's .venv, has no pip."""
    found = uv_binary(ROOT)
    if found is None:
        pytest.skip(f"no uv on PATH, beside {sys.executable} nor in .tools/bin/: run the tests through ./run tests")
    return found


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory) -> Path:
    """serverbench's wheel, built from a copy of this checkout (a build in place would leave build/ here)."""
    source = tmp_path_factory.mktemp("serverbench-source")
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copy(ROOT / "README.md", source)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    wheels = tmp_path_factory.mktemp("wheelhouse")
    run([uv_or_skip(), "build", "--wheel", "-q", "--out-dir", str(wheels), str(source)])
    return wheels


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a command to completion; on failure, fail with its output's tail."""
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    if done.returncode != 0:
        pytest.fail(f"{shlex.join(argv)} exited {done.returncode}:\n{done.stdout[-4000:]}")
    return done


def user_environment(venv_dir: Path) -> dict[str, str]:
    """This process's environment as a user's shell would have it: the venv active, no pytest settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON", "VIRTUAL_ENV", "COV_CORE"))}
    env["PATH"] = f"{venv_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv_dir)
    return env


def install_commands(name: str, project: Path) -> list[list[str]]:
    """How the example's perf packages are installed: the README's commands for the README's example."""
    if name == README_EXAMPLE:
        return [argv for argv in readme_commands() if argv[0] == "pip"]
    return [["pip", "install", f"{project}[perf]"]]


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir() if (p / "pyproject.toml").is_file()))
def test_example_runs_its_perf_tests(name, wheelhouse, tmp_path):
    """The example, installed with serverbench's wheel in a fresh venv, records every endpoint under each variant."""
    project = shutil.copytree(EXAMPLES / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    venv_dir = tmp_path / "venv"
    # uv's venv and `uv pip install` take the README's pip arguments unchanged, in seconds (pip's venv and installs
    # took 105 s for flask-todo here, most of it numpy and scipy); benchmarks/release_check.sh times pip's route.
    uv = uv_or_skip()
    run([uv, "venv", "-q", "--python", sys.executable, str(venv_dir)])
    python = str(venv_dir / "bin" / "python")
    env = user_environment(venv_dir)
    # serverbench is not on PyPI: its wheel comes from --find-links, as a user who built it would add.
    pip = [uv, "pip", "install", "-q", "--python", python, "--find-links", str(wheelhouse)]
    run([*pip, str(project)], env=env)  # the app and its own dependencies, as the user has them
    for argv in install_commands(name, project):
        run([*pip, *argv[2:]], cwd=project, env=env)

    records = tmp_path / "records.json"
    pytest_argv = readme_commands()[-1]
    assert pytest_argv[0] == "pytest", f"the README section's last command is not pytest: {pytest_argv}"
    done = run(
        [python, "-m", *pytest_argv, "-p", "no:cacheprovider", *QUICK, "--perf-json", str(records)],
        cwd=project,
        env=env,
        timeout=600,
    )
    (tmp_path / "pytest-output.txt").write_text(done.stdout)

    ini = ini_options(project)
    variants = ini["perf_variants"].split(",")
    endpoints = [line.split()[0] for line in ini["perf_endpoints"]]
    data = json.loads(records.read_text())
    assert data["failures"] == [], data["failures"]
    cells = {(r["variant"], r["workload"]): r for r in data["results"]}
    assert sorted(cells) == sorted((v, e) for v in variants for e in endpoints), done.stdout[-3000:]
    for (variant, endpoint), record in cells.items():
        assert record["app"] == ini["perf_app"].split(":")[0], record["app"]
        assert record["requests"] > 0, f"{variant}/{endpoint}: no request completed"
        assert not any(record["errors"].values()), f"{variant}/{endpoint}: errors {record['errors']}"
