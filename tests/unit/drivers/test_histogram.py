"""Latency histograms merged exactly (drivers.histogram)."""

from __future__ import annotations

import random

from serverbench.drivers import histogram
from serverbench.drivers.rank import nearest_rank


def _nearest(ordered: list[float], q: float) -> float:
    return ordered[nearest_rank(q, len(ordered)) - 1]


def test_merged_percentiles_equal_those_of_one_histogram_of_all_samples():
    """Samples split over four generators: the merged p50, p99 and p99.9 are those of all the samples together."""
    rng = random.Random(7)
    samples = [round(rng.lognormvariate(1.0, 0.8), 3) for _ in range(20_000)]  # ms, to the microsecond
    parts = [samples[i::4] for i in range(4)]
    merged = histogram.merged(histogram.of_ms(p) for p in parts)
    whole = sorted(samples)
    for key, q in (("p50", 50), ("p99", 99), ("p999", 99.9)):
        assert histogram.percentile_ms(merged, q) == _nearest(whole, q), key
    assert merged == histogram.of_ms(samples)


def test_averaging_the_parts_percentiles_is_not_the_merge():
    """Two generators of unlike latencies: the mean of their p99s is not the p99 of their requests."""
    fast, slow = [1.0] * 990 + [2.0] * 10, [50.0] * 100
    merged = histogram.merged([histogram.of_ms(fast), histogram.of_ms(slow)])
    p99 = histogram.percentile_ms(merged, 99)
    averaged = (
        histogram.percentile_ms(histogram.of_ms(fast), 99) + histogram.percentile_ms(histogram.of_ms(slow), 99)
    ) / 2
    assert p99 == 50.0 and averaged == 25.5


def test_json_keys_merge_and_an_empty_histogram_reads_zero():
    """Keys read back from JSON (strings) merge as numbers; no request gives zeros, not an error."""
    assert histogram.merged([{"1500": 2}, {1500: 1, "3000": 1}]) == {1500: 3, 3000: 1}
    latency = histogram.latency_ms({})
    assert latency["p99"] == 0.0 and latency["mean"] == 0.0


def test_latency_fields_of_a_histogram():
    """Mean, max and standard deviation come from the counts."""
    latency = histogram.latency_ms(histogram.of_ms([1.0, 1.0, 4.0]))
    assert latency["max"] == 4.0 and latency["mean"] == 2.0 and round(latency["stdev"], 6) == round(2**0.5, 6)


def test_a_window_with_no_answered_request_reads_every_latency_field_as_zero():
    """An empty histogram gives each LoadReport latency field, every one 0.0, and its percentile 0.0 too."""
    keys = ("p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev")
    assert histogram.latency_ms({}) == dict.fromkeys(keys, 0.0)
    assert histogram.latency_ms(histogram.merged([{}, {}])) == dict.fromkeys(keys, 0.0)
    assert histogram.percentile_ms({}, 99.0) == 0.0
