"""Where a perf run's time went (issue 33): by phase, by workload, the slowest tests, and Little's law over its cells.

    ./run perf -p no:cacheprovider --perf-json run.json                  # on a fresh clone, the machine quiet
    .venv/bin/python benchmarks/time_breakdown.py run.json               # the breakdown, as Markdown
    .venv/bin/python benchmarks/time_breakdown.py run.json --summary benchmarks/results/answers.json --as default-run

Reads the ``phases`` a results file carries (every test's seconds per phase: measure.trials.phases) and its records.
``--summary`` merges the figures under ``--as`` into a small JSON file, from which the docs' figures are rendered
(benchmarks/answers.py render).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

from serverbench.judge.checks import LITTLE_TOLERANCE, littles_law, littles_ratio
from serverbench.measure.trials.phases import PHASES
from serverbench.records import results as results_file
from serverbench.report.phases import cell_label
from serverbench.report.progress import clock


def littles_cause(stored) -> str:
    """The cause a cell outside Little's law names: a flag for a cause outside the harness, else the littles-law
    flag's cause code (judge.checks: OUTSIDE_CAUSES, HARNESS_CAUSES; "unexplained" where the record measured none)."""
    flag = next((f for f in ("syn-drops", "generator-saturated", "at-capacity") if f in stored.flags), None)
    if flag:
        return flag
    flag = littles_law(stored.result)
    return flag.cause if flag is not None and flag.cause is not None else "unexplained"


def figures(path: Path) -> dict:
    """The run's figures: pytest's time by phase and by workload, the slowest tests, the window census."""
    run = results_file.read(path)
    phases = run.phases or {}
    tests = phases.get("by_test") or {}
    workload = {s.result.nodeid: s.result.workload for s in run.results}
    by_phase = {p: round(sum(t.get(p, 0.0) for t in tests.values()), 1) for p in PHASES}
    by_workload: dict[str, float] = defaultdict(float)
    for nodeid, spent in tests.items():
        by_workload[workload.get(nodeid, "no result (skipped)")] += sum(spent.values())
    ratios = []
    for stored in run.results:
        ratio = littles_ratio(stored.result)
        if ratio is not None:
            ratios.append((abs(ratio - 1), ratio, stored))
    outside = [r for r in ratios if r[0] > LITTLE_TOLERANCE]
    causes = Counter(littles_cause(s) for _, _, s in outside)
    precision = [
        s.result.load.precision for s in run.results if s.result.load.precision and s.result.load.precision.get("rps")
    ]
    again = [s for s in run.results if "short_window" in s.result.extra]
    return {
        "results": len(run.results),
        "failures": len(run.failures),
        "pytest_s": round(sum(by_phase.values()), 1),
        "install_s": phases.get("install_s"),
        "by_phase_s": {p: s for p, s in by_phase.items() if s},
        "by_workload_s": {w: round(s, 1) for w, s in sorted(by_workload.items(), key=lambda kv: -kv[1])},
        "slowest": [
            {"test": cell_label(n), "s": round(sum(t.values()), 1)}
            for n, t in sorted(tests.items(), key=lambda kv: -sum(kv[1].values()))[:5]
        ],
        "measured_again": len(again),
        "littles_law": {
            "cells": len(ratios),
            "median": round(statistics.median(r for _, r, _ in ratios), 3) if ratios else None,
            "outside": len(outside),
            "outside_by_cause": dict(causes),
            "worst": [
                {"cell": f"{s.result.variant}/{s.result.workload}", "ratio": round(r, 3), "flags": list(s.flags)}
                for _, r, s in sorted(ratios, key=lambda row: -row[0])[:5]
            ],
        },
        "precision_rps_median": round(statistics.median(p["rps"] for p in precision), 4) if precision else None,
        "imprecise": sum(1 for s in run.results if "imprecise" in s.flags),
    }


def markdown(name: str, f: dict) -> str:
    lines = [
        f"## {name}: {f['results']} results, {f['failures']} failures, pytest {clock(f['pytest_s'])}"
        + (f" after {clock(f['install_s'])} of installs" if f.get("install_s") is not None else ""),
        "",
        "| phase | time | share |",
        "|---|---:|---:|",
        *(
            f"| {p} | {clock(s)} | {100 * s / f['pytest_s']:.0f}% |"
            for p, s in sorted(f["by_phase_s"].items(), key=lambda kv: -kv[1])
        ),
        "",
        "| workload | time |",
        "|---|---:|",
        *(f"| {w} | {clock(s)} |" for w, s in f["by_workload_s"].items()),
        "",
        "Slowest: " + "; ".join(f"{t['test']} {clock(t['s'])}" for t in f["slowest"]),
        f"Measured again (a window that had not converged): {f['measured_again']}; flagged imprecise: {f['imprecise']}; "
        f"median throughput precision ±{100 * (f['precision_rps_median'] or 0):.1f}%",
    ]
    ll = f["littles_law"]
    if ll["cells"]:
        lines.append(
            f"Little's law: {ll['cells']} closed-model cells, median {ll['median']:.2f}, {ll['outside']} outside 5% "
            f"({', '.join(f'{c} {n}' for c, n in ll['outside_by_cause'].items()) or 'none'}); worst: "
            + "; ".join(f"{w['cell']} {w['ratio']:.2f} ({' '.join(w['flags']) or '-'})" for w in ll["worst"])
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--summary", type=Path, help="merge the figures into this JSON file (under --as)")
    parser.add_argument("--as", dest="name", help="the name the figures go under in --summary")
    args = parser.parse_args(argv)
    if args.summary is not None and (args.name is None or len(args.files) != 1):
        parser.error("--summary takes one results file and a name (--as)")
    for path in args.files:
        found = figures(path)
        print(markdown(path.name, found))
        if args.summary is not None:
            data = json.loads(args.summary.read_text()) if args.summary.exists() else {}
            data[args.name] = {"file": path.name, **found}
            args.summary.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
