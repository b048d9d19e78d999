#!/usr/bin/env python3
"""Where a parallel test run's wall time went: each xdist worker's busy and idle seconds, the time alone tests held
the machine, and the longest waits, from the lines conftest.py writes with SERVERBENCH_TIMELINE=FILE.

    SERVERBENCH_TIMELINE=/tmp/tl.jsonl ./run tests -p no:cacheprovider
    benchmarks/timeline.py /tmp/tl.jsonl [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path


def tests_of(path: Path) -> list[dict]:
    """One row per test: its worker, when its setup started and its teardown ended, and whether it ran alone."""
    rows: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        t = rows.setdefault(
            r["test"], {"test": r["test"], "worker": r["worker"], "start": r["start"], "stop": r["stop"]}
        )
        t["start"], t["stop"] = min(t["start"], r["start"]), max(t["stop"], r["stop"])
        t["alone"] = r["alone"]
    return sorted(rows.values(), key=lambda t: t["start"])


def folder(test: str) -> str:
    """tests/integration/gate/test_x.py::y -> tests/integration/gate; tests/unit/... -> tests/unit."""
    parts = test.split("::")[0].split("/")
    return "/".join(parts[:3] if parts[1] == "integration" else parts[:2])


def summary(tests: list[dict]) -> dict:
    """Wall, each worker's busy and idle seconds, the alone tests' seconds, busy seconds by folder, the longest waits."""
    start, stop = min(t["start"] for t in tests), max(t["stop"] for t in tests)
    workers: dict[str, list[dict]] = defaultdict(list)
    for t in tests:
        workers[t["worker"]].append(t)
    waits = []
    for name, ts in workers.items():
        for before, after in zip(ts, ts[1:]):
            waits.append((round(after["start"] - before["stop"], 1), name, after["test"], after["alone"]))
    busy_by_folder: dict[str, float] = defaultdict(float)
    for t in tests:
        busy_by_folder[folder(t["test"])] += t["stop"] - t["start"]
    return {
        "wall_s": round(stop - start),
        "workers": {
            name: {
                "busy_s": round(sum(t["stop"] - t["start"] for t in ts)),
                "idle_s": round((stop - start) - sum(t["stop"] - t["start"] for t in ts)),
                "tests": len(ts),
            }
            for name, ts in sorted(workers.items())
        },
        "alone_s": round(sum(t["stop"] - t["start"] for t in tests if t["alone"])),
        "busy_by_folder_s": {k: round(v) for k, v in sorted(busy_by_folder.items(), key=lambda kv: -kv[1])},
        "longest_waits": [
            {"s": s, "worker": w, "then": test, "alone": alone}
            for s, w, test, alone in sorted(waits, reverse=True)[:10]
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("timeline", type=Path, help="the file SERVERBENCH_TIMELINE named")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    args = parser.parse_args(argv)
    if not args.timeline.is_file():
        print(
            f"no timeline at {args.timeline}: run the tests with SERVERBENCH_TIMELINE={args.timeline}", file=sys.stderr
        )
        return 2
    result = summary(tests_of(args.timeline))
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
