"""Change points in a stored history of one cell (e.g. nightly runs of main).  Judgement only, pure.

A stored number from another time cannot gate at 5-10% on a shared machine (the same sweep moved
a median 6.5% in 20 minutes here), but a *sustained* shift across many runs can still be found:
binary segmentation, in the spirit of the e-divisive detectors used on MongoDB's and others' CI
histories.  At each step the split that best separates the segment (smallest two-sided Mann-Whitney
p of "before" vs "after") is kept when that p, Bonferroni-corrected for the splits tried, is below
``alpha`` AND the medians differ by at least ``min_effect``; both halves are then searched again.
When no single split qualifies, the interval that best differs from the rest of the segment is
tried the same way (a regression that was later fixed is two change points, which one split misses), and its
two ends are placed where the levels change (the interval whose runs sit closest to their levels).
Rank statistics make one wild run (a neighbour stealing the CPU) unable to create a change alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class ChangePoint:
    index: int  # first run of the new level
    before: float  # median of the segment before
    after: float  # median of the segment after
    p: float  # corrected p of the split

    @property
    def change(self) -> float:
        return self.after / self.before - 1.0


def change_points(
    values: Sequence[float], *, alpha: float = 0.01, min_effect: float = 0.10, min_segment: int = 4
) -> list[ChangePoint]:
    """Sustained level shifts in ``values`` (positive numbers in time order), earliest first."""
    if not (0 < alpha < 1) or not (0 <= min_effect < 1) or not (isinstance(min_segment, int) and min_segment >= 2):
        raise ValueError(
            f"alpha={alpha!r} must be in (0, 1), min_effect={min_effect!r} in [0, 1), "
            f"min_segment={min_segment!r} an integer >= 2"
        )
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or not np.all(np.isfinite(x)) or np.any(x <= 0):
        raise ValueError("values must be a 1-D sequence of finite numbers > 0 (e.g. rps of each run)")
    found: list[ChangePoint] = []
    _split(x, 0, len(x), alpha, min_effect, min_segment, found)
    return sorted(found, key=lambda c: c.index)


def _mw(a: np.ndarray, b: np.ndarray) -> float:
    return float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)


def _spread(v: np.ndarray) -> float:
    """Total absolute deviation of ``v`` from its median: how far its runs sit from one level."""
    return float(np.abs(v - np.median(v)).sum())


def _big(before: float, after: float, min_effect: float) -> bool:
    return abs(math.log(after / before)) >= math.log1p(min_effect)


def _split(x: np.ndarray, lo: int, hi: int, alpha: float, min_effect: float, m: int, out: list[ChangePoint]) -> None:
    """One step: the best single split of x[lo:hi]; failing that, the best interval that differs from the
    rest (a dip that recovered); recurse into the pieces."""
    splits = range(lo + m, hi - m + 1)
    if len(splits) == 0 or np.ptp(x[lo:hi]) == 0:
        return
    p, k = min((_mw(x[lo:k], x[k:hi]), k) for k in splits)
    p = min(1.0, p * len(splits))
    before, after = float(np.median(x[lo:k])), float(np.median(x[k:hi]))
    if p < alpha and _big(before, after, min_effect):
        out.append(ChangePoint(k, before, after, p))
        _split(x, lo, k, alpha, min_effect, m, out)
        _split(x, k, hi, alpha, min_effect, m, out)
        return
    intervals = [(i, j) for i in range(lo + 1, hi) for j in range(i + m, hi) if (i - lo) + (hi - j) >= m]
    if not intervals:
        return
    rest = lambda i, j: np.concatenate([x[lo:i], x[j:hi]])  # noqa: E731
    p, i, j = min((_mw(x[i:j], rest(i, j)), i, j) for i, j in intervals)
    p = min(1.0, p * len(intervals))
    level, outside = float(np.median(x[i:j])), float(np.median(rest(i, j)))
    if p < alpha and _big(outside, level, min_effect):
        # The rank test finds that an interval differs, not where the levels change: in a dip that drifts, its last
        # runs rank above its first, so the interval of smallest p can end inside the dip.  The ends are those of
        # the interval whose runs, and the rest's, sit closest to their levels; an end that moves less than
        # min_effect is no change.
        i, j = min(intervals, key=lambda ij: _spread(x[ij[0] : ij[1]]) + _spread(rest(*ij)))
        level = float(np.median(x[i:j]))
        for at, a, b in ((i, float(np.median(x[lo:i])), level), (j, level, float(np.median(x[j:hi])))):
            if _big(a, b, min_effect):
                out.append(ChangePoint(at, a, b, p))
        for a, b in ((lo, i), (i, j), (j, hi)):
            _split(x, a, b, alpha, min_effect, m, out)
