"""The fault census's figures (docs/lab/robustness.md), rendered from one file, not typed in.

    # the census as docs/lab/robustness.md writes it, its output kept (-s prints one JSON row per moment):
    flock -x /tmp/serverbench-load.lock .venv/bin/python -m pytest tests/integration/sessions/test_fault_census.py \\
        -m "census or not census" -s -p no:cacheprovider | tee census.log
    # its rows and its summary line merged into benchmarks/results/fault-census.json as the run shown:
    .venv/bin/python benchmarks/fault_census.py record census.log --as after --commit "$(git rev-parse --short HEAD)"
    # docs/lab/robustness.md's block, from benchmarks/results/fault-census.json:
    .venv/bin/python benchmarks/fault_census.py render

The file holds two runs: ``after`` (the census of the code as it is: its date, commit, summary and one row per
moment) and ``before`` (the same census with the executors, records and gate of the commit before the fixes: what it
left, per moment).  ``render`` rewrites the block between ``<!-- BEGIN MEASURED: fault-census ... -->`` and its END;
a unit test re-renders and compares (tests/unit/repo/test_fault_census.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "fault-census.json"
DOC = ROOT / "docs" / "lab" / "robustness.md"
CENSUS = ROOT / "tests" / "integration" / "sessions" / "test_fault_census.py"
SUMMARY = re.compile(r"=+ (?P<counts>[^=]*?) in (?P<s>[\d.]+)s")
FIELDS = ("moment", "phase", "at_s", "exit", "left", "records", "baseline", "wrk_seen")  # wrk_seen: the phase hit


def moments() -> list[str]:
    """The census's moments in the order its MOMENTS list names them (its rows print in the order they ran)."""
    return re.findall(r'Moment\(\s*"([^"]+)"', CENSUS.read_text())


def parse(log: str) -> dict:
    """A census's pytest output (-s): its rows (one JSON object per interrupted moment, in the census's order; then
    those of the tests that print no timing: SIGKILL of pytest, the live gate's signals), counts and seconds."""
    rows, others = [], []
    for line in log.splitlines():
        start = line.find('{"moment": ')  # -s prints a row after pytest's own text on the same line
        if start >= 0:
            row = json.loads(line[start:])
            if "at_s" in row:
                rows.append({k: row[k] for k in FIELDS})
            else:
                others.append(
                    {"moment": row["moment"], "phase": row["phase"], "exit": row.get("exit"), "left": row["left"]}
                )
    summary = next((m for m in map(SUMMARY.search, reversed(log.splitlines())) if m), None)
    if not rows or summary is None:
        raise SystemExit(
            "no census rows or no pytest summary line in the log: run the census with -s and keep its whole output"
        )
    order = {name: n for n, name in enumerate(moments())}
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|error|errors|skipped)", summary["counts"])}
    return {
        "passed": counts.get("passed", 0),
        "failed": counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0),
        "seconds": round(float(summary["s"])),
        "rows": sorted(rows, key=lambda r: order.get(r["moment"], len(order))),
        "others": others,
    }


def record(log: Path, name: str, commit: str, date: str) -> dict:
    """Merge one census's figures into the results file under ``name``."""
    run = {"date": date, "commit": commit, **parse(log.read_text(errors="replace"))}
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"runs": {}}
    data["runs"][name] = run
    RESULTS.write_text(json.dumps(data, indent=1) + "\n")
    return run


def render_block(data: dict) -> str:
    after, before = data["runs"]["after"], data["runs"].get("before", {})
    left_before = before.get("left", {})
    lines = [
        f"The census, {after['date']} on the 2-core machine, at {after['commit']} ({after['passed']} passed"
        + (f", {after['failed']} failed" if after["failed"] else "")
        + f', {after["seconds"]} s). "Before the fixes" is the same census, {before.get("date", "not run")}, with the '
        f"code of {before.get('commit', 'the commit before the fixes')} for executors, records and gate (`PYTHONPATH` "
        'pointing at a copy). Exit 2 is pytest\'s "interrupted"; -2 means the second signal, or one during teardown, '
        "ended the interpreter (the exit sweep still stopped everything).",
        "",
        "| # | moment (SIGINT unless said) | phase | at s | exit | left before the fixes | left after | records | baseline |",
        "|---:|---|---|---:|---:|---|---|---|---|",
    ]
    for number, row in enumerate(after["rows"] + after["others"], 1):
        at, records, baseline = (row.get(k, "") for k in ("at_s", "records", "baseline"))
        lines.append(
            f"| {number} | {row['moment']} | {row['phase']} | {at} | {'' if row['exit'] is None else row['exit']} "
            f"| {left_before.get(row['moment'], '')} | {len(row['left'])} | {records} | {baseline} |"
        )
    return "\n".join(lines) + "\n"


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/robustness.md with its fault-census block rendered from the results file; written when ``write``."""
    return rewrite(DOC, "fault-census", render_block(json.loads(RESULTS.read_text())), write)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/fault_census.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="merge a census's pytest output (-s) into benchmarks/results/fault-census.json")
    r.add_argument("log", type=Path, help="the census's whole pytest output, run with -s")
    r.add_argument("--as", dest="name", default="after", help="the run's name (default: after, the one shown)")
    r.add_argument("--commit", required=True, help="the commit the census ran at")
    r.add_argument("--date", default=dt.date.today().isoformat(), help="the day it ran (default: today)")
    sub.add_parser("render", help="rewrite docs/lab/robustness.md's block from benchmarks/results/fault-census.json")
    args = parser.parse_args(argv)
    if args.command == "render":
        render()
        return 0
    run = record(args.log, args.name, args.commit, args.date)
    print(f"{args.name}: {len(run['rows'])} rows, {run['passed']} passed, {run['failed']} failed, {run['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
