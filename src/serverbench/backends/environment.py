"""Where the backends' programs come from: serverbench's own environment, whatever interpreter serves the app.

A perf session may run under an interpreter that cannot install a backend (Debian's PyPy is Python 3.9;
SecantusDB's ``secantusd-py`` needs >= 3.10), so a backend's program is looked up, in this order, next to
``SERVERBENCH_SERVICES_PYTHON`` (the python of serverbench's own environment; ``./run`` exports it before
``./run tox``), next to the interpreter running this session (``sys.executable``), then on PATH.  A
console script found there runs under the interpreter of its own environment, not the session's.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ..errors import MissingBinaryError

SERVICES_PYTHON = "SERVERBENCH_SERVICES_PYTHON"


def services_python() -> str | None:
    """The python of serverbench's own environment, when ``SERVERBENCH_SERVICES_PYTHON`` names one."""
    value = os.environ.get(SERVICES_PYTHON, "").strip()
    return value or None


def search_dirs() -> list[Path]:
    """The bin folders searched before PATH: the services environment's, then this interpreter's.
    Not resolved: a venv's python is a symlink to the base interpreter, whose folder lacks the venv's scripts."""
    pythons = [p for p in (services_python(), sys.executable) if p]
    return list(dict.fromkeys(Path(os.path.abspath(p)).parent for p in pythons))


def find_program(name: str) -> str | None:
    """The full path of a backend's program, or None: the services environment, this interpreter's, PATH."""
    for folder in search_dirs():
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


def where_looked(name: str) -> str:
    """The places searched for ``name``, for an error message."""
    places = [str(folder / name) for folder in search_dirs()]
    setting = services_python()
    env_note = f"{SERVICES_PYTHON}={setting}" if setting is not None else f"{SERVICES_PYTHON} is not set"
    return f"looked at {', '.join(places)} and PATH ({env_note})"


def require_program(name: str, package: str) -> str:
    """The full path of a backend's program, or a MissingBinaryError naming the places searched and the package."""
    found = find_program(name)
    if found is None:
        raise MissingBinaryError(
            name,
            fix=f"not found ({where_looked(name)}). Install it: `apt-get install {package}` "
            "(Debian/Ubuntu, as root), or run the README's perf command, which installs it.",
        )
    return found
