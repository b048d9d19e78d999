"""The default `./run perf` census (issue 12): failures with their messages and the consistency flags per cell.

    ./run perf --perf-json before.json            # on a fresh clone
    .venv/bin/python benchmarks/default_run.py before.json [after.json] > census.md

Prints, per file: the failures (first line of each message), the flags raised per variant and workload,
and how many cells carry at least one flag.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from serverbench.records import results as results_file


def census(path: Path) -> str:
    run = results_file.read(path)
    flagged = {s.result.key: s.flags for s in run.results if s.flags}
    lines = [
        f"## {path.name}: {len(run.results)} results, {len(run.failures)} failures, "
        f"{len(flagged)} cells with at least one flag",
        "",
    ]
    for f in run.failures:
        lines.append(f"- FAILED {f.variant}/{f.app}/{f.workload}/c{f.connections}: {f.message.splitlines()[0][:220]}")
    counts = Counter(name for names in flagged.values() for name in names)
    lines += ["", "| flag | cells |", "|---|---:|", *(f"| {n} | {c} |" for n, c in counts.most_common()), ""]
    lines += ["| cell | flags |", "|---|---|"]
    lines += [f"| {key.split('::', 1)[-1]} | {' '.join(names)} |" for key, names in sorted(flagged.items())]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("\n".join(census(Path(p)) for p in sys.argv[1:]))
