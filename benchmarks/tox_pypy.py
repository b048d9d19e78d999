"""The documented CPython-vs-PyPy tox command on one small cell: each env built from nothing, then the command timed.

    flock -s /tmp/serverbench-quiet.lock .venv/bin/python benchmarks/tox_pypy.py build perf-py311
    flock -s /tmp/serverbench-quiet.lock .venv/bin/python benchmarks/tox_pypy.py build perf-pypy3
    flock -s /tmp/serverbench-quiet.lock .venv/bin/python benchmarks/tox_pypy.py build compare
    flock /tmp/serverbench-load.lock flock -s /tmp/serverbench-quiet.lock .venv/bin/python benchmarks/tox_pypy.py run
    .venv/bin/python benchmarks/tox_pypy.py render

``build ENV`` removes .tox/ENV and builds it again (``./run tox -e ENV --notest``: no load, so no load lock; the
first `./run tox` also installs Debian's pypy3 and pypy3-dev; uv's cache of downloaded wheels is kept).  ``run``
runs COMMAND, the page's command, with the envs built.  Both print the output as it comes and then the wall
time, and record the time, the exit status and the output's last lines in benchmarks/results/tox-pypy.json.
``render`` writes the command, the times and the run's last lines (tox's summary names each env's time) into
docs/lab/interpreters.md between its markers; tests/unit/repo/test_perf_envs.py checks the page shows what the
record renders, and that docs/interpreters.md gives the command the CI job runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENVS = ("perf-py311", "perf-pypy3", "compare")
# One small cell, Redis-backed: the PyPy env reaches a backend that serverbench's own environment starts.
COMMAND = f"./run tox -e {','.join(ENVS)} -- --perf-variants gunicorn-sync-w2 --perf-workloads redis"
OUT = ROOT / "benchmarks/results/tox-pypy.json"
DOC = ROOT / "docs/lab/interpreters.md"  # the lab page; docs/interpreters.md gives the command and links it
DOC_START = "<!-- the tox command, run (benchmarks/tox_pypy.py render) -->\n"
DOC_END = "<!-- end of the tox command's run -->"
TAIL = 20  # the output's last lines kept: compare's table and tox's summary
TABLE = ROOT / ".tox/interpreters.md"  # compare's --markdown table (tox.ini)


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def timed(command: str) -> dict:
    """``command`` run once from the repository's root: its wall time, exit status and last lines, echoed as they come."""
    started = time.monotonic()
    proc = subprocess.Popen(
        shlex.split(command), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    )
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        lines.append(line.rstrip("\n"))
    status = proc.wait()
    seconds = time.monotonic() - started
    print(f"{command}: exit {status} in {seconds:.0f} s")
    return {
        "command": command,
        "seconds": round(seconds, 1),
        "exit": status,
        "date": datetime.date.today().isoformat(),
        "machine": f"{cpu_model()}, {os.cpu_count()} cores",
        "tail": lines[-TAIL:],
    }


def render(record: dict) -> str:
    """The page's block: the command, each env's build time, the run's time, tox's summary (each env's time) and
    compare's table, all from the record."""
    run = record["run"]
    rows = "".join(
        f"| `{b['command']}` (from nothing) | {b['seconds']:,.0f} s | {b['exit']} | {b['date']} |\n"
        for b in (record["build"][env] for env in ENVS if env in record["build"])
    )
    rows += f"| the command above, its envs built | {run['seconds']:,.0f} s | {run['exit']} | {run['date']} |\n"
    summary = [line.strip() for line in run["tail"] if re.match(rf"\s+({'|'.join(ENVS)}): |\s+congratulations", line)]
    return (
        f"```sh\n{record['command']}\n```\n\n"
        f"Run by `benchmarks/tox_pypy.py` on {run['machine']} (record: `benchmarks/results/tox-pypy.json`):\n\n"
        "| command | wall time | exit | date |\n|---|---:|---:|---|\n"
        f"{rows}\n"
        "tox's summary of the run:\n\n```\n" + "\n".join(summary) + "\n```\n\n"
        "compare's table: one 5 s window a cell, to show the command works, not a comparison; a flag after a "
        "figure names what disturbed it ([checks](../checks.md)). The comparison is measured below.\n\n"
        + run["compare"]
    )


def write_doc(block: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    head, rest = doc.split(DOC_START, 1)
    DOC.write_text(head + DOC_START + block + rest[rest.index(DOC_END) :], encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("build", "run", "render"))
    parser.add_argument("env", nargs="?", choices=ENVS, help="build: the tox env to build from nothing")
    args = parser.parse_args()
    if args.part == "render":
        write_doc(render(json.loads(OUT.read_text())))
        return 0
    if args.part == "build" and args.env is None:
        parser.error(f"build needs the env to build: one of {', '.join(ENVS)}")
    record = json.loads(OUT.read_text()) if OUT.exists() else {}
    if record.get("command") != COMMAND:  # times of another command are not this one's
        record = {"command": COMMAND, "build": {}}
    if args.part == "build":
        shutil.rmtree(ROOT / ".tox" / args.env, ignore_errors=True)
        measured = record["build"][args.env] = timed(f"./run tox -e {args.env} --notest")
    else:
        measured = record["run"] = timed(COMMAND)
        measured["compare"] = TABLE.read_text() if measured["exit"] == 0 else ""
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    return measured["exit"]


if __name__ == "__main__":
    sys.exit(main())
