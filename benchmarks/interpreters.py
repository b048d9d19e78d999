"""Interpreters side by side (issue 61, part 5): four server models on three workloads, on each interpreter in turn.

    flock /tmp/serverbench-load.lock .venv/bin/python benchmarks/interpreters.py run      # every env, one at a time
    flock /tmp/serverbench-load.lock .venv/bin/python benchmarks/interpreters.py gate     # flask-todo, 3.11 -> 3.13
    .venv/bin/python benchmarks/interpreters.py render                                  # the page's blocks

``run`` runs the perf suite and the counted cost (``-m "perf or cost"``) of CELLS in each tox env of ENVS in turn,
never two loads at once, each into ``.tox/<env>.json``; then ``serverbench compare`` of every file, the first the
reference.  An env whose interpreter is not installed is skipped by tox (the page names it).  ``gate`` gates
examples/flask-todo's upgrade from 3.11 to 3.13 (``serverbench gate --base-python 3.11 --cand-python 3.13``: each
arm's environment made from its lock with uv, cached) and keeps the decision and its wall time.  Both record the
commands, wall times, exit statuses and outputs in benchmarks/results/interpreters.json; ``render`` writes the
comparison's table and the gate's decision into docs/interpreters.md between its markers, from that record only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from choose_server import gunzipped  # noqa: E402 (a sibling script: a gzipped file read by a reader of plain files)
from tox_pypy import timed  # noqa: E402 (benchmarks/ is the script's folder: the same timing, wall time and output's last lines)

from serverbench.records import decisions  # noqa: E402
from serverbench.report.verdict import decision_line  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENVS = ("perf-py311", "perf-py310", "perf-py312", "perf-py313", "perf-pypy3")  # the first is the reference
VARIANTS = "gunicorn-sync-w2,gunicorn-gthread-t10,gunicorn-gevent-w2,uvicorn"  # sync, thread pool, greenlet, asyncio
WORKLOADS = "json,redis,upstream"
SUITE = f'-m "perf or cost" tests/cost --perf-variants {VARIANTS} --perf-workloads {WORKLOADS}'
GATE = (
    ".venv/bin/serverbench gate --repo examples/flask-todo --base-python 3.11 --cand-python 3.13 "
    "--json benchmarks/results/flask-todo-upgrade.json"  # one file per endpoint: flask-todo-upgrade-ENDPOINT.json
)
RESULTS = ROOT / "benchmarks/results"
OUT = RESULTS / "interpreters.json"
UPGRADE = "flask-todo-upgrade"
TABLE = ROOT / "benchmarks/results/interpreters.md"
DOC = ROOT / "docs/interpreters.md"
MARKS = {
    "compare": (
        "<!-- interpreters side by side (benchmarks/interpreters.py render) -->\n",
        "<!-- end of the side by side -->",
    ),
    "gate": ("<!-- the gated upgrade (benchmarks/interpreters.py render) -->\n", "<!-- end of the gated upgrade -->"),
}


def run(record: dict) -> int:
    record["envs"] = {env: timed(f"./run tox -e {env} -- {SUITE}") for env in ENVS}  # in turn: one load at a time
    files = " ".join(f".tox/{env}.json" for env in ENVS)
    record["compare"] = timed(f".venv/bin/serverbench compare {files} --missing-ok --markdown {TABLE}")
    record["compare"]["table"] = TABLE.read_text() if record["compare"]["exit"] == 0 else ""
    return record["compare"]["exit"]


def gate(record: dict) -> int:
    """The gated upgrade: its decision files (one per endpoint: NAME-ENDPOINT.json) kept gzipped beside the record,
    so the page renders each endpoint's verdict line from them."""
    for old in RESULTS.glob(f"{UPGRADE}-*.json*"):
        old.unlink()
    record["gate"] = timed(GATE)
    kept = []
    for path in sorted(RESULTS.glob(f"{UPGRADE}-*.json")):
        target = path.with_name(path.name + ".gz")
        target.write_bytes(gzip.compress(path.read_bytes(), mtime=0))
        path.unlink()
        kept.append(target.name)
    record["gate"]["decisions"] = kept
    record["gate"].pop("decision", None)
    return 0 if record["gate"]["exit"] in (0, 1, 3) else record["gate"]["exit"]


def render_compare(record: dict) -> str:
    envs = record.get("envs", {})
    if not envs:
        return "Not measured yet: `benchmarks/interpreters.py run` has not been run.\n"
    rows = "".join(f"| `{e['command']}` | {e['seconds']:,.0f} s | {e['exit']} | {e['date']} |\n" for e in envs.values())
    compare = record.get("compare") or {}
    return (
        f"Each env in turn (`benchmarks/interpreters.py run`, record `{OUT.relative_to(ROOT)}`):\n\n"
        "| command | wall time | exit | date |\n|---|---:|---:|---|\n" + rows + "\n" + compare.get("table", "")
    )


def render_gate(record: dict) -> str:
    run_ = record.get("gate")
    if not run_:
        return "Not run yet.\n"
    lines = [decision_line(gunzipped(RESULTS / name, decisions.read)) for name in run_.get("decisions", ())]
    said = "".join(f"- {line}\n" for line in lines) or "(no decision file was written)\n"
    return (
        f"```sh\n{run_['command']}\n```\n\nexit {run_['exit']} in {run_['seconds']:,.0f} s on {run_['date']} "
        f"({run_['machine']}), base 3.11 against candidate 3.13, each endpoint's verdict as the gate words it "
        f"(from its decision files, {', '.join(f'`{n}`' for n in run_.get('decisions', ()))}):\n\n{said}"
    )


def render(record: dict, write: bool = True) -> dict[Path, str]:
    """The page with both blocks rendered from ``record`` (written unless ``write`` is False)."""
    text = DOC.read_text(encoding="utf-8")
    for name, block in (("compare", render_compare(record)), ("gate", render_gate(record))):
        start, end = MARKS[name]
        if start in text:
            head, rest = text.split(start, 1)
            text = head + start + block + rest[rest.index(end) :]
    if write:
        DOC.write_text(text, encoding="utf-8")
    return {DOC: text}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("run", "gate", "render"))
    args = parser.parse_args()
    record = json.loads(OUT.read_text()) if OUT.exists() else {}
    if args.part == "render":
        render(record)
        return 0
    status = run(record) if args.part == "run" else gate(record)
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
