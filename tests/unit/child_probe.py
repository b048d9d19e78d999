"""Run a piece of Python in a child interpreter (locust's modules patch the process that imports them) and read back
the JSON it prints on its ``PROBE`` line."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def child_probe(code: str, *args: str) -> dict:
    """``code`` run as ``python -c code args...`` without the LOCUST_* settings of this environment: the object its
    ``PROBE {json}`` line prints.  Fails with the child's stderr tail when it exits non-zero or prints no such line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCUST_")}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.startswith("PROBE ")]
    assert done.returncode == 0 and lines, done.stderr[-2000:]
    return json.loads(lines[0][len("PROBE ") :])
