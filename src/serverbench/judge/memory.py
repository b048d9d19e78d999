"""Does a server's memory keep growing under load?  A robust slope of its PSS over a soak, after warm-up.

Pure: it reads the samples a record carries (``memory.series``: seconds, the tree's PSS) and the
requests the window served.  The slope is Theil-Sen's (the median of every pair's slope), so a
collector's sawtooth, an arena handed back or a single stalled sample moves it little; its 95%
interval comes with it.  Growth is expressed per 10,000 requests (the load's own throughput converts
seconds to requests), so a slow server and a fast one are held to the same leak per request.

A cell *grows* when the interval's lower end is above the tolerance: it keeps growing, confidently,
faster than the tolerance allows.  The first ``warmup_fraction`` of the window is left out: caches,
connection pools and the allocator's first arenas fill there (docs/memory.md has the figures).

The same fit judges every column a soak samples (:data:`TOLERANCES`): the Python heap where the server
exposes it, open descriptors, and the sockets among them, each against a tolerance in its own unit.

In the A/B gate, where both arms' windows were long enough to fit (a soak: ``--duration`` of 10 s or
more), :func:`judge_growth` judges the candidate's slope against the base's, pair by pair.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..records.decisions import Decision

if TYPE_CHECKING:  # judge.decision imports scipy, which slows every start; the growth gate imports it when used
    from ..records.decisions import Window
    from ..records.schema import Result
    from .decision import Policy

TOLERANCE_MB_PER_10K = 0.25  # 25 bytes a request; the smallest leak knob measured (256 B) grows ~3 MB per 10k
WARMUP_FRACTION = 0.25
MIN_SAMPLES = 8
# A window is a soak, long enough to judge, when its samples span SOAK_SECONDS: a --duration 10 window less the
# sampler's first and last tick.  Its span and not its count of samples: on a busy machine the sampler falls
# behind its 0.25 s (an 11 s gate window had 38 samples where 44 were due), and a count of 40 then left the
# growth signal out of a whole decision for one window.
SOAK_SECONDS = 9.5
# Each sampled column of ``memory.series``: what it is, its unit, and the growth per 10,000 requests it may
# show.  Heap bytes as PSS.  Blocks: a leaked object is at least one block, often two (a bytearray and its
# buffer), so a leak of one object every ten requests passes and one a request (10,000) does not.
# Descriptors and sockets: one kept per 10,000 requests (a connection leaked on an error path).
TOLERANCES = {
    "pss_mb": ("PSS", "MB", TOLERANCE_MB_PER_10K),
    "heap_malloc_mb": ("heap (malloc)", "MB", TOLERANCE_MB_PER_10K),
    "heap_blocks": ("heap blocks", "blocks", 1000.0),
    "fds": ("open descriptors", "fds", 1.0),
    "sockets": ("sockets", "sockets", 1.0),
}


@dataclass(frozen=True)
class Growth:
    """The fitted growth of one window: MB per 10,000 requests, its 95% interval, and the verdict."""

    slope: float | None  # MB per 10k requests; None: too few samples after warm-up
    low: float | None
    high: float | None
    samples: int
    tolerance: float
    quantity: str = "PSS"
    unit: str = "MB"

    @property
    def verdict(self) -> str:
        if self.slope is None or self.low is None:
            return "unknown"
        return "grows" if self.low > self.tolerance else "flat"

    @property
    def message(self) -> str:
        if self.slope is None:
            return f"too few memory samples after warm-up ({self.samples}, at least {MIN_SAMPLES} needed)"
        return (
            f"{self.quantity} grew {self.slope:+.3f} {self.unit} per 10,000 requests (95% interval "
            f"{self.low:+.3f} to {self.high:+.3f}), tolerance {self.tolerance:g}: {self.verdict}"
        )

    def to_record(self) -> dict[str, Any]:
        return {
            "slope_mb_per_10k": self.slope,
            "low": self.low,
            "high": self.high,
            "samples": self.samples,
            "tolerance": self.tolerance,
            "verdict": self.verdict,  # the slope's key predates other units
            **({"quantity": self.quantity, "unit": self.unit} if self.unit != "MB" else {}),
        }


def growth(
    t_s: Sequence[float],
    pss_mb: Sequence[float | None],
    requests: int,
    duration_s: float,
    tolerance: float = TOLERANCE_MB_PER_10K,
    warmup_fraction: float = WARMUP_FRACTION,
    quantity: str = "PSS",
    unit: str = "MB",
) -> Growth:
    """Theil-Sen slope of PSS (or another sampled ``quantity``) against time after the first
    ``warmup_fraction`` of the samples' span, in ``unit`` per 10,000 requests at the window's mean
    throughput (``requests`` over ``duration_s``)."""
    points = [(t, y) for t, y in zip(t_s, pss_mb) if y is not None]
    if points:
        start = points[0][0] + warmup_fraction * (points[-1][0] - points[0][0])
        points = [(t, y) for t, y in points if t >= start]
    rps = requests / duration_s if duration_s > 0 else 0.0
    if len(points) < MIN_SAMPLES or rps <= 0:
        return Growth(None, None, None, len(points), tolerance, quantity, unit)
    xs, ys = zip(*points)
    if len(set(ys)) == 1:  # not grown at all: scipy's tie-corrected variance is negative when two samples share a time
        slope = low = high = 0.0
    else:
        from scipy import stats  # imported when used: scipy slows every start, and most windows are not soaks

        slope, _, low, high = stats.theilslopes(ys, xs, alpha=0.95)
    per_10k = 10_000 / rps  # seconds that 10,000 requests take
    return Growth(
        round(float(slope) * per_10k, 4),
        round(float(low) * per_10k, 4),
        round(float(high) * per_10k, 4),
        len(points),
        tolerance,
        quantity,
        unit,
    )


def record_growth(rec: Mapping[str, Any], tolerance: float = TOLERANCE_MB_PER_10K) -> Growth:
    """The growth of a stored record's window (unknown when it carries no memory samples)."""
    series = (rec.get("memory") or {}).get("series") or {}
    return growth(
        series.get("t_s") or (),
        series.get("pss_mb") or (),
        int(rec.get("requests") or 0),
        float(rec.get("duration_s") or 0.0),
        tolerance,
    )


