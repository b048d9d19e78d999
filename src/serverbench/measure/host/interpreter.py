"""Which interpreter runs: implementation, version, build and, for CPython, the GIL's state.

A record names the interpreter that ran the server (``Result.python``), and the machine id the
interpreter's minor version (and ``t`` for a free-threaded build, whose figures are not a GIL build's).
The same few lines describe this process (:func:`describe`) and another interpreter, run once
(:func:`describe_of`: a gate arm's, which serves from another environment).

``free_threaded`` is the build (``sysconfig``'s ``Py_GIL_DISABLED``, CPython 3.13 and later);
``gil_enabled`` is the state at run time (``sys._is_gil_enabled()`` where it exists): a free-threaded
build turns the GIL back on when it imports an extension module that has not declared it can run
without it (httptools 0.7.1 does), or when started with ``PYTHON_GIL=1`` / ``-X gil=1``.  A build
without the function always holds the GIL (True); PyPy has no such state (None).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from typing import Any

from ...errors import ConfigError

# Run by this process (describe) and by another interpreter (describe_of): Python 3.6-compatible, no imports of ours.
PROBE = """
import json, platform, sys, sysconfig
impl = platform.python_implementation().lower()
free = sysconfig.get_config_var("Py_GIL_DISABLED") == 1
probe = getattr(sys, "_is_gil_enabled", None)
gil = probe() if probe is not None else (True if impl == "cpython" else None)
build = platform.python_build()
print(json.dumps({
    "implementation": impl,
    "version": platform.python_version(),
    "executable": sys.executable,
    "build": "%s, %s (%s)" % (build[0], build[1], platform.python_compiler()),
    "free_threaded": free,
    "gil_enabled": gil,
}))
"""

DESCRIBE_TIMEOUT_S = 30.0


def describe() -> dict[str, Any]:
    """This interpreter (the perf suite's servers run on it), read once per process."""
    return json.loads(_described())


@functools.cache
def _described() -> str:
    out: list[str] = []
    exec(PROBE, {"print": out.append})  # the same lines another interpreter runs; what they print is collected
    return out[0]


def describe_of(python: str) -> dict[str, Any]:
    """The interpreter at ``python``, run once; one that cannot run the probe is a ConfigError naming the fix."""
    if python == sys.executable:
        return describe()
    try:
        done = subprocess.run(
            [python, "-I", "-c", PROBE], capture_output=True, text=True, timeout=DESCRIBE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(
            f"{python} is not a Python interpreter that runs here ({exc}): "
            "give a venv's bin/python, or an interpreter version such as 3.13"
        ) from None
    try:
        info = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None
    except (ValueError, IndexError):
        info = None
    if not isinstance(info, dict):
        said = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise ConfigError(
            f"{python} is not a Python interpreter that runs here (exit {done.returncode}: {said[0]}): "
            "give a venv's bin/python, or an interpreter version such as 3.13"
        )
    return info


@functools.lru_cache(maxsize=64)
def free_threaded(python: str) -> bool:
    """Whether ``python`` is a free-threaded build (asked once per interpreter; one that cannot answer: False, its
    start fails with its own error)."""
    try:
        return bool(describe_of(python).get("free_threaded"))
    except ConfigError:
        return False
