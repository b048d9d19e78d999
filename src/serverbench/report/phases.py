"""Where a perf session's time went, for people: seconds per phase summed over the tests, and the slowest tests.

Pure: the phases of each test in (``measure.trials.phases.PhaseClock``, or a results file's ``phases``), lines out.

    where the time went: 14 min 12 s in 182 tests (install 1 min 40 s before pytest)
      window 6 min 02 s (42%) · lead-in 2 min 10 s (15%) · start 1 min 31 s (11%) · ...
      slowest: wsgiref/flask upstream c64 58 s (lead-in 16 s, window 32 s, trail 7 s) · ...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..measure.trials.phases import PHASES
from .progress import clock

SLOWEST = 5


@dataclass(frozen=True)
class Breakdown:
    """Seconds per phase over a session's tests, and its slowest tests with their own phases."""

    tests: int
    total_s: float
    by_phase: Mapping[str, float]
    slowest: tuple[tuple[str, float, Mapping[str, float]], ...]
    install_s: float | None = None
    each: Mapping[str, Mapping[str, float]] | None = None  # every test's phases, kept for the results file

    def to_record(self) -> dict:
        return {
            "tests": self.tests,
            "total_s": round(self.total_s, 2),
            "by_phase_s": {k: round(v, 2) for k, v in self.by_phase.items()},
            "slowest": [
                {"test": name, "total_s": round(total, 2), "by_phase_s": {k: round(v, 2) for k, v in spent.items()}}
                for name, total, spent in self.slowest
            ],
            **({"install_s": round(self.install_s, 1)} if self.install_s is not None else {}),
            **(
                {"by_test": {n: {k: round(v, 3) for k, v in t.items()} for n, t in self.each.items()}}
                if self.each
                else {}
            ),
        }


def breakdown(
    tests: Mapping[str, Mapping[str, float]], install_s: float | None = None, slowest: int = SLOWEST
) -> Breakdown:
    """The phases summed over ``tests`` (each test's seconds per phase) in PHASES order, and the ``slowest`` tests."""
    by_phase = {p: sum(t.get(p, 0.0) for t in tests.values()) for p in PHASES}
    by_phase = {p: s for p, s in by_phase.items() if s > 0}
    totals = sorted(((name, sum(t.values()), t) for name, t in tests.items()), key=lambda x: (-x[1], x[0]))
    return Breakdown(
        len(tests),
        sum(by_phase.values()),
        by_phase,
        tuple((n, s, dict(t)) for n, s, t in totals[:slowest]),
        install_s,
        {n: dict(t) for n, t in tests.items()},
    )


def cell_label(nodeid: str) -> str:
    """A perf test's cell as its parameters name it: ``tests/perf/test_throughput.py::test_throughput[aiohttp-aiohttp-json-c64]``
    gives ``aiohttp-aiohttp-json-c64``."""
    return nodeid.partition("[")[2].rstrip("]") or nodeid


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole > 0 else "-"


def _phases(spent: Mapping[str, float], limit: int = 3) -> str:
    top = sorted(((s, p) for p, s in spent.items() if s >= 1.0), reverse=True)[:limit]
    return ", ".join(f"{p} {clock(s)}" for s, p in top)


def lines(summary: Breakdown, names: Mapping[str, str] | None = None) -> list[str]:
    """The breakdown as text: a head line, the phases by share, the slowest tests (``names``: a label per test)."""
    if not summary.tests:
        return []
    before = f" (install {clock(summary.install_s)} before pytest)" if summary.install_s is not None else ""
    out = [f"where the time went: {clock(summary.total_s)} in {summary.tests} tests{before}"]
    order = sorted(summary.by_phase.items(), key=lambda kv: -kv[1])
    out.append("  " + " · ".join(f"{p} {clock(s)} ({_share(s, summary.total_s)})" for p, s in order))
    names = names or {}
    slow: Sequence[str] = [f"{names.get(n, n)} {clock(s)} ({_phases(spent)})" for n, s, spent in summary.slowest]
    if slow:
        out.append("  slowest: " + " · ".join(slow))
    return out
