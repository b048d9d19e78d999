"""Does a server's memory keep growing under load?  A robust slope of its PSS over a soak, after warm-up.

Pure: it reads the samples a record carries (``memory.series``: seconds, the tree's PSS) and the
requests the window served.  The slope is Theil-Sen's (the median of every pair's slope), so a
collector's sawtooth, an arena handed back or a single stalled sample moves it little; its 95%
interval comes with it.  Growth is expressed per 10,000 requests (the load's own throughput converts
seconds to requests), so a slow server and a fast one are held to the same leak per request.

A cell *grows* when the interval's lower end is above the tolerance: it keeps growing, confidently,
faster than the tolerance allows.  The first ``warmup_fraction`` of the window is left out: caches,
connection pools and the allocator's first arenas fill there (docs/memory.md has the figures).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

TOLERANCE_MB_PER_10K = 0.25  # 25 bytes a request; the smallest leak knob measured (256 B) grows ~3 MB per 10k
WARMUP_FRACTION = 0.25
MIN_SAMPLES = 8
SOAK_SAMPLES = 40  # a window with this many samples (10 s at the sampler's 0.25 s) is long enough to judge


@dataclass(frozen=True)
class Growth:
    """The fitted growth of one window: MB per 10,000 requests, its 95% interval, and the verdict."""

    slope: float | None  # MB per 10k requests; None: too few samples after warm-up
    low: float | None
    high: float | None
    samples: int
    tolerance: float

    @property
    def verdict(self) -> str:
        if self.slope is None or self.low is None:
            return "unknown"
        return "grows" if self.low > self.tolerance else "flat"

    @property
    def message(self) -> str:
        if self.slope is None:
            return f"too few memory samples after warm-up ({self.samples}, at least {MIN_SAMPLES} needed)"
        return (f"PSS grew {self.slope:+.3f} MB per 10,000 requests (95% interval {self.low:+.3f} to "
                f"{self.high:+.3f}), tolerance {self.tolerance:g}: {self.verdict}")

    def to_record(self) -> dict[str, Any]:
        return {"slope_mb_per_10k": self.slope, "low": self.low, "high": self.high, "samples": self.samples,
                "tolerance": self.tolerance, "verdict": self.verdict}


def growth(t_s: Sequence[float], pss_mb: Sequence[float | None], requests: int, duration_s: float,
           tolerance: float = TOLERANCE_MB_PER_10K, warmup_fraction: float = WARMUP_FRACTION) -> Growth:
    """Theil-Sen slope of PSS against time after the first ``warmup_fraction`` of the samples' span, in MB
    per 10,000 requests at the window's mean throughput (``requests`` over ``duration_s``)."""
    points = [(t, y) for t, y in zip(t_s, pss_mb) if y is not None]
    if points:
        start = points[0][0] + warmup_fraction * (points[-1][0] - points[0][0])
        points = [(t, y) for t, y in points if t >= start]
    rps = requests / duration_s if duration_s > 0 else 0.0
    if len(points) < MIN_SAMPLES or rps <= 0:
        return Growth(None, None, None, len(points), tolerance)
    from scipy import stats  # imported when used: scipy slows every start, and most windows are not soaks

    xs, ys = zip(*points)
    slope, _, low, high = stats.theilslopes(ys, xs, alpha=0.95)
    per_10k = 10_000 / rps  # seconds that 10,000 requests take
    return Growth(round(float(slope) * per_10k, 4), round(float(low) * per_10k, 4), round(float(high) * per_10k, 4),
                  len(points), tolerance)


def record_growth(rec: Mapping[str, Any], tolerance: float = TOLERANCE_MB_PER_10K) -> Growth:
    """The growth of a stored record's window (unknown when it carries no memory samples)."""
    series = (rec.get("memory") or {}).get("series") or {}
    return growth(series.get("t_s") or (), series.get("pss_mb") or (), int(rec.get("requests") or 0),
                  float(rec.get("duration_s") or 0.0), tolerance)


def per_connection_kb(idle_pss_mb: float, held_pss_mb: float, held: int) -> float | None:
    """What each held connection costs: the tree's PSS rise over the idle server's, per connection, in KB."""
    return None if held <= 0 else round((held_pss_mb - idle_pss_mb) * 1024 / held, 2)
