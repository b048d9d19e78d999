"""Slow and idle clients, per variant: the json workload's throughput and p99 with and without K slow
clients of each kind beside it, and how long one silent connection holds the server before it drops it.

    flock -x /tmp/serverbench-load.lock .venv/bin/python benchmarks/slow_clients.py load --variants a,b,c
    flock -x /tmp/serverbench-load.lock .venv/bin/python benchmarks/slow_clients.py hold --variants a,b,c
    .venv/bin/python benchmarks/slow_clients.py render

``load`` runs, per variant, c16 for 3 s (1 s warm-up) then c16+<kind>16 for each kind; ``hold`` starts
the variants at once (it needs little CPU) and probes each with one connection per kind, capped at
40 s.  Both merge their rows into benchmarks/results/slow-clients.json (so groups of variants can run
under separate short locks); ``render`` writes the table to benchmarks/results/slow-clients.md and into
docs/slow-clients.md.
Without --variants: every variant of the registry that can run here, serving its reference app.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serverbench.catalog.shapes import LoadShape, from_label
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.drivers.base import driver_for
from serverbench.errors import GeneratorError, ServerDiedError, ServerStartError, VerificationError
from serverbench.measure.host.machine import machine_info, python_info
from serverbench.measure.serving.servers import start_variant, unavailable_reason
from serverbench.measure.serving.verify import verify
from serverbench.measure.trials.slowclients import SlowClients
from serverbench.measure.trials.trial import Trial, Warmup, run_trial

ROOT = Path(__file__).resolve().parents[1]
APPS = ROOT / "apps"
OUT = ROOT / "benchmarks/results/slow-clients.json"
DOC = ROOT / "docs/slow-clients.md"
DOC_START, DOC_END = "<!-- slow-clients table (benchmarks/slow_clients.py render) -->\n", "<!-- end of the table -->"
LOAD_KINDS = ("slowloris", "idle", "keepalive")
HOLD_KINDS = ("idle", "partial", "keepalive")


def runnable() -> list[str]:
    return [name for name, v in registry().items() if unavailable_reason(v, apps_dir=APPS) is None]


def started(name: str):
    variant = registry()[name]
    server = start_variant(variant, apps_dir=APPS, timeout=60.0)
    try:
        verify(server.url, [WORKLOADS["json"].spec], name)
    except VerificationError:
        server.stop()
        raise
    return server


def load_row(name: str, args) -> dict:
    """c16 alone, then c16 beside K slow clients of each kind: rps, p99, errors, the slow clients' facts."""
    shapes = [LoadShape(args.connections, args.duration)] + [
        from_label(f"c{args.connections}+{kind}{args.count}", args.duration) for kind in LOAD_KINDS
    ]
    row: dict = {}
    server = started(name)
    try:
        for shape in shapes:
            trial = Trial(
                server,
                WORKLOADS["json"],
                shape,
                driver_for(shape),
                nodeid=f"slow_clients::{name}",
                test="slow_clients",
                machine={},
                python=python_info(),
            )
            try:
                res = run_trial(trial, Warmup(args.warmup))
            except (ServerDiedError, GeneratorError) as exc:  # a wedged server can keep even wrk from ending
                row[shape.label] = {"error": str(exc).splitlines()[0][:120]}
                print(f"  {name} {shape.label}: {row[shape.label]['error']}", flush=True)
                server.stop()
                server = started(name)
                continue
            rec = res.to_record()
            row[shape.label] = {
                "rps": rec["rps"],
                "p99_ms": rec["latency_ms"]["p99"],
                "errors": rec["errors"],
                "requests": rec["requests"],
                "slow_clients": rec.get("slow_clients"),
            }
            print(
                f"  {name} {shape.label}: {rec['rps']:,.0f} rps, p99 {rec['latency_ms']['p99']:.1f} ms, "
                f"errors {sum(rec['errors'].values())}, slow {rec.get('slow_clients')}",
                flush=True,
            )
    finally:
        server.stop()
    return row


