"""Latencies from several generators merged exactly: a count per microsecond, summed, never percentiles averaged.

Each generator keeps every answered request's latency as a count in its microsecond (a sparse histogram: as many
entries as distinct microseconds, a few thousand for a run), so merging is adding counts, and a percentile of the
merged histogram is the nearest-rank percentile of all the requests together: the same number one generator would
have found had it sent them all (at microsecond resolution, finer than any generator here reports).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from .rank import nearest_rank

PERCENTILES = (("p50", 50.0), ("p75", 75.0), ("p90", 90.0), ("p99", 99.0), ("p999", 99.9))


def of_ms(latencies_ms: Iterable[float]) -> Counter:
    """The histogram of latencies given in milliseconds: a count per whole microsecond."""
    return Counter(round(ms * 1000.0) for ms in latencies_ms)


def merged(histograms: Iterable[Mapping]) -> Counter:
    """The sum of histograms (keys may be strings, as read back from JSON)."""
    total: Counter = Counter()
    for histogram in histograms:
        for us, n in histogram.items():
            total[int(us)] += int(n)
    return total


def percentile_ms(histogram: Mapping[int, int], q: float) -> float:
    """The nearest-rank percentile ``q`` (0-100) of the histogram, in ms (0.0 for an empty one)."""
    count = sum(histogram.values())
    if not count:
        return 0.0
    rank, seen = nearest_rank(q, count), 0
    for us in sorted(histogram):
        seen += histogram[us]
        if seen >= rank:
            return us / 1000.0
    return max(histogram) / 1000.0


def latency_ms(histogram: Mapping[int, int]) -> dict[str, float]:
    """The LoadReport's latency fields of a histogram: the percentiles, max, mean and standard deviation, in ms."""
    count = sum(histogram.values())
    if not count:
        return {k: 0.0 for k, _ in PERCENTILES} | {"max": 0.0, "mean": 0.0, "stdev": 0.0}
    mean = sum(us * n for us, n in histogram.items()) / count
    var = sum(n * (us - mean) ** 2 for us, n in histogram.items()) / count
    out = {key: percentile_ms(histogram, q) for key, q in PERCENTILES}
    out.update(max=max(histogram) / 1000.0, mean=mean / 1000.0, stdev=var**0.5 / 1000.0)
    return out
