"""Where the tests find this repository's `results` branch (raw run files): its name here, and the docs' fetch line
(benchmarks/results/INDEX.md) for a clone that lacks it."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FETCH = ["git", "fetch", "origin", "+results:refs/remotes/origin/results"]


def results_ref() -> str | None:
    """The `results` branch (local, or the remote's after a plain clone or the fetch line), or None."""
    for ref in ("results", "origin/results"):
        found = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", ref], capture_output=True)
        if found.returncode == 0:
            return ref
    return None
