"""Little's law over a default run (issue 23): for every closed-model cell, rps x mean latency (plus think
time) / connections, and the flags raised, by flag.

    ./run perf --perf-json after.json                       # on a fresh clone
    .venv/bin/python benchmarks/littles_census.py before.json after.json > census.md

Per file: how many closed-model cells, the median ratio, the worst five, how many lie outside 5% (and of
those, how many name a measured cause outside the harness and how many the summary hides as `?`), and
the flags by flag.
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path

from serverbench.judge.checks import LITTLE_TOLERANCE, littles_ratio
from serverbench.records import results as results_file


def census(path: Path) -> str:
    run = results_file.read(path)
    rows = []
    for stored in run.results:
        ratio = littles_ratio(stored.result)
        if ratio is not None:
            rows.append((abs(ratio - 1), ratio, stored))
    flags = Counter(name for s in run.results for name in s.flags)
    lines = [
        f"## {path.name}: {len(run.results)} results, {len(run.failures)} failures, "
        f"{len(rows)} closed-model cells with a ratio",
        "",
    ]
    if rows:
        outside = [row for row in rows if row[0] > LITTLE_TOLERANCE]
        by_driver = Counter(row[2].result.generator.name for row in rows)
        out_driver = Counter(row[2].result.generator.name for row in outside)
        lines.append(
            f"- median ratio {statistics.median(r for _, r, _ in rows):.2f}; outside 5%: {len(outside)} of "
            f"{len(rows)} (" + ", ".join(f"{d} {out_driver[d]} of {n}" for d, n in by_driver.items()) + ")"
        )
        lines.append(
            "- worst five: "
            + "; ".join(
                f"{s.result.variant}/{s.result.workload} c{s.result.connections} {r:.2f} ({' '.join(s.flags) or '-'})"
                for _, r, s in sorted(rows, key=lambda row: -row[0])[:5]
            )
        )
    lines += ["", "| flag | cells |", "|---|---:|", *(f"| {n} | {c} |" for n, c in flags.most_common())]
    for f in run.failures:
        lines.append(f"- FAILED {f.variant}/{f.app}/{f.workload}/c{f.connections}: {f.message.splitlines()[0][:200]}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("\n".join(census(Path(p)) for p in sys.argv[1:]))
