"""The tox perf envs (tox.ini) can start pytest, and the documented CPython-vs-PyPy command is the one CI runs."""

from __future__ import annotations

import importlib.util
import json
import sys
from importlib import metadata
from pathlib import Path

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
    assert f"```sh\n{command}\n```" in (ROOT / "docs" / "cpython-vs-pypy.md").read_text()


def test_the_page_shows_the_recorded_run():
    """docs/cpython-vs-pypy.md's block is benchmarks/tox_pypy.py's rendering of its record: every env built from
    nothing and the current command run, all passed."""
    bench = _benchmark()
    record = json.loads(bench.OUT.read_text())
    assert record["command"] == bench.COMMAND
    assert set(record["build"]) == set(bench.ENVS)
    assert all(r["exit"] == 0 for r in [*record["build"].values(), record["run"]])
    page = bench.DOC.read_text()
    block = page[page.index(bench.DOC_START) + len(bench.DOC_START) : page.index(bench.DOC_END)]
    assert block == bench.render(record), "regenerate with `.venv/bin/python benchmarks/tox_pypy.py render`"
