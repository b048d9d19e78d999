"""Where one count's time goes, by phase: one cell counted under valgrind (measure/counting/cost.py), timed from outside.

Each step of :func:`serverbench.measure.counting.cost.measure_cost` is wrapped with a clock (nothing else changes):
start (valgrind, the interpreter, the app's import, the workers' fork, until the readiness check answers),
verify, settle (the process tree still and every worker holding the socket), warm-up, quiet (waits for every
thread to block, outside the window's requests), on / dump (vgdb), window (the counted requests), collect (read
and parse the dumps), stop, environment (the versions the record keeps).  The start is split further by probes
run the same way (valgrind, the same options and fixed environment): the interpreter alone (``-c pass``), and
the interpreter importing the server and the app (no socket, no fork).

    flock -s /tmp/serverbench-quiet.lock .venv/bin/python benchmarks/count_phases.py \\
        --cells gunicorn-sync-w2/flask,waitress-t4/flask --repeats 3 --label after --out benchmarks/results/count-phases.json

``--label before`` with ``PYTHONPATH=<a checkout of main>/src`` times main's code on the same venv and apps.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.measure.counting import callgrind, cost
from serverbench.measure.counting.sequential import SequentialClient

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    """Seconds per phase; a call made inside a timed call belongs to the outer phase."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.depth = 0

    def wrap(self, phase, fn):
        def timed(*args, **kwargs):
            if self.depth:
                return fn(*args, **kwargs)
            self.depth += 1
            began = time.monotonic()
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                name = phase(args) if callable(phase) else phase
                self.seconds[name] += time.monotonic() - began

        return timed


STEPS = {  # phase: (module, name) of a step measure_cost calls; a step this checkout lacks is not timed
    "bytecode": (cost, "compile_server"),
    "start": (cost, "start_variant"),
    "verify": (cost, "verify"),
    "settle": (cost, "settled"),
    "warm-up": (cost, "_warm_up"),
    "quiet": (cost, "quiet"),
    "collect": (callgrind, "window_dumps"),
    "window": (SequentialClient, "send"),
    "environment": (cost, "counting_environment"),
    "stop": (callgrind, "remove_pipes"),
}


def instrumented(clock: Clock) -> None:
    """Wrap measure_cost's steps (the names it looks up) with ``clock``."""
    originals = instrumented.__dict__.setdefault("originals", {})
    if not originals:
        originals.update({k: getattr(m, n) for k, (m, n) in STEPS.items() if hasattr(m, n)})
        originals["control"] = callgrind.control
    for phase, fn in originals.items():
        if phase != "control":
            module, name = STEPS[phase]
            setattr(module, name, clock.wrap(phase, fn))
    callgrind.control = clock.wrap(lambda a: "on" if "on" in a else "dump", originals["control"])


def timed_stop(clock: Clock):
    """RunningServer.stop wrapped (it is a method of the returned server)."""
    from serverbench.measure.serving import servers

    stop = servers.RunningServer.stop
    servers.RunningServer.stop = clock.wrap("stop", stop)


def probe(plan: cost.CostPlan, code: str) -> float:
    """Seconds to run ``python -c code`` under the count's valgrind prefix and fixed environment."""
    with tempfile.TemporaryDirectory(prefix="serverbench-probe-") as out:
        prefix = cost.fixed_environment(plan, 1) + callgrind.valgrind_command(Path(out))
        began = time.monotonic()
        subprocess.run([*prefix, plan.python, "-c", code], check=True, cwd=plan.apps_dir)
        return time.monotonic() - began


def one(plan: cost.CostPlan) -> dict:
    clock = Clock()
    instrumented(clock)
    timed_stop(clock)
    began = time.monotonic()
    record = cost.measure_cost(plan)
    wall = time.monotonic() - began
    phases = dict(clock.seconds)
    phases["other"] = wall - sum(phases.values())
    return {"wall_s": wall, "per_request": record.per_request, "phases": phases}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cells", default="gunicorn-sync-w2/flask,waitress-t4/flask")
    p.add_argument("--requests", type=int, default=50, help="counted and warm-up requests (the gate's: 50)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--probes", type=int, default=1, help="0: no start-up probes")
    p.add_argument("--label", default="this checkout", help="the key the results go under in --out (before, after)")
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    data = {}
    for cell in args.cells.split(","):
        name, app = cell.split("/")
        v = registry()[name]
        plan = cost.CostPlan(
            v, APPS[app], WORKLOADS["json"], requests=args.requests, warmup=args.requests, apps_dir=ROOT / "apps"
        )
        runs = [one(replace(plan)) for _ in range(args.repeats)]
        imports = f"import {app}_app; " + {
            "gunicorn": "import gunicorn.app.wsgiapp",
            "waitress": "import waitress",
        }.get(v.server, "pass")
        probes = {
            "interpreter": [probe(plan, "pass") for _ in range(args.repeats * args.probes)],
            "interpreter+imports": [probe(plan, imports) for _ in range(args.repeats * args.probes)],
        }
        med = {k: statistics.median(r["phases"].get(k, 0.0) for r in runs) for k in runs[0]["phases"]}
        data[cell] = {
            "runs": runs,
            "probes": probes,
            "median_phases": med,
            "median_wall_s": statistics.median(r["wall_s"] for r in runs),
        }
        print(f"{cell}: wall {data[cell]['median_wall_s']:.2f} s (median of {args.repeats})")
        for k, s in sorted(med.items(), key=lambda kv: -kv[1]):
            print(f"  {k:12s} {s:6.2f} s")
        for k, vals in probes.items() if args.probes else ():
            print(f"  probe {k:20s} {statistics.median(vals):6.2f} s")
        print(f"  per request: {[round(r['per_request']) for r in runs]}", flush=True)
    if args.out:
        kept = json.loads(args.out.read_text()) if args.out.exists() else {}
        tree = Path(cost.__file__).parent  # the checkout whose serverbench ran (PYTHONPATH may name another)
        commit = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        kept[args.label] = {"serverbench": commit.stdout.strip() or str(tree), "cells": data}
        args.out.write_text(json.dumps(kept, indent=1) + "\n")


if __name__ == "__main__":
    main()
