"""System calls, socket bytes, connections and memory kept per request, counted (measure/counting/systrace.py,
measure/counting/clientmemory.py): A/A counts and planted changes per cell, and what the trace costs in time.

    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_system.py counts \\
        --cell gunicorn-sync-w2/flask --cell waitress-t4/flask --cell aiohttp/aiohttp --runs 3 \\
        --plant SERVERBENCH_DELAY_US=60 --plant SERVERBENCH_LEAK_BYTES=1000
    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_system.py time \\
        --cell gunicorn-sync-w2/flask --runs 4
    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_system.py aa --requests 50 \\
        --cell uvicorn/raw-asgi --cell waitress-t4/flask
    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_system.py plants \\
        --cell gunicorn-sync-w2/flask --cell waitress-t4/flask --cell aiohttp/aiohttp
    flock -s /tmp/serverbench-timed.lock .venv/bin/python benchmarks/cost_system.py kept --runs 3 \\
        --cell gunicorn-sync-w2/flask --cell waitress-t4/flask --cell aiohttp/aiohttp
    .venv/bin/python benchmarks/cost_system.py render    # docs/lab/cost.md's blocks, from their results files

``counts``: per cell, ``--runs`` fresh counts (two at a time), then one count per planted knob; prints
instructions, the calls per request that differ between runs or from the base (vDSO calls left out), socket
bytes, connections and memory kept, and the cost verdict of each planted count against the first base count.
``time``: counts with and without ``--trace-syscalls=yes`` one after the other, and the wall time of each.
``aa``: two fresh counts per cell (two at a time, warm-up as long as the window, as the A/B gate counts),
the second judged against the first by judge/system.py: what an A/A of the gate's system signal says.
``plants``: each planted change (``PLANTS``: the knobs of apps/injected_work.py) counted once against one
unplanted count of its workload (``/json``, or ``/redis`` with a redis-server of its own per count, seeded, so
every count sees the same counter) on each cell (default gunicorn-sync-w2/flask; a sync, a thread-pool and an
event-loop server in the committed results), two counts at a time; per change: instructions, the system calls
that moved and the peers they moved on, connections, memory kept, the cost verdict (judge/cost.py: the
instruction tolerance and judge/system.py) and the seconds its count took, start to verdict (the time to
decision: its base is counted beside it).  Written to ``benchmarks/results/cost-plants.json``.
``kept``: the A/B gate's counted phase (measure/ab.py ``count_arms``, one count per arm at the gate's 50 requests,
both at once), an A/A and a 1,000-byte leak per run and cell, with memory kept read over 1,000 requests without
valgrind (measure/counting/keptmemory.py) and without that run (the window's 50, not judged): the system verdict and the
phase's seconds.  Written to ``benchmarks/results/cost-gate-kept.json``.  ``render`` rewrites docs/lab/cost.md's
blocks from both files.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serverbench.backends.redis import start_redis
from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.judge.cost import judge_cost
from serverbench.judge.system import CALLS_MIN, VDSO, Move, by_peer, judge_system, peer_phrase
from serverbench.measure.counting import callgrind
from serverbench.measure.counting.cost import CostPlan, measure_cost
from serverbench.records.cost import CostBaseline

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks/results/cost-plants.json"
KEPT_RESULTS = ROOT / "benchmarks/results/cost-gate-kept.json"
DOC = ROOT / "docs/lab/cost.md"
TOLERANCE = 0.02  # pytest -m cost's default instruction tolerance
MOVED_MIN = 0.5  # calls per request a name must move by to be listed as moved (judged from 1.00: judge/system.py)
PLANTS_CELL = "gunicorn-sync-w2/flask"  # a sync server: its calls per request are whole numbers, run to run
# What each planted change is, the workload it is planted in, and the knob (apps/injected_work.py) that plants it.
PLANTS = (
    ("60 µs sleep", "json", "SERVERBENCH_DELAY_US", "60"),
    ("an extra os.stat", "json", "SERVERBENCH_STAT_PER_REQUEST", "1"),
    ("getaddrinfo('localhost')", "json", "SERVERBENCH_GETADDRINFO", "1"),
    ("an extra Redis GET", "redis", "SERVERBENCH_REDIS_EXTRA_GET", "1"),
    ("a Redis connection per request", "redis", "SERVERBENCH_REDIS_CONNECT", "1"),
    ("a leak of 1,000 bytes a request", "json", "SERVERBENCH_LEAK_BYTES", "1000"),
)
KINDS = {"gunicorn-sync-w2": "sync", "waitress-t4": "thread pool", "aiohttp": "event loop"}
KEPT_CELLS = ("gunicorn-sync-w2/flask", "waitress-t4/flask", "aiohttp/aiohttp")


def plan_of(cell: str, env: dict[str, str] | None = None, requests: int = 200, workload: str = "json") -> CostPlan:
    variant, app = cell.split("/")
    v = registry()[variant]
    return CostPlan(
        v,
        APPS[app],
        WORKLOADS[workload],
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
            stored = CostBaseline.of(base[0])
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


def counted(cell: str, workload: str, env: dict[str, str]):
    """One count of ``cell`` on ``workload`` with these knobs (a fresh seeded redis-server for /redis), and its
    wall seconds."""
    started = time.monotonic()
    if workload != "redis":
        return measure_cost(plan_of(cell, env, workload=workload)), time.monotonic() - started
    redis = start_redis()
    try:
        record = measure_cost(plan_of(cell, {**env, "SERVERBENCH_REDIS_URL": redis.url}, workload=workload))
    finally:
        redis.stop()
    return record, time.monotonic() - started


def moved_calls(base, planted) -> dict[str, list[float]]:
    """Each system call whose count per request moved by MOVED_MIN or more: [base, planted]."""
    b, c = (r.system.calls if r.system else {} for r in (base, planted))
    return {
        n: [round(b.get(n, 0.0), 3), round(c.get(n, 0.0), 3)]
        for n in sorted(set(b) | set(c))
        if abs(c.get(n, 0.0) - b.get(n, 0.0)) >= MOVED_MIN
    }


def moved_peers(base, planted, names) -> dict[str, str]:
    """The peer each moved call moved on, where one peer's sockets hold the whole move (judge/system.py's split)."""
    found = {}
    for name in names:
        figure = lambda s, name=name: s.calls.get(name, 0.0)  # noqa: E731
        to = by_peer([base.system], [planted.system], figure, CALLS_MIN)
        peer = Move(name, figure(base.system), figure(planted.system), CALLS_MIN, to).peer
        if peer is not None:
            found[name] = peer
    return found


def plant_rows(cell: str) -> list[dict]:
    """Each planted change on ``cell`` against its workload's unplanted count, two counts at a time."""
    workloads = list(dict.fromkeys(w for _, w, _, _ in PLANTS))
    jobs = [(w, {}) for w in workloads] + [(w, {var: value}) for _, w, var, value in PLANTS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda job: counted(cell, *job), jobs))
    bases = dict(zip(workloads, done))
    rows = []
    for (what, workload, var, value), (record, seconds) in zip(PLANTS, done[len(workloads) :]):
        base, base_seconds = bases[workload]
        started = time.monotonic()
        verdict = judge_cost(record, CostBaseline.of(base), TOLERANCE)
        seconds += time.monotonic() - started
        connections = [r.system.connections if r.system else None for r in (base, record)]
        moved = moved_calls(base, record)
        rows.append(
            {
                "change": what,
                "workload": workload,
                "knob": f"{var}={value}",
                "instructions": [round(base.per_request), round(record.per_request)],
                "calls_moved": moved,
                "peers": moved_peers(base, record, moved) if base.system and record.system else {},
                "vdso": sorted(VDSO),
                "connections": [None if c is None else round(c, 3) for c in connections],
                "kept": [base.kept_per_request, record.kept_per_request],
                "status": verdict.status,
                "instructions_failed": record.per_request > base.per_request * (1 + TOLERANCE),
                "system": verdict.system.verdict if verdict.system else None,
                "system_failed": sorted({m.what for m in verdict.system.regressions}) if verdict.system else [],
                "message": verdict.message,
                "seconds": round(seconds, 1),
                "base_seconds": round(base_seconds, 1),
            }
        )
        print(f"{cell} {what}: {verdict.status} in {seconds:.0f} s: {verdict.message}", flush=True)
    return rows


