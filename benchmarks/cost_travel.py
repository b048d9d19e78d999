"""Do counts travel?  One commit counted in two clones, at a short path and a long one, before and after a change.

    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_travel.py run 37f58f6 33c0467 --runs 5
    .venv/bin/python benchmarks/cost_travel.py render    # docs/lab/cost.md's block, from the results file

Each commit is cloned twice from this repository, at ``<tmp>/a`` and at ``<tmp>/a-much-longer-...-path/x`` (72
more characters), and each clone's ``.venv`` is set up alike (``uv sync --locked --extra test --group native``).
The long clone also counts under a caller's environment 4 KB larger (``env -i`` leaves it out).  Then each cell's ``/json`` is counted ``--runs`` times in each clone, the clones taking turns, each count a
fresh server under valgrind (``measure_cost``, 200 requests): a sync server (gunicorn-sync-w2), a threaded one
(waitress-t4) and an event loop (aiohttp).  Counting, not timing: run it under the shared lock.

The results file (benchmarks/results/cost-travel.json) keeps every count; the table gives, per cell and commit, the
median in each clone, the drift between the clones' medians, and each clone's A/A spread ((max - min) / median).
About 10 minutes for 3 cells x 2 commits x 2 clones x 5 runs (60 counts, with the clones' set-up).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks/results/cost-travel.json"
DOC = ROOT / "docs/lab/cost.md"
CELLS = ("gunicorn-sync-w2", "waitress-t4", "aiohttp")
LONG = "a-much-longer-checkout-path-to-move-every-path-the-server-sees/x"
FILLER = 4096  # bytes of the caller's environment the long clone counts under, beyond the short one's
COUNT = """
import json, sys
from pathlib import Path
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.measure.counting.cost import CostPlan, measure_cost
v = registry()[sys.argv[1]]
r = measure_cost(CostPlan(v, v.default_app, WORKLOADS["json"], requests=200, apps_dir=Path("apps").resolve()))
print(json.dumps({"per_request": r.per_request, "pids": [p.pid for p in r.processes]}))
"""


def uv() -> str:
    """$UV, else this checkout's uv (./run installs it in .tools), else the one on PATH."""
    local = ROOT / ".tools" / "bin" / "uv"
    return os.environ.get("UV") or (str(local) if local.exists() else shutil.which("uv") or "uv")


def clone(ref: str, work: Path) -> Path:
    """A clone of this repository at ``ref`` in ``work``, its .venv set up as the project's tests set it up."""
    work.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "checkout", "-q", ref], check=True)
    subprocess.run(
        [uv(), "sync", "--quiet", "--locked", "--extra", "test", "--group", "native", "--python", "python3"],
        cwd=work,
        env={**os.environ, "UV_PROJECT_ENVIRONMENT": ".venv"},
        check=True,
    )
    return work


def count(work: Path, cell: str, env: dict[str, str]) -> dict:
    """One count of ``cell``'s /json with the clone's own serverbench and venv."""
    done = subprocess.run(
        [str(work / ".venv" / "bin" / "python"), "-c", COUNT, cell], cwd=work, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"{work}: counting {cell} failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(refs: dict[str, str], cells: list[str], runs: int, out: Path, only: str | None = None) -> None:
    data = json.loads(out.read_text()) if out.exists() else {}
    top = Path(tempfile.mkdtemp(prefix="sb-travel-", dir="/tmp"))
    short_env = {k: v for k, v in os.environ.items() if not k.startswith("SERVERBENCH_")}
    long_env = {**short_env, "TRAVEL_FILLER": "x" * FILLER}
    try:
        for label, ref in refs.items():
            if only is not None and label != only:
                continue
            sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", ref], capture_output=True, text=True)
            clones = {"short": clone(ref, top / label / "a"), "long": clone(ref, top / label / LONG)}
            for cell in cells:
                counts: dict[str, list[float]] = {"short": [], "long": []}
                pids: dict[str, list[list[int]]] = {"short": [], "long": []}
                for _ in range(runs):
                    for where, work in clones.items():
                        counted = count(work, cell, short_env if where == "short" else long_env)
                        counts[where].append(counted["per_request"])
                        pids[where].append(counted["pids"])
                data.setdefault(cell, {})[label] = {"commit": sha.stdout.strip(), **counts, "pids": pids}
                print(f"{label} {cell}: {_row_figures(data[cell][label])}", flush=True)
                data["_meta"] = {
                    "date": dt.date.today().isoformat(),
                    "paths": {"short": len(str(clones["short"])), "long": len(str(clones["long"]))},
                    "filler": FILLER,
                    "runs": runs,
                    "command": "benchmarks/cost_travel.py " + " ".join(sys.argv[1:]),
                }
                out.write_text(json.dumps(data, indent=1) + "\n")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def spread(values: list[float]) -> float:
    """(max - min) / median: how far apart a clone's own counts fall."""
    return (max(values) - min(values)) / statistics.median(values)


def drift(entry: dict) -> float:
    """The long clone's median against the short one's."""
    return statistics.median(entry["long"]) / statistics.median(entry["short"]) - 1


def _row_figures(entry: dict) -> str:
    short, long = statistics.median(entry["short"]), statistics.median(entry["long"])
    return (
        f"{short:,.0f} | {long:,.0f} | {drift(entry):+.3%} | {spread(entry['short']):.3%} | {spread(entry['long']):.3%}"
    )


def table(data: dict) -> str:
    """One row per cell and commit: each clone's median, the drift between them and each clone's A/A spread."""
    meta = data["_meta"]
    lines = [
        "| cell (/json) | code | commit | median, short path | median, long path | drift | spread, short | "
        "spread, long |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cell, entries in data.items():
        if cell == "_meta":
            continue
        for label, entry in entries.items():
            lines.append(f"| {cell} | {label} | {entry['commit']} | {_row_figures(entry)} |")
    return (
        "\n".join(lines)
        + f"\n\n{meta['runs']} counts per clone (instructions per request, 200 requests each), the clones' paths "
        f"{meta['paths']['short']} and {meta['paths']['long']} characters long, the long one counted under a "
        f"{meta['filler']:,}-byte larger environment; {meta['date']}, `{meta['command']}`.\n"
    )


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/cost.md with its block rendered from the results file; written when ``write``."""
    return rewrite(DOC, "cost-travel", table(json.loads(RESULTS.read_text())), write)


def main() -> None:
    if sys.argv[1:] == ["render"]:
        render()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["run"])
    parser.add_argument("before", help="the commit before the change")
    parser.add_argument("after", help="the commit after it")
    parser.add_argument("--cells", default=",".join(CELLS))
    parser.add_argument("--runs", type=int, default=5, help="counts per cell in each clone")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--only", choices=["before", "after"], help="count one commit, keep the other's counts")
    args = parser.parse_args()
    run({"before": args.before, "after": args.after}, args.cells.split(","), args.runs, args.out, args.only)


if __name__ == "__main__":
    main()