def series_growth(series: Mapping[str, Any], requests: int, duration_s: float) -> dict[str, Growth]:
    """The growth of every column of :data:`TOLERANCES` that the samples carry (heap: only where exposed)."""
    return {
        name: growth(
            series.get("t_s") or (), series[name], requests, duration_s, tolerance, quantity=quantity, unit=unit
        )
        for name, (quantity, unit, tolerance) in TOLERANCES.items()
        if any(v is not None for v in series.get(name) or ())
    }


def record_growths(rec: Mapping[str, Any]) -> dict[str, Growth]:
    """:func:`series_growth` of a stored record's window."""
    series = (rec.get("memory") or {}).get("series") or {}
    return series_growth(series, int(rec.get("requests") or 0), float(rec.get("duration_s") or 0.0))


def is_soak(series: Mapping[str, Any]) -> bool:
    """Whether a window's ``memory.series`` spans SOAK_SECONDS (long enough to judge its growth)."""
    t = [x for x in series.get("t_s") or () if x is not None]
    return len(t) >= MIN_SAMPLES and t[-1] - t[0] >= SOAK_SECONDS


def soak_slope(result: Result) -> float | None:
    """A window's PSS growth in MB per 10,000 requests when it is a soak (:func:`is_soak`); None for a
    shorter window or one the fit cannot judge."""
    series = result.memory.get("series") or {}
    if not is_soak(series) or not series.get("pss_mb"):
        return None
    return growth(series.get("t_s") or (), series["pss_mb"], result.requests, result.load.duration_s).slope


def growth_pairs(arms: Sequence[str], windows: Sequence[Window]) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """The A/B gate's growth pairs from a measurement's windows: per block, each arm's PSS slope (the mean
    over its saturated windows in the block), base values then candidate values.  None unless every
    saturated window of both ``arms`` is a soak the fit could judge."""
    by_block: dict[Any, dict[str, list[float | None]]] = {}
    for w in windows:
        if w.phase == "saturated":
            by_block.setdefault(w.block, {}).setdefault(w.arm, []).append(soak_slope(w.result))
    pairs = []
    for block in by_block.values():
        slopes = [block.get(arm) or [None] for arm in arms]
        if any(v is None for arm in slopes for v in arm):
            return None  # one short window: the signal would be judged on some blocks and not others
        pairs.append([sum(arm) / len(arm) for arm in slopes])
    return (tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)) if pairs else None


