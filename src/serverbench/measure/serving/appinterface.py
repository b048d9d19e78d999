"""Which interface a user's app offers (WSGI, ASGI, aiohttp, tornado), found by importing it.

The import runs in a child interpreter with the app's folder first on ``sys.path``, that folder
as cwd and ``perf_app_env`` set (Django needs its settings module before its app imports), so
whatever the app does at import time stays out of the pytest process.

    python -m serverbench.measure.serving.appinterface mysite.wsgi:application
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import ConfigError

MARKER = "SERVERBENCH-INTERFACE "


def _positional(obj: Any) -> int | None:
    """How many required positional parameters calling ``obj`` takes (None: no signature to read)."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in signature.parameters.values() if p.kind in kinds and p.default is p.empty)


def classify(obj: Any) -> str | None:
    """The interface of an app object (or of what its factory returned); None when none fits.

    An awaitable is what an ``async def`` factory returned: only aiohttp takes those.
    """
    web = sys.modules.get("aiohttp.web")
    if (web is not None and isinstance(obj, web.Application)) or inspect.isawaitable(obj):
        return "aiohttp"
    tornado_web = sys.modules.get("tornado.web")
    if tornado_web is not None and isinstance(obj, tornado_web.Application):
        return "tornado"
    if not callable(obj) or inspect.isclass(obj):
        return None
    if inspect.iscoroutinefunction(obj) or inspect.iscoroutinefunction(getattr(obj, "__call__", None)):  # noqa: B004 (an instance's async __call__)
        return "asgi"
    return {2: "wsgi", 3: "asgi"}.get(_positional(obj))


def detect(target: str, directory: Path, env: Mapping[str, str] = (), timeout: float = 60.0) -> str:
    """Import ``target`` in a child interpreter and return its interface; ConfigError says why not."""
    child_env = {
        **os.environ,
        **dict(env),
        "PYTHONPATH": os.pathsep.join(p for p in (str(directory), os.environ.get("PYTHONPATH", "")) if p),
    }
    try:
        run = subprocess.run(
            [sys.executable, "-m", __name__, target],
            cwd=directory,
            env=child_env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"perf_app = {target}: importing it took over {timeout:g} s; declare its interface "
            "with perf_app_interface (wsgi, asgi, aiohttp or tornado) to skip the import"
        ) from None
    except OSError as exc:
        raise ConfigError(f"perf_app = {target}: cannot import it from {directory}: {exc}") from None
    lines = [line for line in run.stdout.splitlines() if line.startswith(MARKER)]
    if len(lines) != 1:
        tail = "\n    ".join((run.stderr or run.stdout).strip().splitlines()[-15:]) or "(no output)"
        raise ConfigError(
            f"perf_app = {target}: importing it from {directory} failed (exit code {run.returncode}):"
            f"\n    {tail}\n  Fix the import path (perf_app), perf_app_dir (the folder it is imported "
            "from) or perf_app_env (e.g. DJANGO_SETTINGS_MODULE)."
        )
    found = json.loads(lines[0][len(MARKER) :])
    if found["interface"] is None:
        raise ConfigError(
            f"perf_app = {target}: found {found['type']}, which is not a WSGI app (a callable of "
            "environ and start_response), an ASGI app (async, of scope, receive and send), an "
            "aiohttp Application or a tornado Application; if it is one of them, declare it with "
            "perf_app_interface = wsgi, asgi, aiohttp or tornado"
        )
    return found["interface"]


def main(target: str) -> None:
    """In the child: import the target and print its interface as one marked JSON line."""
    from ...serverside.appentry import load

    sys.path.insert(0, os.getcwd())
    try:
        obj = load(target)
    except BaseException:  # noqa: B036 - any failure of the user's import is reported with its traceback
        traceback.print_exc()
        sys.exit(1)
    interface = classify(obj)
    if inspect.iscoroutine(obj):
        obj.close()  # an async factory's result: never awaited here (it may connect to its backends)
    print(MARKER + json.dumps({"interface": interface, "type": f"{type(obj).__module__}.{type(obj).__qualname__}"}))


if __name__ == "__main__":
    main(sys.argv[1])
