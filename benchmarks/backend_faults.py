"""How each server variant degrades when a backend fails in the middle of a measured window.

    flock -x /tmp/serverbench-load.lock .venv/bin/python benchmarks/backend_faults.py run --variants a,b
    .venv/bin/python benchmarks/backend_faults.py render

``run``: per variant and fault, a fresh server (its app talks to the backend directly for a kill,
through toxiproxy for the others), 1 s of warm-up, then a 4 s window at c16 with the fault 1.5 s in:
the same code path as ``--perf-fault`` (measure.trials.trial with a measure.trials.faults injection).  Afterwards
the backend is healed (the toxic removed, a killed backend restarted on its port) and the workload's
path probed until 5 requests in a row succeed (the workers recovered, and how long it took) or 10 s
pass.  Rows merge into benchmarks/results/backend-faults.json (so groups of variants can run under
separate short locks); ``render`` writes benchmarks/results/backend-faults.md from it.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path

from serverbench.backends.base import BACKENDS, provide, revive
from serverbench.catalog.faults import Fault
from serverbench.catalog.shapes import LoadShape
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.drivers.wrk import WrkDriver
from serverbench.errors import ServerbenchError
from serverbench.judge.faults import degradation, error_counts, fault_message, time_to_fail
from serverbench.measure.host.machine import machine_info, python_info
from serverbench.measure.serving.servers import start_variant, unavailable_reason
from serverbench.measure.serving.verify import verify
from serverbench.measure.trials.faults import FaultInjection, Toxiproxy, recovery
from serverbench.measure.trials.trial import Trial, Warmup, run_trial

ROOT = Path(__file__).resolve().parents[1]
APPS = ROOT / "apps"
OUT = ROOT / "benchmarks/results/backend-faults.json"
FAULTS = ("kill-redis@1.5s", "slow-redis:200ms@1.5s", "reset-redis@1.5s", "kill-upstream@1.5s", "kill-mongo@1.5s")
WORKLOAD_OF = {"redis": "redis", "upstream": "upstream", "mongo": "mongo-small"}
VARIANTS = (
    "gunicorn-sync-w2",
    "gunicorn-gthread-t10",
    "gunicorn-gevent-w2",
    "uwsgi-p2t2",
    "aiohttp",
    "tornado",
    "uvicorn",
    "granian-asgi",
    "waitress-t4",
    "cheroot-t10",
)
SHAPE = LoadShape(connections=16, duration=4)
RECOVER_WITHIN_S = 10.0


def one(variant, fault: Fault, services, toxiproxy: Toxiproxy, routes) -> dict:
    """One variant x fault: the faulted window, then whether requests succeed again after the backend is back."""
    workload = WORKLOADS[WORKLOAD_OF[fault.backend]]
    env = {
        BACKENDS[n].env_var: (routes[n] if fault.proxied and n == fault.backend else s.url) for n, s in services.items()
    }
    row = {"variant": variant.name, "fault": fault.label, "workload": workload.name}
    server = start_variant(variant, apps_dir=APPS, env=env, timeout=60)
    try:
        verify(server.url, workload.specs, f"{variant.name} ({server.url})")
        injection = FaultInjection(
            fault, services[fault.backend].pid, server.url, workload.path, toxiproxy, fault.backend
        )
        driver = WrkDriver(threads=1)
        trial = Trial(
            server,
            workload,
            SHAPE,
            driver,
            nodeid=f"backend_faults::{variant.name}",
            test="backend_faults",
            machine=machine_info(f"wrk-{driver.version}"),
            python=python_info(),
            during=injection.window,
        )
        try:
            result = run_trial(trial, Warmup(1))
            load, warm = result.load, result.warmup_rps
        except ServerbenchError as exc:
            load, warm, row["trial_error"] = None, (), str(exc)[:300]
        revived = revive(fault.backend, services[fault.backend])
        run = injection.last
        row.update(
            {
                "warmup_rps": round(warm[-1], 1) if warm else None,
                "rps": round(load.rps, 1) if load else None,
                "requests": load.requests if load else None,
                "p99_ms": round(load.latency_ms["p99"], 1) if load else None,
                "errors": dict(load.errors) if load else None,
                "fired_at_s": run.fired_at_s,
                "first_error_at_s": run.first_error_at_s,
                "first_error": run.first_error,
                "time_to_fail_s": time_to_fail(run),
                "probe_errors": run.probe_errors,
                "probes": run.probes,
                "degradation": degradation(run, load),
                "backend_restarted": revived,
                "recover_s": recovery(server.url, workload.path, RECOVER_WITHIN_S),
                "message": fault_message(run, load),
            }
        )
        row["recovered"] = row["recover_s"] is not None
    finally:
        server.stop()
    return row


def run(names: list[str], faults: list[str]) -> None:
    variants = registry()
    rows = json.loads(OUT.read_text()) if OUT.exists() else []
    chosen = [Fault.parse(f) for f in faults]
    with ExitStack() as stack:
        services = {}
        for name in dict.fromkeys(f.backend for f in chosen):
            services[name] = provide(name, timeout=60)
            stack.callback(services[name].stop)
        toxiproxy = Toxiproxy.start()
        stack.callback(toxiproxy.stop)
        routes = {n: toxiproxy.proxy(n, s.url) for n, s in services.items()}
        for name in names:
            variant = variants[name]
            reason = unavailable_reason(variant, variant.default_app, APPS)
            for fault in chosen:
                if reason:
                    row = {"variant": name, "fault": fault.label, "skipped": reason}
                else:
                    try:
                        row = one(variant, fault, services, toxiproxy, routes)
                    except ServerbenchError as exc:
                        row = {"variant": name, "fault": fault.label, "error": str(exc)[:300]}
                print(json.dumps(row), flush=True)
                rows = [r for r in rows if (r["variant"], r["fault"]) != (name, fault.label)] + [row]
                OUT.write_text(json.dumps(rows, indent=1) + "\n")


def render() -> None:
    rows = json.loads(OUT.read_text())
    faults = [f for f in FAULTS if any(r["fault"] == Fault.parse(f).label for r in rows)]
    labels = [Fault.parse(f).label for f in faults]
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    by = {(r["variant"], r["fault"]): r for r in rows}
    lines = [
        "| variant | fault | degradation | errors by class | time to fail | rps (before) | p99 ms | recovered |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for v in variants:
        for label in labels:
            r = by.get((v, label))
            if r is None:
                continue
            if "skipped" in r or "error" in r:
                lines.append(
                    f"| {v} | {label} | {'skipped' if 'skipped' in r else 'error'}: "
                    f"{(r.get('skipped') or r.get('error'))[:90]} | | | | | |"
                )
                continue
            errors = error_counts(r["errors"]) if r.get("errors") is not None else "trial failed"
            ttf = f"{r['time_to_fail_s']:.2f} s" if r.get("time_to_fail_s") is not None else "-"
            back = f"yes, {r['recover_s']:.1f} s" if r["recovered"] else f"**no** (> {RECOVER_WITHIN_S:g} s)"
            lines.append(
                f"| {v} | {label} | {r['degradation']} | {errors} | {ttf} | {r['rps']} ({r['warmup_rps']}) "
                f"| {r['p99_ms']} | {back} |"
            )
    OUT.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("run", "render"))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--faults", default=",".join(FAULTS))
    args = parser.parse_args()
    if args.what == "run":
        run([v for v in args.variants.split(",") if v], [f for f in args.faults.split(",") if f])
    render()


if __name__ == "__main__":
    sys.exit(main())
