"""A slice of the default run at two commits, to show a change that should not change behaviour did not.

    flock -x /tmp/serverbench-load.lock .venv/bin/python benchmarks/refs_slice.py 01254cb 154183d --rounds 3

Each commit is cloned fresh from this repository (with ../shared beside it) and set up by its own ``./run`` (its
installs, then one unmeasured run of the slice).  Then the slice runs ``--rounds`` times per commit, interleaved
(A B A B ...), each run alone: timed, the perf suite's ``tests/perf`` on the README's first example's cells
(``--perf-variants gunicorn-sync-w2,aiohttp --perf-workloads json``); counted, ``pytest tests/cost -m cost`` on the same
variants, once per commit (instructions do not need the machine to themselves, but they are run in turn too).
Only the tests folders are collected, so a commit whose unit tests do not import (a half-merged move) still runs.

The summary goes to ``--out`` (default benchmarks/results/refs-slice.json): per cell, each commit's throughput per
round and the ratio of the medians (B/A), the flags each run raised, and the counted instructions per request and
their ratio.  Time: about 6 minutes with the tools installed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLICE = ["--perf-variants", "gunicorn-sync-w2,aiohttp", "--perf-workloads", "json", "-p", "no:cacheprovider"]


def clone(ref: str, top: Path) -> Path:
    """A fresh clone of this repository at ``ref`` in ``top``, with ../shared beside it."""
    top.mkdir(parents=True)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        shutil.copytree(shared, top / "shared")
    work = top / "serverbench"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "checkout", "-q", ref], check=True)
    return work


def run(work: Path, argv: list[str], log: Path) -> int:
    with open(log, "wb") as out:
        return subprocess.run(argv, cwd=work, stdout=out, stderr=subprocess.STDOUT).returncode


def cells(records: Path, section: str = "results") -> dict[str, dict]:
    """The records file's cells by key: throughput and flag names (timed), or instructions per request (counted)."""
    data = json.loads(records.read_text())
    found = {}
    for r in data.get(section, []):
        key = f"{r['variant']}/{r['app']}/{r['workload']}"
        if section == "cost":
            found[key] = {"instructions_per_request": r["instructions_per_request"]}
        else:
            found[f"{key}/{r['test']}"] = {"rps": r["rps"], "flags": sorted(f["name"] for f in r.get("flags", []))}
    return found


def compare(timed: dict[str, list[dict[str, dict]]], counted: dict[str, dict[str, dict]], refs: list[str]) -> dict:
    """Per timed cell each commit's rates by round and B/A of the medians; per counted cell each commit's
    instructions per request and B/A."""
    a, b = refs
    out: dict = {"timed": {}, "counted": {}}
    for key in sorted({k for rounds in timed.values() for run in rounds for k in run}):
        rates = {ref: [run[key]["rps"] for run in timed[ref] if key in run] for ref in refs}
        medians = {ref: statistics.median(v) for ref, v in rates.items() if v}
        out["timed"][key] = {
            "rps": {ref: [round(x, 1) for x in v] for ref, v in rates.items()},
            "flags": {ref: [run[key]["flags"] for run in timed[ref] if key in run] for ref in refs},
            "ratio": round(medians[b] / medians[a], 3) if a in medians and b in medians else None,
        }
    for key in sorted({k for c in counted.values() for k in c}):
        ipr = {ref: counted[ref][key]["instructions_per_request"] for ref in refs if key in counted[ref]}
        out["counted"][key] = {
            "instructions_per_request": ipr,
            "ratio": round(ipr[b] / ipr[a], 4) if a in ipr and b in ipr else None,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/refs_slice.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="the commit before (A)")
    parser.add_argument("b", help="the commit after (B)")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs per commit, interleaved (default 3)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "refs-slice.json")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    refs = [args.a, args.b]
    top = Path(tempfile.mkdtemp(prefix="refs-slice-"))
    logs = top / "logs"
    logs.mkdir()
    works = {ref: clone(ref, top / f"clone-{i}") for i, ref in enumerate(refs)}
    for ref, work in works.items():
        if run(work, ["./run", "perf", "tests/perf", *SLICE], logs / f"{ref}-setup.log") != 0:
            raise SystemExit(f"{ref}: ./run perf failed while setting up; see {logs / f'{ref}-setup.log'}")
    timed: dict[str, list[dict]] = {ref: [] for ref in refs}
    for n in range(1, args.rounds + 1):
        for ref, work in works.items():
            records = top / f"{ref}-{n}.json"
            status = run(
                work, ["./run", "perf", "tests/perf", *SLICE, "--perf-json", str(records)], logs / f"{ref}-{n}.log"
            )
            if status != 0:
                raise SystemExit(f"{ref}: round {n} failed (exit {status}); see {logs / f'{ref}-{n}.log'}")
            timed[ref].append(cells(records))
            print(
                f"round {n} {ref}: " + ", ".join(f"{k} {v['rps']:.0f}" for k, v in timed[ref][-1].items()), flush=True
            )
    counted = {}
    for ref, work in works.items():
        records = top / f"{ref}-cost.json"
        python = str(work / ".venv" / "bin" / "python")
        argv = [python, "-m", "pytest", "tests/cost", "-m", "cost", *SLICE, "--perf-json", str(records)]
        if run(work, argv, logs / f"{ref}-cost.log") != 0:
            raise SystemExit(f"{ref}: the counted run failed; see {logs / f'{ref}-cost.log'}")
        counted[ref] = cells(records, "cost")
    result = {
        "date": dt.date.today().isoformat(),
        "refs": refs,
        "rounds": args.rounds,
        "command": "benchmarks/refs_slice.py " + " ".join(sys.argv[1:] if argv is None else argv),
        **compare(timed, counted, refs),
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    for key, c in result["timed"].items():
        print(f"timed {key}: {c['rps']} B/A {c['ratio']}")
    for key, c in result["counted"].items():
        print(f"counted {key}: {c['instructions_per_request']} B/A {c['ratio']}")
    shutil.rmtree(top)
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
