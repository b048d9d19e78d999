"""The tox perf envs (tox.ini) can start pytest, and the documented CPython-vs-PyPy command is the one CI runs."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[3]


def _pyproject() -> dict:
    import tomllib  # the unit suite runs on CPython >= 3.11

    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_filterwarnings_name_only_categories_every_env_has():
    """pytest imports each filterwarnings category to read its line and stops before any test when it cannot: a
    category is a builtin, from the stdlib or from a package serverbench always installs (the perf envs have no
    test extra, so no pytest-benchmark)."""
    always = {Requirement(r).name.lower() for r in _pyproject()["project"]["dependencies"] if "; " not in r}
    modules = {m for m, dists in metadata.packages_distributions().items() if {d.lower() for d in dists} & always}
    for entry in _pyproject()["tool"]["pytest"]["ini_options"]["filterwarnings"]:
        fields = entry.split(":")
        category = fields[2].strip() if len(fields) > 2 else ""
        module = category.split(".")[0] if "." in category else None
        assert module is None or module in modules | set(sys.stdlib_module_names), (
            f"filterwarnings entry {entry!r} names {category}, whose module {module} the tox perf envs do not "
            f"install ({', '.join(sorted(always))} and the stdlib are everywhere): match the warning by its message"
        )


def _benchmark():
    spec = importlib.util.spec_from_file_location("tox_pypy", ROOT / "benchmarks" / "tox_pypy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ci_runs_the_documented_tox_command():
    """The `cpython-vs-pypy` job of tests.yml runs exactly the command benchmarks/tox_pypy.py times and the page shows."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text())
    runs = [step["run"].strip() for step in workflow["jobs"]["cpython-vs-pypy"]["steps"] if "run" in step]
    command = _benchmark().COMMAND
    assert runs == [command]
    assert f"```sh\n{command}\n```" in (ROOT / "docs" / "interpreters.md").read_text()


def test_the_page_shows_the_recorded_run():
    """docs/lab/interpreters.md's block is benchmarks/tox_pypy.py's rendering of its record: every env built from
    nothing and the current command run, all passed."""
    bench = _benchmark()
    record = json.loads(bench.OUT.read_text())
    assert record["command"] == bench.COMMAND
    assert set(record["build"]) == set(bench.ENVS)
    assert all(r["exit"] == 0 for r in [*record["build"].values(), record["run"]])
    page = bench.DOC.read_text()
    block = page[page.index(bench.DOC_START) + len(bench.DOC_START) : page.index(bench.DOC_END)]
    assert block == bench.render(record), "regenerate with `.venv/bin/python benchmarks/tox_pypy.py render`"


def _tox_forms() -> list[str]:
    """Every tox command the docs and tox.ini give, each once: the blocks (continuation lines joined) of
    interpreters.md and of its lab page, its line run outside ./run and its "more cells" example, setup.md's,
    tox.ini's comment."""
    page = (ROOT / "docs" / "interpreters.md").read_text()
    lab = (ROOT / "docs" / "lab" / "interpreters.md").read_text()
    forms = re.findall(r"^(\./run tox -e .*)$", (page + lab).replace("\\\n", ""), re.M)
    forms += re.findall(r"`(SERVERBENCH_SERVICES_PYTHON=\S+ tox -e [^`]+)`", page)
    cells = re.search(r"More\s+cells: name them,\s+e\.g\.\s+`([^`]+)`", page)
    forms.append(f"./run tox -e perf-py311,perf-pypy3,compare -- {cells.group(1)}")
    forms += re.findall(r"# tox, e\.g\. (\./run tox -e \S+)", (ROOT / "docs" / "setup.md").read_text())
    forms += re.findall(r"^#\s+(tox -e .*)$", (ROOT / "tox.ini").read_text(), re.M)
    return list(dict.fromkeys(" ".join(form.split()) for form in forms))


def test_the_tox_forms_are_found():
    """The patterns still find every form (three blocks, the line outside ./run, the cells, setup.md, tox.ini)."""
    assert len(_tox_forms()) == 7, _tox_forms()


@pytest.mark.documented
@pytest.mark.parametrize("form", _tox_forms())
def test_each_documented_tox_form_reaches_pytest_in_each_perf_env(form):
    """The form as written, but collecting only (its measured run is the cpython-vs-pypy job's one cell, or minutes
    to an hour of load) and without `compare` (it compares the runs' files): each perf env it names builds, passes
    the arguments to pytest and selects cells (PyPy: the plugin imported on Python 3.9)."""
    envs = re.search(r"-e (\S+)", form).group(1).split(",")
    perf = [env for env in envs if env != "compare"]
    command = form.replace(f"-e {','.join(envs)}", f"-e {','.join(perf)}")
    command = f"{command} --collect-only -q" if " -- " in command else f"{command} -- --collect-only -q"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST_"))}
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}:{env['PATH']}"  # `tox` outside ./run: the project's own
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
    collected = [int(n) for n in re.findall(r"^(\d+)(?:/\d+)? tests? collected", done.stdout, re.M)]
    # An env whose interpreter is not installed here is skipped by name (skip_missing_interpreters), not built.
    skipped = re.findall(r"^\s*(perf-\S+): SKIP", done.stdout, re.M)
    assert len(collected) == len(perf) - len(skipped) and all(collected), (
        f"{command}: {collected}\n{done.stdout[-3000:]}"
    )
