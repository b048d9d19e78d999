"""Consecutive `pytest -n 2` runs of the server-starting tests: failures and port collisions per run.

    .venv/bin/python benchmarks/xdist_ports.py --runs 50 --lock /tmp/serverbench-load.lock --hold 270 \
        --out benchmarks/results/xdist-ports.json
    .venv/bin/python benchmarks/xdist_ports.py --table benchmarks/results/xdist-ports.json

Each run is one `pytest -n 2` of TESTS, about 20 s here: each worker starts Redis, MongoDB and
nginx, server variants (some on a port taken on purpose, one killed mid-run), wrk, and
pytester sessions that start their own servers from the worker's ports.  With ``--lock`` the
runs hold that file exclusively (``flock``), a batch of runs at a time for at most ``--hold``
seconds, so other load on the machine runs between batches but never inside a run.  A run's
record keeps its exit status, its outcome counts, its wall time and every output line that
names a port already taken; runs are appended to the JSON file, so batches add up.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVERS = "tests/integration/servers/test_servers.py::"
TESTS = [
    "tests/integration/backends/test_backends.py::test_mongo_starts_seeded_counts_queries_and_stops",
    "tests/integration/backends/test_backends.py::test_upstream_answers_after_100_ms_and_counts_requests",
    "tests/integration/backends/test_backends.py::test_unreachable_upstream_url_names_the_fix",
    *(
        SERVERS + name
        for name in (
            "test_start_stop_leaves_no_process",
            "test_port_taken_is_reported_with_its_owner",
            "test_killed_server_mid_run_is_reported",
            "test_wrong_answer_fails_verification_with_a_diff",
            "test_redis_proc_serves_the_seeded_value_and_stops",
            "test_unreachable_redis_url_names_the_fix",
            "test_generator_cpu_is_measured",
            *(
                f"test_every_variant_honours_the_contract[{v}]"
                for v in ("gunicorn-sync-w2", "uvicorn", "aiohttp", "tornado")
            ),
        )
    ),
    "tests/integration/sessions/test_plugin.py::test_perf_target_drives_an_external_server",
    "tests/integration/sessions/test_plugin.py::test_missing_baseline_is_reported_not_silent",
]
# What a bind on a taken port prints: the OS error (Python, nginx, redis, node), and serverbench's
# own check before a start.  The one test that takes a port on purpose passes without printing it.
COLLISION = re.compile(
    r"address already in use|EADDRINUSE|Errno 98|already in use by pid|bind\(\) to .* failed"
    r"|could not create server tcp listening socket",
    re.IGNORECASE,
)
PAUSE_S = 15
SUMMARY = re.compile(r"\d+ (passed|failed|errors?|skipped)\b.* in [\d.]+s")
OUTCOME = re.compile(r"(\d+) (passed|failed|errors?|skipped|deselected)")


def one_run(tests: list[str]) -> dict:
    argv = [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider", "-rfE", *tests]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    summary = next((line for line in reversed(output.splitlines()) if SUMMARY.search(line)), "")
    counts = {kind.rstrip("s") if kind.startswith("error") else kind: int(n) for n, kind in OUTCOME.findall(summary)}
    took = re.search(r" in ([\d.]+)s", summary)
    return {
        "exit": done.returncode,
        "counts": counts,
        "pytest_s": float(took.group(1)) if took else None,
        "wall_s": round(seconds, 1),
        "collisions": [line for line in output.splitlines() if COLLISION.search(line)],
        "failures": [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))],
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def batches(runs: int, lock: Path | None, hold_s: float) -> Iterator[int]:
    """Yield once per run; with a lock, hold it for a batch of runs that fits in ``hold_s`` (one run at least)."""
    done, longest = 0, 0.0
    while done < runs:
        with open(lock, "a") if lock is not None else open(os.devnull) as held:
            if lock is not None:
                fcntl.flock(held, fcntl.LOCK_EX)
            taken = time.monotonic()
            while done < runs:
                started = time.monotonic()
                yield done
                done, longest = done + 1, max(longest, time.monotonic() - started)
                if lock is not None and time.monotonic() - taken + longest > hold_s:
                    break  # closing the file releases the lock
        if lock is not None and done < runs:
            time.sleep(PAUSE_S)  # flock is not fair: the waiters get the lock before the next batch asks again


def run(runs: int, tests: list[str], lock: Path | None, hold_s: float, out: Path) -> None:
    records = json.loads(out.read_text()) if out.exists() else []
    for _ in batches(runs, lock, hold_s):
        record = one_run(tests)
        records.append(record)
        out.write_text(json.dumps(records, indent=1) + "\n")
        print(
            f"run {len(records)} ({record['timestamp']}): exit {record['exit']} {record['counts']} in "
            f"{record['pytest_s']} s, {len(record['collisions'])} port line(s)",
            flush=True,
        )
        for line in record["failures"] + record["collisions"]:
            print("   ", line[:200], flush=True)


def table(path: Path) -> str:
    records = json.loads(path.read_text())
    failed = [i for i, r in enumerate(records, 1) if r["exit"] != 0]
    collided = [i for i, r in enumerate(records, 1) if r["collisions"]]
    times = sorted(r["pytest_s"] for r in records if r["pytest_s"] is not None)
    tests = sum(n for r in records for kind, n in r["counts"].items() if kind != "deselected")
    return "\n".join(
        [
            f"runs: {len(records)} (`pytest -n 2`), tests run in all: {tests}",
            f"runs with a failure or error: {len(failed)} {failed if failed else ''}".rstrip(),
            f"runs with a port collision line: {len(collided)} {collided if collided else ''}".rstrip(),
            f"pytest wall time per run: median {times[len(times) // 2]:.1f} s, min {times[0]:.1f} s, max {times[-1]:.1f} s"
            if times
            else "no timed run",
        ]
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--lock", type=Path, help="hold this file exclusively (flock) while running")
    parser.add_argument("--hold", type=float, default=270.0, help="seconds to hold the lock at most per batch")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/xdist-ports.json")
    parser.add_argument("--table", type=Path)
    parser.add_argument("tests", nargs="*", default=TESTS)
    args = parser.parse_args(argv)
    if args.table:
        print(table(args.table))
        return
    run(args.runs, args.tests, args.lock, args.hold, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
