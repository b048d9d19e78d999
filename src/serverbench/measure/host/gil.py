"""The GIL of a free-threaded server during a window: what the probe in each of its processes wrote.

A free-threaded build (``Py_GIL_DISABLED``) runs without the GIL until something turns it back on: importing an
extension module that has not declared it can run without it (CPython warns, naming the module), ``PYTHON_GIL=1``.
A server started on such a build gets the probe (``serverbench/serverside/gilprobe``, first on its PYTHONPATH) and a
folder (``SERVERBENCH_GIL_DIR``) where each of its processes keeps ``<pid>``: whether its GIL is on and the modules
that turned it on.  Read at the window's end, the tree's state is the record's ``gil``; judge.checks flags a window
that ran with the GIL back on (``gil-enabled``), naming the modules.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import serverbench.serverside

VAR = "SERVERBENCH_GIL_DIR"
PROBE_DIR = Path(serverbench.serverside.__file__).resolve().parent / "gilprobe"


def probe_env(pythonpath: str) -> dict[str, str]:
    """The variables that put the probe in a server: its folder first on PYTHONPATH, a fresh folder to write to (the
    server's: removed when it stops)."""
    folder = tempfile.mkdtemp(prefix="serverbench-gil-")
    return {VAR: folder, "PYTHONPATH": os.pathsep.join(p for p in (str(PROBE_DIR), pythonpath) if p)}


def read(folder: str | Path | None) -> dict[str, Any] | None:
    """The tree's GIL: on if any process has it on, the modules that turned it on (first seen first), and how many
    processes wrote; None without a folder or when none wrote (the probe did not run)."""
    if folder is None:
        return None
    states = []
    for path in sorted(Path(folder).glob("[0-9]*")):
        if path.suffix:  # a file being written (<pid>.tmp)
            continue
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(state, dict):
            states.append(state)
    if not states:
        return None
    modules = [m for s in states for m in s.get("enabled_by") or ()]
    return {
        "enabled": any(bool(s.get("enabled")) for s in states),
        "enabled_by": list(dict.fromkeys(str(m) for m in modules)),
        "processes": len(states),
        **({"gil_env": states[0]["gil_env"]} if states[0].get("gil_env") is not None else {}),
    }
