"""Making a user's app able to serve: its ``perf_app_setup`` command, run once in a tree before its servers start.

Much of what an app needs lives outside git: a SQLite file its init command makes, migrations, seeded rows.
A fresh git worktree (the gate's base arm) has none of it, and its server answers 500.  The project names a
shell command (``flask --app todo.app init-db``, ``python manage.py migrate``), as tox's ``commands_pre`` or
asv's build command; it runs here with ``sh -c`` in the app's folder of that tree, with that folder first on
``PYTHONPATH``, the servers' environment (``perf_app_env``, the backends' URLs) and the arm's interpreter's
folder first on ``PATH`` (so ``python`` and the project's console scripts are that venv's).  A command that
fails stops the run with its output's end: nothing is measured on an app that could not be set up.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from ...errors import SetupError

SETUP_TIMEOUT_S = 600.0  # migrations of a real project take minutes, not hours


def setup_env(directory: Path, env: Mapping[str, str], python: str) -> dict[str, str]:
    """The command's environment: ours, the servers' (``env``), the app's folder on PYTHONPATH, ``python``'s
    folder first on PATH."""
    return {
        **os.environ,
        **dict(env),
        "PYTHONPATH": os.pathsep.join(p for p in (str(directory), os.environ.get("PYTHONPATH", "")) if p),
        "PATH": os.pathsep.join(p for p in (os.path.dirname(python), os.environ.get("PATH", "")) if p),
    }


def set_up_app(command: str, directory: Path, env: Mapping[str, str], python: str = sys.executable) -> float:
    """Run ``command`` (perf_app_setup) in ``directory``; its wall time in seconds, or SetupError with its output."""
    started = time.monotonic()
    try:
        run = subprocess.run(
            ["/bin/sh", "-c", command],
            cwd=directory,
            env=setup_env(directory, env, python),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SETUP_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise SetupError(
            f"perf_app_setup = {command!r} did not finish within {SETUP_TIMEOUT_S:g} s in {directory}"
        ) from None
    if run.returncode != 0:
        output = (run.stderr.strip() + "\n" + run.stdout.strip()).strip()
        tail = "\n".join("    " + line for line in output.splitlines()[-12:]) or "    (no output)"
        raise SetupError(
            f"perf_app_setup = {command!r} failed (exit {run.returncode}) in {directory}:\n{tail}\n"
            "fix the command: it runs with sh -c in perf_app_dir, with perf_app_env set and the arm's "
            "interpreter's folder first on PATH"
        )
    return time.monotonic() - started
