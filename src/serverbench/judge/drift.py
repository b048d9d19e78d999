"""Response size drift: an endpoint whose answers grew (or shrank) between the cells of one run.

Every cell of an endpoint should measure the same work.  When a writing endpoint adds rows that a
listing endpoint then returns, later cells measure a bigger page (one run: a listing 100x bigger,
waitress 161 -> 21 rps), and the comparison between servers is void.  The bytes per response each
load generator counted show it; servers differ only by their headers (a few hundred bytes), so a
drift is a change of more than ``RATIO`` *and* more than ``MIN_BYTES``.  Pure: records in, warnings out.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records.schema import Result

RATIO = 1.25  # largest / smallest bytes per response
MIN_BYTES = 256  # servers' own header differences stay below this

FIX = (
    "its state grows between cells (a writing endpoint?): name a reset function in perf_app_reset "
    "(docs/ci.md), or measure the endpoints that write in a run of their own"
)


def size_drift(results: Sequence[Result]) -> list[str]:
    """One warning per endpoint whose bytes per response moved across the run's cells, in run order."""
    by_workload: dict[str, list[tuple[str, float]]] = {}
    for r in results:
        if r.load.requests and r.load.bytes:
            by_workload.setdefault(r.workload, []).append(
                (f"{r.variant}/{r.app}" if r.app else r.variant, r.load.bytes / r.load.requests)
            )
    warnings = []
    for workload, sizes in by_workload.items():
        low, high = min(sizes, key=lambda s: s[1]), max(sizes, key=lambda s: s[1])
        if high[1] > low[1] * RATIO and high[1] - low[1] > MIN_BYTES:
            seen = ", ".join(f"{cell} {size:,.0f}" for cell, size in sizes)
            warnings.append(
                f"WARNING: the responses of {workload} changed size across the run's cells "
                f"(bytes per response: {seen}): {FIX}"
            )
    return warnings
