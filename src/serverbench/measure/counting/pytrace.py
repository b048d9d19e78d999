"""The Python-level profile of a cell: bytecodes per Python function over the same window.

Valgrind sees C functions; Python code shows there only as the interpreter's eval loop.  This
pass runs the server without valgrind, with the tracer of ``tracer/sitecustomize.py`` loaded
(first on PYTHONPATH), and the same verify, warm-up and window as the count (measure/counting/cost.py).
Bytecode counts are deterministic like instruction counts, but they are a different unit: the
attribution ranks Python functions by their share of the cell's bytecodes.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from ...processes.executors import free_port
from ...records.cost import FunctionCost
from ..serving.servers import start_variant
from .callgrind import CountingError
from .cost import CostPlan, Window, run_window
from .sequential import SequentialClient

TRACER_DIR = Path(__file__).resolve().parent / "tracer"
PROFILE_WAIT_S = 5.0


def profile_python(plan: CostPlan) -> tuple[FunctionCost, ...]:
    """Bytecodes per request of every Python function the window ran, with module, package and role."""
    folder = Path(tempfile.mkdtemp(prefix="serverbench-pytrace-"))
    port = plan.port if plan.port is not None else free_port()
    env = {
        "PYTHONHASHSEED": "0",
        "SERVERBENCH_TRACE_DIR": str(folder),
        **plan.env,
        "PYTHONPATH": os.pathsep.join([str(TRACER_DIR), str(plan.apps_dir)]),
    }
    server = start_variant(
        replace(plan.variant),
        apps_dir=plan.apps_dir,
        app=plan.app,
        port=port,
        env=env,
        timeout=120.0,
        python=plan.python,
    )
    on_file = folder / "on"
    try:
        run_window(
            plan,
            server.process.pid,
            port,
            Window(on=lambda pids: on_file.touch(), end=lambda pids, client: _switch_off(on_file, client)),
        )
        rows, modules = _read(folder)
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    owners = plan.owners
    out = []
    for (filename, function), count in rows.most_common():
        module = modules.get(filename) or _module_of_path(filename)
        package, role = owners.of_module(module)
        out.append(FunctionCost("python", function, module, package, role, count / plan.requests))
    return tuple(out)


def _switch_off(on_file: Path, client: SequentialClient) -> None:
    """Remove the switch and send requests until the serving process notices (it looks every 256 calls)
    and writes its counts: at most those 256 calls are counted past the window."""
    on_file.unlink()
    deadline = time.monotonic() + PROFILE_WAIT_S
    while not glob.glob(str(on_file.parent / "profile.*.json")):
        if time.monotonic() > deadline:
            raise CountingError(
                f"no Python profile was written within {PROFILE_WAIT_S:g} s: the requests ran in "
                "threads the tracer cannot see (a C or Rust runtime's own threads)"
            )
        client.send(1)
        time.sleep(0.02)


def _read(folder: Path) -> tuple[Counter, dict[str, str]]:
    rows: Counter = Counter()
    modules: dict[str, str] = {}
    for path in glob.glob(str(folder / "profile.*.json")):
        with open(path) as f:
            data = json.load(f)
        modules.update(data["modules"])
        for filename, function, _line, count in data["functions"]:
            rows[(filename, function)] += count
    return rows, modules


def _module_of_path(filename: str) -> str:
    """A module name for a file no module claims: its name under site-packages or the stdlib, else the stem."""
    path = filename.replace("\\", "/")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            return path.split(marker, 1)[1].removesuffix(".py").replace("/__init__", "").replace("/", ".")
    if path.startswith("<frozen "):
        return path[len("<frozen ") : -1]
    return Path(path).stem
