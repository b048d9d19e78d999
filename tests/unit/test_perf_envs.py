"""The tox perf envs (tox.ini) can start pytest: what pyproject.toml makes pytest import is in them."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


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
