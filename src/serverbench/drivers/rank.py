"""The nearest rank of a percentile: the drivers that compute their own percentiles (oha's window, locust's buckets)
take the value at rank ceil(q% of n), as locust does."""

from __future__ import annotations


def nearest_rank(q: float, n: int) -> int:
    """ceil(q% of ``n``), at least 1, in whole numbers (q in thousandths of a percent): in floating point 99.9% of 1000
    is 999.0000000000001, a rank too many."""
    return max(1, -(-round(q * 1000) * n // 100_000))
