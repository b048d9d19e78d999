"""Detection by counted instructions: a known, deterministic extra work per request, and A/A runs.

    flock -s /tmp/serverbench-load.lock .venv/bin/python benchmarks/cost_detect.py \
        --variants waitress-t4,granian-wsgi,gunicorn-sync-w2 --runs 20 --aa 50 \
        --out benchmarks/results/cost-detect.json

The extra work is the reference apps' deterministic knob (apps/injected_work.py):
``SERVERBENCH_WORK_ITERS=N`` runs N iterations of a Python loop per request.  Setting the knob at
all installs a response hook and a header (about 33,000 instructions in flask), so the baseline
is the knob at 1 iteration and the candidates add iterations: N is calibrated per variant to add
about 1% and 2% of the cell's count.  The stored baseline is the median of three counts at 1
iteration; every later count is judged against it as ``pytest -m cost`` would, at several
tolerances (the default is 2%).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.measure.counting.cost import CostPlan, measure_cost

ROOT = Path(__file__).resolve().parents[1]
TOLERANCES = (0.005, 0.01, 0.02)
LEVELS = (0.01, 0.02, 0.03)  # extra work as a share of the cell; 3% is above the default tolerance
BASE_ITERS = 1
CALIBRATION_ITERS = 50  # near the levels measured: the per-iteration cost grows with N (bigger ints)


def count(variant: str, iters: int, requests: int) -> float:
    v = registry()[variant]
    plan = CostPlan(
        v,
        v.default_app,
        WORKLOADS["json"],
        requests=requests,
        apps_dir=ROOT / "apps",
        env={"SERVERBENCH_WORK_ITERS": str(iters)},
    )
    return measure_cost(plan).per_request


def flagged(values: list[float], base: float) -> dict[str, int]:
    return {f"{t:g}": sum(1 for v in values if v > base * (1 + t)) for t in TOLERANCES}


def detect(
    variant: str, runs: int, requests: int, pool: ThreadPoolExecutor, levels=LEVELS, entry: dict | None = None
) -> dict:
    """Calibrate (unless ``entry`` holds a baseline already) and count ``runs`` times at each level."""

    def counts(iters: int, n: int) -> list[float]:
        return list(pool.map(lambda _: count(variant, iters, requests), range(n)))

    if entry is None:
        base = statistics.median(counts(BASE_ITERS, 3))
        per_iter = (statistics.median(counts(BASE_ITERS + CALIBRATION_ITERS, 2)) - base) / CALIBRATION_ITERS
        entry = {"baseline": base, "instructions_per_iteration": per_iter, "levels": {}}
    base, per_iter = entry["baseline"], entry["instructions_per_iteration"]
    for target in levels:
        iters = BASE_ITERS + round(target * base / per_iter)
        values = counts(iters, runs)
        rises = [v / base - 1 for v in values]
        entry["levels"][f"{target:g}"] = {
            "iters": iters,
            "counts": values,
            "flagged": flagged(values, base),
            "median_rise": statistics.median(rises),
            "min_rise": min(rises),
            "max_rise": max(rises),
        }
        print(
            f"{variant} +{target:.0%} ({iters} iterations): median rise {statistics.median(rises):+.3%}, "
            f"flagged {entry['levels'][f'{target:g}']['flagged']} of {runs}",
            flush=True,
        )
    return entry


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="waitress-t4,granian-wsgi,gunicorn-sync-w2")
    parser.add_argument("--runs", type=int, default=20, help="0: only the A/A counts, against a stored baseline")
    parser.add_argument(
        "--aa", type=int, default=50, help="A/A counts of the first variant, judged against its baseline"
    )
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument(
        "--levels",
        default=",".join(f"{x:g}" for x in LEVELS),
        help="extra work as shares of the cell; a variant already in --out keeps its calibration",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/cost-detect.json")
    args = parser.parse_args(argv)
    data = json.loads(args.out.read_text()) if args.out.exists() else {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for variant in [v for v in args.variants.split(",") if v] if args.runs else []:
            levels = tuple(float(x) for x in args.levels.split(","))
            data[variant] = detect(variant, args.runs, args.requests, pool, levels, data.get(variant))
            args.out.write_text(json.dumps(data, indent=1) + "\n")
        if args.aa:
            first = args.variants.split(",")[0]
            base = data[first]["baseline"]
            values = list(pool.map(lambda _: count(first, BASE_ITERS, args.requests), range(args.aa)))
            data["aa"] = {"variant": first, "baseline": base, "counts": values, "flagged": flagged(values, base)}
            print(f"A/A {first}: {args.aa} counts, flagged {data['aa']['flagged']}", flush=True)
            args.out.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