# The gate's growth signal: the candidate's PSS slope against the base's, pair by pair, in MB per 10,000
# requests.  A difference, not a ratio: a clean server's slope is near zero and either sign.  1.0 MB per
# 10k (100 bytes a request), from A/A figures (docs/memory.md, docs/lab/measurements-history.md): 50 clean soaks on
# five worker models sloped -0.76 to +0.39; two soaks of one variant differed by 1.0 or more twice in 225;
# the simultaneous gate's A/A pairs differed by at most 0.013; the smallest leak knob (256 B) adds +2.7 to +3.7.
GROWTH_MIN_EFFECT = 1.0
GROWTH_UNIT = "MB/10k req"


def _p_worse(d: Any, n: int) -> float:
    """One-sided p that the differences ``d`` are above zero: the larger of the t-test's and Wilcoxon's
    (as the ratio signals, judge.decision); all equal: the Wilcoxon floor on the side of the shift."""
    import numpy as np
    from scipy import stats

    from .signed_rank import signed_rank_p

    if np.ptp(d) == 0:
        return 0.5**n if d[0] > 0 else 1.0
    return max(
        float(stats.ttest_1samp(d, 0.0, alternative="greater").pvalue),
        signed_rank_p(d, "greater"),
    )


def judge_growth(
    base: Sequence[float], cand: Sequence[float], policy: Policy, min_effect: float = GROWTH_MIN_EFFECT
) -> Decision:
    """The gate's growth verdict on paired PSS slopes (MB per 10,000 requests, base and candidate of each pair).

    Regression when the candidate grows faster than the base by at least ``min_effect`` on average,
    significant at the policy's per-cell alpha; improvement the other way; else pass.  Fewer pairs than
    the policy's minimum or than the Wilcoxon floor needs: inconclusive.  ``delta`` and ``ci`` are in MB
    per 10k (the decision's ``unit``), ``dispersion`` the pairs' robust spread in the same unit."""
    import numpy as np
    from scipy import stats

    from .decision import MAD_SCALE, wilcoxon_min_pairs

    d = np.asarray(cand, dtype=float) - np.asarray(base, dtype=float)
    n, alpha = len(d), policy.cell_alpha
    floor = max(policy.min_pairs, wilcoxon_min_pairs(alpha))
    if n < floor:
        return Decision(
            "inconclusive",
            math.nan,
            (math.nan, math.nan),
            math.nan,
            n,
            math.nan,
            False,
            f"growth: {n} soak pairs, at least {floor} needed (windows of 10 s or more in both arms)",
            GROWTH_UNIT,
        )
    mean = float(d.mean())
    half = float(stats.t.ppf(1 - alpha / 2, n - 1) * d.std(ddof=1) / math.sqrt(n))
    ci = (mean - half, mean + half)
    disp = float(MAD_SCALE * np.median(np.abs(d - np.median(d))))
    worse, better = _p_worse(d, n), _p_worse(-d, n)
    said = (
        f"candidate {mean:+.3f} MB per 10k requests against the base (interval {ci[0]:+.3f} to {ci[1]:+.3f}), "
        f"min effect {min_effect:g}, per-cell alpha {alpha:.3g}"
    )
    if worse < alpha and mean >= min_effect:
        verdict, borderline = "regression", ci[0] < min_effect
    elif better < alpha and -mean >= min_effect:
        verdict, borderline = "improvement", ci[1] > -min_effect
    else:
        verdict, borderline = "pass", ci[1] >= min_effect
    return Decision(verdict, mean, ci, worse, n, disp, bool(borderline), f"growth: {said}: {verdict}", GROWTH_UNIT)


def per_connection_kb(idle_pss_mb: float, held_pss_mb: float, held: int) -> float | None:
    """What each held connection costs: the tree's PSS rise over the idle server's, per connection, in KB."""
    return None if held <= 0 else round((held_pss_mb - idle_pss_mb) * 1024 / held, 2)
