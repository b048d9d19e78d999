"""A/A spread of counted instructions per request: fresh counts of each variant's /json cell.

    flock -s /tmp/sb-load.lock .venv/bin/python benchmarks/cost_spread.py \
        --variants aiohttp,uvicorn --runs 10 --out benchmarks/results/cost-spread.json
    .venv/bin/python benchmarks/cost_spread.py --table benchmarks/results/cost-spread.json

Each count is a fresh server under valgrind (measure/counting/cost.py).  Two counts run at a time (two
cores).  Results are merged into the JSON file per variant, so batches can be run one by one.
The table also judges every run after the first against the first as a stored baseline would
(default 2% tolerance): the A/A false-flag count.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.judge.cost import spread
from serverbench.measure.counting.cost import CostPlan, measure_cost

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 0.02


def count(variant: str, requests: int) -> dict:
    v = registry()[variant]
    r = measure_cost(CostPlan(v, v.default_app, WORKLOADS["json"], requests=requests, apps_dir=ROOT / "apps"))
    return {
        "per_request": r.per_request,
        "wall_s": round(r.wall_s, 2),
        "timestamp": r.timestamp,
        "processes": [p.instructions for p in r.processes],
    }


def run(variants: list[str], runs: int, requests: int, out: Path) -> None:
    data = json.loads(out.read_text()) if out.exists() else {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for variant in variants:
            started = time.monotonic()
            counts = list(pool.map(lambda _, variant=variant: count(variant, requests), range(runs)))
            data[variant] = {"app": registry()[variant].default_app.name, "requests": requests, "runs": counts}
            values = [c["per_request"] for c in counts]
            print(
                f"{variant}: median {statistics.median(values):,.0f} spread {spread(values):.3%} "
                f"({time.monotonic() - started:.0f} s)",
                flush=True,
            )
            out.write_text(json.dumps(data, indent=1) + "\n")


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    lines = [
        "| variant (app, /json) | runs | median instr/request | spread (max-min)/median | A/A flags at 2% "
        "(runs 2..n vs run 1) | median wall s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for variant, entry in data.items():
        values = [c["per_request"] for c in entry["runs"]]
        flags = sum(1 for v in values[1:] if v > values[0] * (1 + TOLERANCE))
        wall = statistics.median(c["wall_s"] for c in entry["runs"])
        lines.append(
            f"| {variant} ({entry['app']}) | {len(values)} | {statistics.median(values):,.0f} | "
            f"{spread(values):.3%} | {flags}/{len(values) - 1} | {wall:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/cost-spread.json")
    parser.add_argument("--table", type=Path)
    args = parser.parse_args(argv)
    if args.table:
        print(table(args.table))
        return
    run([v for v in args.variants.split(",") if v], args.runs, args.requests, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