def plants(cells: list[str], out: Path) -> None:
    results = [{"cell": cell, "kind": KINDS.get(cell.split("/")[0], ""), "plants": plant_rows(cell)} for cell in cells]
    data = {
        "command": "python benchmarks/cost_system.py plants" + "".join(f" --cell {c}" for c in cells),
        "requests": 200,
        "tolerance": TOLERANCE,
        "date": datetime.date.today().isoformat(),
        "machine": f"{_cpu()}, {len(os.sched_getaffinity(0))} cores",
        "python": platform.python_version(),
        "cells": results,
    }
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    render()


def kept(cells: list[str], runs: int, out: Path) -> None:
    """The gate's counted phase on each cell: A/A and a 1,000-byte leak, memory kept read without valgrind or not."""
    from serverbench.catalog.matrix import Cell
    from serverbench.gate.loop import Counted
    from serverbench.gate.plan import ABPlan, Arm
    from serverbench.judge.system import KEPT_MIN_REQUESTS
    from serverbench.measure.counting.keptmemory import REQUESTS
    from serverbench.measure.trials.ab import count_arms

    rows = []
    for run in range(runs):
        for cell in cells:
            variant, app = cell.split("/")
            for condition, env in (("A/A", {}), ("leak", {"SERVERBENCH_LEAK_BYTES": "1000"})):
                for requests in (REQUESTS, 0):
                    plan = ABPlan(
                        Cell(registry()[variant], APPS[app]),
                        WORKLOADS["json"],
                        Arm("base", apps_dir=ROOT / "apps"),
                        Arm("candidate", apps_dir=ROOT / "apps", env=env),
                        rate=None,
                        cost_repeats=1,
                    )
                    started = time.monotonic()
                    counts = Counted(*count_arms(plan, 1, requests if plan.cost_requests < KEPT_MIN_REQUESTS else 0))
                    decision = counts.system
                    seconds = time.monotonic() - started
                    (b,), (c,) = counts.base, counts.candidate
                    rows.append(
                        {
                            "run": run + 1,
                            "cell": cell,
                            "condition": condition,
                            "kept_requests": requests,
                            "verdict": decision.verdict,
                            "kept": [b.kept_per_request, c.kept_per_request],
                            "reason": decision.reason,
                            "seconds": round(seconds, 1),
                        }
                    )
                    print(
                        f"{cell} {condition} kept over {requests or 'the window'}: {decision.verdict} in "
                        f"{seconds:.1f} s ({b.kept_per_request} -> {c.kept_per_request} B/req)",
                        flush=True,
                    )
    data = {
        "command": "python benchmarks/cost_system.py kept" + f" --runs {runs}" + "".join(f" --cell {c}" for c in cells),
        "requests": ABPlan.cost_requests,
        "date": datetime.date.today().isoformat(),
        "machine": f"{_cpu()}, {len(os.sched_getaffinity(0))} cores",
        "rows": rows,
    }
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    render()