def hold_rows(names: list[str], cap_s: float) -> dict[str, dict]:
    """Every variant started at once; per kind, one connection against each, until dropped or ``cap_s``."""
    servers, rows = {}, {name: {} for name in names}
    try:
        for name in names:
            try:
                servers[name] = started(name)
            except (ServerStartError, VerificationError) as exc:
                rows[name] = {"error": str(exc).splitlines()[0]}
        for kind in HOLD_KINDS:
            print(f"  probing {kind} on {len(servers)} variants (cap {cap_s:g} s)", flush=True)
            probes = {
                name: SlowClients(s.url + "/json", kind, 1, seconds=cap_s, until_dropped=True)
                for name, s in servers.items()
            }
            with ThreadPoolExecutor(max_workers=max(1, len(probes))) as pool:
                running = {name: pool.submit(p.start) for name, p in probes.items()}
                for name, future in running.items():
                    try:
                        future.result()
                    except GeneratorError as exc:
                        rows[name][kind] = {"error": str(exc)[:200]}
                        del probes[name]
                reports = dict(zip(probes, pool.map(lambda p: p.stop(cap_s + 5.0), probes.values())))
            for name, report in reports.items():
                rows[name][kind] = {
                    "held_s": report.dropped_s[0] if report.dropped_s else None,
                    "opened": report.opened,
                    "answer": next(iter(report.answers), None),
                    "cap_s": cap_s,
                }
    finally:
        for server in servers.values():
            server.stop()
    return rows


def merge(part: str, rows: dict[str, dict]) -> None:
    data = json.loads(OUT.read_text()) if OUT.exists() else {"variants": {}}
    data["machine"] = machine_info("wrk")
    data["python"] = python_info()
    for name, row in rows.items():
        data["variants"].setdefault(name, {})[part] = row
        data["variants"][name]["worker"] = registry()[name].worker
        data["variants"][name]["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def held_text(kind: str, probe: dict | None) -> str:
    if not probe:
        return "–"
    if "error" in probe:
        return "no answer" if "not ready" in probe["error"] else "error"
    if probe.get("opened") == 0:
        return "refused"
    if probe["held_s"] is None:
        return f"> {probe['cap_s']:g} s"
    if kind == "keepalive":  # its answer is the 200 of its one request; under 0.1 s: no keep-alive at all
        return "closes at once" if probe["held_s"] < 0.1 else f"{probe['held_s']:.1f} s"
    answer = f" ({probe['answer']})" if probe.get("answer") not in (None, "?") else ""
    return f"{probe['held_s']:.1f} s{answer}"


def load_text(cell: dict | None, base: dict | None) -> str:
    if not cell:
        return "–"
    if "error" in cell:  # wrk not ending in time: the server left its connections hanging past wrk's own stop
        return "**0** (wrk hung, killed)" if "did not finish" in cell["error"] else cell["error"]
    if not cell["requests"]:
        return "**0** (no answer)"
    change = f" ({(cell['rps'] / base['rps'] - 1) * 100:+.0f}%)" if base and base.get("rps") else ""
    errors = sum(cell["errors"].values())
    return f"{cell['rps']:,.0f}{change} / {cell['p99_ms']:,.0f} ms" + (f" / {errors} err" if errors else "")


def render() -> str:
    data = json.loads(OUT.read_text())
    base_label = "c16"
    heads = (
        ["variant", "worker", f"{base_label} rps / p99"]
        + [f"+{k}16" for k in LOAD_KINDS]
        + [f"held: {k}" for k in HOLD_KINDS]
    )
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    order = list(registry())
    for name, v in sorted(data["variants"].items(), key=lambda item: order.index(item[0]) if item[0] in order else 999):
        load, hold = v.get("load") or {}, v.get("hold") or {}
        base = load.get(base_label)
        cells = [name, v.get("worker", ""), load_text(base, None)]
        cells += [load_text(load.get(f"{base_label}+{k}16"), base) for k in LOAD_KINDS]
        cells += [hold.get("error") or held_text(k, hold.get(k)) for k in HOLD_KINDS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("load", "hold", "render", "list"))
    parser.add_argument("--variants", help="comma-separated names (default: every one that can run here)")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--count", type=int, default=16, help="slow clients beside the load")
    parser.add_argument("--duration", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--cap", type=float, default=40.0, help="seconds a hold probe waits at most")
    args = parser.parse_args()
    if args.part == "render":
        table = render()
        (OUT.with_suffix(".md")).write_text(table)
        doc = DOC.read_text()
        head, rest = doc.split(DOC_START, 1)
        DOC.write_text(head + DOC_START + table + rest[rest.index(DOC_END) :])
        print(table)
        return
    names = args.variants.split(",") if args.variants else runnable()
    if args.part == "list":
        print(",".join(names))
        return
    if args.part == "hold":
        merge("hold", hold_rows(names, args.cap))
        return
    for name in names:
        print(f"{name}:", flush=True)
        try:
            merge("load", {name: load_row(name, args)})
        except (ServerStartError, VerificationError) as exc:
            merge("load", {name: {"c16": {"error": str(exc).splitlines()[0]}}})
            print(f"  {name} failed: {exc}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
