"""Harness overhead: rps the suite reports vs rps of wrk run by hand, same server, same session.

    .venv/bin/python benchmarks/harness_overhead.py [--pairs 5] [--duration 5]

Starts gunicorn sync -w 2 once, then alternates (counterbalanced AB/BA) a full suite run
against it (``pytest -m perf --perf-target URL --perf-target-pid PID``: verification, warm-up,
the Lua reporter, the CPU sampler, the record) with a plain ``wrk -t2 -c64 -d5s URL/json``.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from serverbench.catalog.variants import registry
from serverbench.drivers.wrk import WrkDriver
from serverbench.measure.serving.servers import start_variant
from serverbench.processes.executors import run_generator

ROOT = Path(__file__).resolve().parents[1]


def suite_rps(url: str, pid: int, duration: int, connections: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-m",
            "perf",
            str(ROOT / "tests/perf/test_throughput.py"),
            "-q",
            "-p",
            "no:cacheprovider",
            f"--perf-target={url}",
            f"--perf-target-pid={pid}",
            "--perf-workloads=json",
            f"--perf-connections={connections}",
            f"--perf-duration={duration}",
            f"--perf-json={out}",
            f"--perf-baseline-dir={tmp}",
        ]
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
        return json.loads(out.read_text())["results"][0]["rps"]


def wrk_by_hand(url: str, duration: int, connections: int) -> float:
    run = run_generator(
        [WrkDriver().binary, "-t2", f"-c{connections}", f"-d{duration}s", url + "/json"], timeout=duration + 30
    )
    return float(re.search(r"Requests/sec:\s+([\d.]+)", run.stdout).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--connections", type=int, default=64)
    args = parser.parse_args()
    server = start_variant(registry()["gunicorn-sync-w2"], apps_dir=ROOT / "apps")
    try:
        wrk_by_hand(server.url, 2, args.connections)  # warm the server once before the first pair
        rows = []
        started = time.monotonic()
        for i in range(args.pairs):
            order = ("suite", "wrk") if i % 2 == 0 else ("wrk", "suite")
            got = {}
            for arm in order:
                got[arm] = (
                    suite_rps(server.url, server.pid, args.duration, args.connections)
                    if arm == "suite"
                    else wrk_by_hand(server.url, args.duration, args.connections)
                )
            rows.append((order[0], got["suite"], got["wrk"], got["suite"] / got["wrk"]))
            print(
                f"pair {i + 1} ({order[0]} first): suite {got['suite']:,.0f} rps, wrk by hand {got['wrk']:,.0f} rps, "
                f"ratio {got['suite'] / got['wrk']:.3f}",
                flush=True,
            )
        ratios = [r[3] for r in rows]
        print(
            f"median ratio {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}) "
            f"over {len(rows)} pairs in {time.monotonic() - started:.0f} s; target >= 0.95"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