def _cpu() -> str:
    for text in Path("/proc/cpuinfo").read_text().splitlines():
        if text.startswith("model name"):
            return text.split(":", 1)[1].strip()
    return platform.machine()


def _calls(row: dict) -> str:
    peers = row.get("peers", {})
    moved = [
        f"{'+' if c > b else ''}{c - b:.2f} {name}{' (vDSO)' if name in row['vdso'] else ''}"
        + (f" {peer_phrase(peers[name])}" if name in peers else "")
        for name, (b, c) in sorted(row["calls_moved"].items(), key=lambda kv: (kv[0] in row["vdso"], kv[0]))
    ]
    return ", ".join(moved) or "none"


def _verdict(row: dict) -> str:
    if row["status"] != "fail":
        return row["status"]
    system = row.get("system_failed", ["calls"] if row["system"] == "regression" else [])
    kept = "memory kept" in system
    calls = [w for w in system if w != "memory kept"]
    why = [
        w
        for w, failed in (("instructions", row["instructions_failed"]), ("system calls", calls), ("memory kept", kept))
        if failed
    ]
    return f"**fail** ({', '.join(why)})"


def _kept(row: dict) -> str:
    b, c = row.get("kept", [None, None])
    return "absent" if b is None or c is None else f"{b:,.0f} -> {c:,.0f}"


