"""The perf suite: every selected variant × workload × connection count, against its baseline."""

import pytest


@pytest.mark.perf
def test_throughput(perf_trial):
    """The variant serves the workload at the stored baseline's throughput and error rate."""
    result = perf_trial()
    assert result.requests > 0, f"{result.key}: no request completed"
