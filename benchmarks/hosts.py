"""The same cells on loopback and on simulated hosts, and locust on 1, 2 and 4 load hosts (docs/hosts.md).

    sudo .venv/bin/python benchmarks/hosts.py run       # minutes of timed load: nothing else may run beside it
    .venv/bin/python benchmarks/hosts.py render         # docs/hosts.md's block, from the results file

``run`` takes the README's first example (gunicorn-sync-w2 and aiohttp; /json under oha at 64 connections, the book
site under locust with 50 users) and runs it twice in turn, ``--rounds`` times: on this machine alone (loopback), and
with ``serverbench hosts simulate --load 1`` (the server's namespace on core 0, the load host's on core 1; the session
on the load host, apart from the server host, as simulate runs it by default), and the same with the session on the
server host (``--on-server``, the layout before sessions ran apart), for the session's cost either way.  Then the book
site on aiohttp with 1, 2 and 4 load hosts (their namespaces sharing core 1).  Each session writes its records;
the results file keeps, per cell: rps, the generator's busy share (of its hosts' cores), whether it was saturated,
Little's law (rps x (mean latency + the users' gap) / connections), the test's time, and so the SSH path's cost per
cell (a test's time on hosts less its time on loopback).  The exact merge itself is checked by the unit tests
(tests/unit/drivers/test_histogram.py) and on real generator output by benchmarks/merge_check.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks/results/hosts.json"
DOC = ROOT / "docs/hosts.md"
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "perf", "-q"]
EXAMPLE = ["--perf-variants", "gunicorn-sync-w2,aiohttp", "--perf-workloads", "json"]
SITE = ["--perf-variants", "aiohttp", "--perf-workloads", "json", "-k", "u50"]


# Where each round's session runs: (mode, load hosts or None for loopback, simulate's flags).
MODES = (("loopback", None, ()), ("hosts", 1, ()), ("server", 1, ("--on-server",)))


def session(argv: list[str], load: int | None, where: tuple[str, ...] = ()) -> tuple[dict, float]:
    """One perf session (on loopback, or on ``load`` simulated load hosts, where simulate's flags ``where`` put the
    session: by default on the first load host): its results file and wall time."""
    with tempfile.TemporaryDirectory(prefix="serverbench-hosts-bench-") as tmp:
        records = Path(tmp) / "records.json"
        command = [*PYTEST, *argv, f"--perf-json={records}"]
        if load is not None:
            simulate = [sys.executable, "-m", "serverbench", "hosts", "simulate", "--load", str(load)]
            command = [*simulate, *where, "--", *command]
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.monotonic() - started
        if done.returncode not in (0, 1) or not records.exists():
            raise SystemExit(
                f"the session failed (exit {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
            )
        return json.loads(records.read_text()), wall


def cells(data: dict) -> dict[str, dict]:
    """Per cell (variant/workload/shape): the figures the table shows."""
    by_test = data["phases"]["by_test"]
    out = {}
    for r in data["results"]:
        gen = r["generator"]
        wait = (r.get("gap_ms") or 0.0) if r["shape"]["workers"] is not None else 0.0
        little = r["rps"] * (r["latency_ms"]["mean"] + wait) / 1000.0 / r["shape"]["connections"]
        out[f"{r['variant']}/{r['workload']}/{r['shape']['label']}"] = {
            "rps": r["rps"],
            "driver": gen["name"],
            "busy_pct": gen["busy_pct"],
            "saturated": gen["saturated"],
            "hosts": [
                {"name": h["name"], "busy_pct": h["busy_pct"], "share": h["share"]} for h in gen.get("hosts", [])
            ],
            "littles": round(little, 3),
            "test_s": round(sum(by_test.get(r["nodeid"], {}).values()), 2),
        }
    return out


def run(rounds: int, out: Path) -> None:
    data: dict = {"rounds": [], "locust": {}}
    for i in range(rounds):
        for mode, load, where in MODES:
            got, wall = session(EXAMPLE, load, where)
            data["rounds"].append({"round": i, "mode": mode, "wall_s": round(wall, 1), "cells": cells(got)})
            print(mode, i, f"{wall:.0f} s", flush=True)
    for load in (1, 2, 4):
        got, wall = session(SITE, load)
        data["locust"][str(load)] = {"wall_s": round(wall, 1), "cells": cells(got)}
        print("locust on", load, f"{wall:.0f} s", flush=True)
    data["machine"] = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() + " cores"
    out.write_text(json.dumps(data, indent=1) + "\n")


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(data: dict) -> str:
    """Loopback against hosts per cell (medians over the rounds), then locust by load hosts."""
    modes: dict[str, dict] = {mode: {} for mode, _, _ in MODES}
    walls: dict[str, list[float]] = {mode: [] for mode in modes}
    for entry in data["rounds"]:
        walls[entry["mode"]].append(entry["wall_s"])
        for cell, got in entry["cells"].items():
            modes[entry["mode"]].setdefault(cell, []).append(got)
    lines = [
        f"Measured by `benchmarks/hosts.py run` ({len(walls['loopback'])} rounds each, in turn, medians; "
        f"{data['machine']}, the namespaces sharing them):",
        "",
        "| cell | rps loopback | rps hosts | gen busy loopback | gen busy hosts | Little loopback | Little hosts "
        "| test s loopback | test s hosts | SSH path per cell |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in modes["loopback"]:
        a, b = modes["loopback"][cell], modes["hosts"].get(cell, [])
        if not b:
            continue

        def m(rows: list[dict], key: str) -> float:
            return _median([r[key] for r in rows])

        sat = lambda rows: " SAT" if sum(r["saturated"] for r in rows) * 2 > len(rows) else ""  # noqa: E731
        lines.append(
            f"| {cell} | {m(a, 'rps'):,.0f} | {m(b, 'rps'):,.0f} | {m(a, 'busy_pct'):.0f}%{sat(a)} "
            f"| {m(b, 'busy_pct'):.0f}%{sat(b)} | {m(a, 'littles'):.3f} | {m(b, 'littles'):.3f} "
            f"| {m(a, 'test_s'):.1f} | {m(b, 'test_s'):.1f} | {m(b, 'test_s') - m(a, 'test_s'):+.1f} s |"
        )
    if walls["server"]:
        apart, there = _median(walls["hosts"]), _median(walls["server"])
        lines += [
            "",
            "The whole session (the four cells above), wall time from the command to its exit:",
            "",
            "| on this machine (loopback) | the session on the load host (apart) | the session on the server host "
            "| apart less on the server host |",
            "|---|---|---|---|",
            f"| {_median(walls['loopback']):.1f} s | {apart:.1f} s | {there:.1f} s | {apart - there:+.1f} s |",
        ]
    lines += [
        "",
        "locust (aiohttp, the book site, 50 users) by load hosts, a worker per host:",
        "",
        "| load hosts | rps | busiest host | saturated | Little | test s |",
        "|---|---|---|---|---|---|",
    ]
    for load, entry in data["locust"].items():
        for _, got in entry["cells"].items():
            busiest = max((h["busy_pct"] for h in got["hosts"]), default=got["busy_pct"])
            lines.append(
                f"| {load} | {got['rps']:,.0f} | {busiest:.0f}% | {'yes' if got['saturated'] else 'no'} "
                f"| {got['littles']:.3f} | {got['test_s']:.1f} |"
            )
    return "\n".join(lines) + "\n"


def render(write: bool = True) -> dict[Path, str]:
    """docs/hosts.md with its block rendered from the results file; written when ``write``."""
    return rewrite(DOC, "hosts", table(json.loads(RESULTS.read_text())), write)


def main() -> None:
    if sys.argv[1:] == ["render"]:
        render()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["run"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    run(args.rounds, args.out)
    render()


if __name__ == "__main__":
    main()
