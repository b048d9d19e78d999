"""Putting a user's app back into one state before each cell: its ``perf_app_reset`` function.

A writing endpoint (a POST that inserts a row) grows the data every later cell reads: one run added
about 2,470 rows and a listing endpoint's later cells measured a page a hundred times bigger.  The
project names a function (``notes_site.perf:reset``) that empties and re-seeds its state; it runs here
in a child interpreter, like the servers: from ``perf_app_dir``, with that folder first on
``PYTHONPATH`` and the servers' environment (``perf_app_env``, the backends' URLs), so the reset
sees the database the servers see.  A reset that fails stops the cell with its traceback's end.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from ...catalog.userapp import AppTarget
from ...errors import ResetError

RESET_TIMEOUT_S = 120.0
CALL = "import importlib, sys; getattr(importlib.import_module(sys.argv[1]), sys.argv[2])()"


def reset_app(target: AppTarget, directory: Path, env: Mapping[str, str], python: str = sys.executable) -> None:
    """Call ``target`` (``module:function``) in a child interpreter; ResetError with its output if it fails."""
    child_env = {
        **os.environ,
        **dict(env),
        "PYTHONPATH": os.pathsep.join(p for p in (str(directory), os.environ.get("PYTHONPATH", "")) if p),
    }
    try:
        run = subprocess.run(
            [python, "-c", CALL, target.module, target.attribute],
            cwd=directory,
            env=child_env,
            capture_output=True,
            text=True,
            timeout=RESET_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise ResetError(f"perf_app_reset = {target.text} did not return within {RESET_TIMEOUT_S:g} s") from None
    # The interpreter, or the folder, is not there (a gate arm's venv not built, a perf_app_dir that moved).
    except (FileNotFoundError, NotADirectoryError, PermissionError) as e:
        raise ResetError(
            f"perf_app_reset = {target.text} could not start: {e.strerror}: {e.filename or python}; "
            f"the interpreter ({python}) and the app's folder ({directory}) must exist (perf_app_dir, the gate's arm venv)"
        ) from None
    if run.returncode != 0:
        tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-8:])
        raise ResetError(
            f"perf_app_reset = {target.text} failed (exit {run.returncode}) in {directory}:\n{tail}\n"
            "fix the function (it must run with perf_app_env set, from perf_app_dir)"
        )