def table(data: dict) -> str:
    """Per cell, one row per planted change: what moved against its unplanted base, the verdict and the time to
    decision."""
    lines = [
        f"`{data['command']}`: {data['requests']} requests a count, instruction tolerance {data['tolerance']:.0%}, "
        f"{data['date']}, {data['machine']}.",
    ]
    for cell in data["cells"]:
        lines += [
            "",
            f"**{cell['cell']}** ({cell['kind']})",
            "",
            "| planted change | workload | instructions Δ | system calls that moved, per request | connections/req "
            "| memory kept, B/req | verdict | decided in |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in cell["plants"]:
            b, c = row["instructions"]
            cb, cc = row["connections"]
            connections = "absent" if cb is None or cc is None else f"{cb:.3f} -> {cc:.3f}"
            lines.append(
                f"| {row['change']} (`{row['knob']}`) | /{row['workload']} | {c / b - 1:+.2%} | {_calls(row)} "
                f"| {connections} | {_kept(row)} | {_verdict(row)} | {row['seconds']:.0f} s |"
            )
    return "\n".join(lines) + "\n"


def kept_table(data: dict) -> str:
    """Per cell and condition: the gate's counted system verdicts and the counted phase's seconds, memory kept read
    over 1,000 requests without valgrind (after) and over the window only (before), and what the run without
    valgrind added (the median of each run's difference)."""
    lines = [
        f"`{data['command']}`: one count per arm at the gate's {data['requests']} requests, both arms at once, "
        f"{data['date']}, {data['machine']}.",
        "",
        "| cell | condition | memory kept read | verdicts | memory kept, B/req (base -> candidate) "
        "| counted phase, median | added |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = data["rows"]
    seconds = {(r["run"], r["cell"], r["condition"], r["kept_requests"]): r["seconds"] for r in rows}
    for cell, condition, requests in dict.fromkeys((r["cell"], r["condition"], r["kept_requests"]) for r in rows):
        these = [r for r in rows if (r["cell"], r["condition"], r["kept_requests"]) == (cell, condition, requests)]
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(Counter(r["verdict"] for r in these).items()))
        kept = "; ".join(_kept(r) for r in these)
        how = f"over {requests:,} requests without valgrind" if requests else f"over the window ({data['requests']})"
        added = [
            r["seconds"] - seconds[(r["run"], cell, condition, 0)]
            for r in these
            if requests and (r["run"], cell, condition, 0) in seconds
        ]
        extra = f"{statistics.median(added):+.1f} s" if added else "–"
        median = statistics.median(r["seconds"] for r in these)
        lines.append(f"| {cell} | {condition} | {how} | {verdicts} | {kept} | {median:.1f} s | {extra} |")
    return "\n".join(lines) + "\n"


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/cost.md with its planted-changes and gate-leak blocks rendered from their results files; written when
    ``write``."""
    rewrite(DOC, "cost-plants", table(json.loads(RESULTS.read_text())), write)
    return rewrite(DOC, "cost-gate-kept", kept_table(json.loads(KEPT_RESULTS.read_text())), write)


def main() -> None:
    if sys.argv[1:] == ["render"]:
        render()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("counts", "time", "aa", "plants", "kept"))
    parser.add_argument("--requests", type=int, default=50, help="aa: requests a count (the gate's 50)")
    parser.add_argument("--cell", action="append", help="variant/app, e.g. gunicorn-sync-w2/flask")
    parser.add_argument("--out", type=Path, help="plants, kept: the results file (default: the committed one)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--plant", action="append", default=[], help="a knob=value counted once per cell")
    args = parser.parse_args()
    if args.what == "plants":
        plants(args.cell or [PLANTS_CELL], args.out or RESULTS)
        return
    if args.what == "kept":
        kept(args.cell or list(KEPT_CELLS), args.runs, args.out or KEPT_RESULTS)
        return
    if not args.cell:
        parser.error(f"{args.what} needs --cell")
    if args.what == "counts":
        counts(args.cell, args.runs, args.plant)
    elif args.what == "aa":
        aa(args.cell, args.requests)
    else:
        timing(args.cell, args.runs)


if __name__ == "__main__":
    main()
