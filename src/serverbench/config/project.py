"""A project's pytest configuration, read without pytest: the file pytest would use, and its keys.

The A/B gate runs outside pytest (a CI step, ``serverbench gate``) but must see the project as
``pytest -m perf`` does: the same ``perf_app``, ``perf_app_env``, ``perf_app_dir``,
``perf_app_backends``, ``perf_endpoints`` and ``perf_variants``.  pytest's own search is followed:
from the folder upwards, the first of ``pytest.ini`` / ``.pytest.ini`` (always), ``pyproject.toml``
with ``[tool.pytest.ini_options]``, ``tox.ini`` with ``[pytest]``, ``setup.cfg`` with
``[tool:pytest]``.  Values stay raw (a string, or a TOML list): :func:`serverbench.config.options.resolve`
parses them as it parses pytest's.  Endpoints returned by a conftest ``pytest_perf_endpoints`` hook
are pytest's alone: the gate cannot see them.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iniconfig import IniConfig, ParseError

from ..errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the Python 3.9/3.10 backport, as pytest itself uses there
    import tomli as tomllib

# (file name, section) in pytest's order of precedence within one folder.
CANDIDATES = (
    ("pytest.ini", "pytest"),
    (".pytest.ini", "pytest"),
    ("pyproject.toml", "tool.pytest.ini_options"),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)


@dataclass(frozen=True)
class ProjectConfig:
    """The configuration file pytest uses for ``folder`` (its folder is the rootdir) and its keys."""

    path: Path
    ini: Mapping[str, Any]

    @property
    def rootdir(self) -> Path:
        return self.path.parent


def read_file(path: Path, section: str) -> dict[str, Any] | None:
    """The keys of ``section`` in one file; None when the file lacks the section (pytest.ini: always used)."""
    try:
        if path.suffix == ".toml":
            data: Any = tomllib.loads(path.read_text())
            for part in section.split("."):
                data = data.get(part) if isinstance(data, dict) else None
            return dict(data) if isinstance(data, dict) else None
        parsed = IniConfig(str(path))
    except (OSError, ValueError, ParseError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}; fix the file (pytest cannot read it either)") from None
    if section not in parsed:
        return {} if path.name in ("pytest.ini", ".pytest.ini") else None
    return {name: value for name, value in parsed[section].items()}


def find(start: Path) -> ProjectConfig:
    """The configuration pytest would use when run in ``start``; ConfigError when there is none."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        for name, section in CANDIDATES:
            path = folder / name
            if path.is_file():
                keys = read_file(path, section)
                if keys is not None:
                    return ProjectConfig(path, keys)
    raise ConfigError(
        f"no pytest configuration found in {start} or above it (pytest.ini, pyproject.toml with "
        "[tool.pytest.ini_options], tox.ini with [pytest], setup.cfg with [tool:pytest]): run the gate "
        "in your project, or pass --repo"
    )
