"""How long one count of a bisection takes per variant, and what dominates it.

A commit's count is a git worktree, a server started under valgrind, its warm-up, the counted window and
the dump (measure/counting/cost.py).  The phases are separated by counting one after the other at three sizes, each
`--repeats` times (median): (warm-up 200, window 200) is the default count; (200, 10) drops the window to 10
requests; (10, 10) drops the warm-up too.  Then

    window (190 requests)          = T(200, 200) - T(200, 10)
    warm-up (190 + 47 requests)    = T(200, 10) - T(10, 10)
    start, 20 requests, dump, stop = T(10, 10)

and the worktree of this checkout (git worktree add + remove) is timed on its own.  Counts run one at a time.

    flock -s /tmp/serverbench-quiet.lock .venv/bin/python benchmarks/bisect_count_time.py \\
        --variants waitress-t4,gunicorn-sync-w2 --out benchmarks/results/bisect-count-time.json
    .venv/bin/python benchmarks/bisect_count_time.py --table benchmarks/results/bisect-count-time.json
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.measure.counting.cost import CostPlan, measure_cost
from serverbench.measure.trees.worktree import worktree
from serverbench.report.bisect import count_time_table

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"default": (200, 200), "window 10": (200, 10), "warm-up 10": (10, 10)}


def timed(variant: str, repeats: int) -> dict:
    v = registry()[variant]
    plan = CostPlan(v, v.default_app, WORKLOADS["json"], apps_dir=ROOT / "apps")
    out = {}
    for name, (warmup, requests) in SIZES.items():
        walls = [measure_cost(replace(plan, warmup=warmup, requests=requests)).wall_s for _ in range(repeats)]
        out[name] = [round(w, 2) for w in walls]
        print(f"{variant} {name}: {', '.join(f'{w:.1f}' for w in walls)} s", flush=True)
    return out


def worktree_s(repeats: int) -> list[float]:
    walls = []
    for _ in range(repeats):
        started = time.monotonic()
        with worktree("HEAD", ROOT):
            pass
        walls.append(round(time.monotonic() - started, 2))
    return walls


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", default="waitress-t4,gunicorn-sync-w2,aiohttp,uvicorn")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "bisect-count-time.json")
    p.add_argument("--table", type=Path, help="print the table of a results file")
    args = p.parse_args()
    if args.table:
        print(count_time_table(json.loads(args.table.read_text())))
        return
    data = json.loads(args.out.read_text()) if args.out.exists() else {"variants": {}}
    data["worktree_s"] = worktree_s(args.repeats)
    for variant in args.variants.split(","):
        app = registry()[variant].default_app.name
        data["variants"][variant] = {"app": app, "walls": timed(variant, args.repeats)}
        args.out.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
