"""System calls, socket bytes, connections and memory kept per request, counted (measure/systrace.py,
measure/clientmemory.py): A/A counts and planted changes per cell, and what the trace costs in time.

    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_system.py counts \\
        --cell gunicorn-sync-w2/flask --cell waitress-t4/flask --cell aiohttp/aiohttp --runs 3 \\
        --plant SERVERBENCH_DELAY_US=60 --plant SERVERBENCH_LEAK_BYTES=1000
    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_system.py time \\
        --cell gunicorn-sync-w2/flask --runs 4
    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_system.py aa --requests 50 \\
        --cell uvicorn/raw-asgi --cell waitress-t4/flask

``counts``: per cell, ``--runs`` fresh counts (two at a time), then one count per planted knob; prints
instructions, the calls per request that differ between runs or from the base (vDSO calls left out), socket
bytes, connections and memory kept, and the cost verdict of each planted count against the first base count.
``time``: counts with and without ``--trace-syscalls=yes`` one after the other, and the wall time of each.
``aa``: two fresh counts per cell (two at a time, warm-up as long as the window, as the A/B gate counts),
the second judged against the first by judge/system.py: what an A/A of the gate's system signal says.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.judge.cost import judge_cost
from serverbench.judge.system import VDSO, judge_system
from serverbench.measure import callgrind
from serverbench.measure.cost import CostPlan, measure_cost
from serverbench.records.cost import CostBaseline

ROOT = Path(__file__).resolve().parents[1]


def plan_of(cell: str, env: dict[str, str] | None = None, requests: int = 200) -> CostPlan:
    variant, app = cell.split("/")
    v = registry()[variant]
    return CostPlan(
        v,
        APPS[app],
        WORKLOADS["json"],
        requests=requests,
        warmup=min(requests, 200),  # the A/B gate warms up as long as it counts; pytest -m cost 200
        apps_dir=ROOT / "apps",
        env=env or {},
    )


def calls(record) -> dict[str, float]:
    return {k: v for k, v in record.system.calls.items() if k not in VDSO} if record.system else {}


def line(label: str, record, names: list[str]) -> str:
    if record.system is None:
        return f"  {label:<28} {record.per_request:>10,.0f} instr/req  system absent: {record.system_absent}"
    s = record.system
    shown = ", ".join(f"{n} {s.calls.get(n, 0.0):.3f}" for n in names)
    kept = "absent" if record.kept_per_request is None else f"{record.kept_per_request:,.0f} B"
    return (
        f"  {label:<28} {record.per_request:>10,.0f} instr/req  calls/req {sum(calls(record).values()):.3f}"
        f" [{shown}]  sent {s.sent:,.0f} B  received {s.received:,.0f} B  connections {s.connections:.3f}"
        f"  kept {kept}/req  ({record.wall_s:.0f} s)"
    )


def counts(cells: list[str], runs: int, plants: list[str]) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        for cell in cells:
            base = list(pool.map(lambda _, cell=cell: measure_cost(plan_of(cell)), range(runs)))
            planted = list(pool.map(lambda p, cell=cell: measure_cost(plan_of(cell, dict([p.split("=", 1)]))), plants))
            everyone = base + planted
            names = sorted({n for r in everyone for n in calls(r)})
            varied = [n for n in names if len({round(calls(r).get(n, 0.0), 3) for r in everyone}) > 1]
            spread = (max(r.per_request for r in base) - min(r.per_request for r in base)) / statistics.median(
                r.per_request for r in base
            )
            print(f"{cell}: {runs} A/A counts, instructions spread {spread:.3%}; calls that differ: {varied}")
            for i, r in enumerate(base):
                print(line(f"A/A {i + 1}", r, varied))
            stored = CostBaseline(
                base[0].key,
                base[0].per_request,
                base[0].packages,
                base[0].functions,
                (),
                base[0].timestamp,
                system=base[0].system,
                kept_per_request=base[0].kept_per_request,
            )
            for plant, r in zip(plants, planted):
                print(line(plant, r, varied))
                print(f"    verdict vs A/A 1: {judge_cost(r, stored, 0.02).message}")


def timing(cells: list[str], runs: int) -> None:
    traced = callgrind.valgrind_command

    def untraced(out_dir: Path) -> tuple[str, ...]:
        return tuple(a for a in traced(out_dir) if a != "--trace-syscalls=yes")

    for cell in cells:
        walls: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(runs):
            for on in (True, False):
                callgrind.valgrind_command = traced if on else untraced
                started = time.monotonic()
                measure_cost(plan_of(cell))
                walls[on].append(time.monotonic() - started)
        callgrind.valgrind_command = traced
        on, off = statistics.median(walls[True]), statistics.median(walls[False])
        diffs = [a - b for a, b in zip(walls[True], walls[False])]
        print(
            f"{cell}: traced {', '.join(f'{w:.1f}' for w in walls[True])} s; untraced "
            f"{', '.join(f'{w:.1f}' for w in walls[False])} s; medians {on:.1f} vs {off:.1f} s; "
            f"paired differences {', '.join(f'{d:+.1f}' for d in diffs)} s (median {statistics.median(diffs):+.1f} s)"
        )


def aa(cells: list[str], requests: int) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        for cell in cells:
            first, second = pool.map(lambda _, cell=cell: measure_cost(plan_of(cell, requests=requests)), range(2))
            verdict = judge_system([first], [second], requests=requests)
            print(f"{cell}: {verdict.verdict}: {verdict.message()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("counts", "time", "aa"))
    parser.add_argument("--requests", type=int, default=50, help="aa: requests a count (the gate's 50)")
    parser.add_argument("--cell", action="append", required=True, help="variant/app, e.g. gunicorn-sync-w2/flask")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--plant", action="append", default=[], help="a knob=value counted once per cell")
    args = parser.parse_args()
    if args.what == "counts":
        counts(args.cell, args.runs, args.plant)
    elif args.what == "aa":
        aa(args.cell, args.requests)
    else:
        timing(args.cell, args.runs)


if __name__ == "__main__":
    main()
