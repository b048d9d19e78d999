"""The GIL probe, inside each server process of a free-threaded build (measure.host.gil reads what it writes).

Put on the server's PYTHONPATH (first) only when its interpreter is free-threaded, with ``SERVERBENCH_GIL_DIR``
set: Python imports ``sitecustomize`` at start-up in every process, so each worker a server forks or spawns has
it too.  It writes ``<dir>/<pid>`` (JSON: whether the GIL is on, and the modules that turned it on) at start, when
CPython warns that importing a module turned the GIL on (the module has not declared it can run without it:
``The global interpreter lock (GIL) has been enabled to load module 'X'``), and when a check every
CHECK_S seconds sees the state change (``PYTHON_GIL=1``, an extension that enables it another way).  Then it
imports the ``sitecustomize`` it stands in front of, if there is one.

Standard library only, Python 3.9 syntax: it runs in the server's interpreter, before anything of serverbench.
"""

import json
import os
import re
import sys
import threading
import warnings

CHECK_S = 0.5
ENABLED = re.compile(r"global interpreter lock \(GIL\) has been enabled to load module '([^']+)'")


def _write(folder, state):
    path = os.path.join(folder, str(os.getpid()))
    with open(path + ".tmp", "w") as f:
        json.dump(state, f)
    os.replace(path + ".tmp", path)


def _start(folder):
    probe = getattr(sys, "_is_gil_enabled", None)
    state = {"enabled": bool(probe()) if probe else True, "enabled_by": [], "gil_env": os.environ.get("PYTHON_GIL")}
    lock = threading.Lock()

    def update(module=None):
        with lock:
            if os.getpid() != state.get("pid"):  # a forked worker: its own file, its parent's modules inherited
                state["pid"] = os.getpid()
            if module and module not in state["enabled_by"]:
                state["enabled_by"].append(module)
            state["enabled"] = bool(probe()) if probe else True
            try:
                _write(folder, state)
            except OSError:
                pass

    shown = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        found = ENABLED.search(str(message))
        if found:
            update(found.group(1))
        return shown(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning
    warnings.filterwarnings("always", message=".*global interpreter lock", category=RuntimeWarning)

    def watch():
        while True:
            before = state["enabled"], os.getpid()
            threading.Event().wait(CHECK_S)
            if ((bool(probe()) if probe else True), os.getpid()) != before:
                update()

    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=lambda: (update(), threading.Thread(target=watch, daemon=True).start()))
    update()
    threading.Thread(target=watch, name="serverbench-gil-probe", daemon=True).start()


def _chain():
    """Import the sitecustomize this one shadows (a distribution's), as Python would have without the probe."""
    here = os.path.dirname(os.path.abspath(__file__))
    del sys.modules[__name__]
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    saved, sys.path[:] = sys.path[:], rest
    try:
        import sitecustomize  # noqa: F401
    except ImportError:
        pass
    finally:
        sys.path[:] = saved


if os.environ.get("SERVERBENCH_GIL_DIR"):
    _start(os.environ["SERVERBENCH_GIL_DIR"])
_chain()
