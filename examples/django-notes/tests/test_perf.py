"""The notes site's endpoints under every server of perf_variants (pyproject.toml)."""

import pytest


@pytest.mark.perf
def test_throughput(perf_trial):
    """Each endpoint keeps its stored baseline's throughput, with no errors."""
    result = perf_trial()
    assert result.requests > 0, f"{result.key}: no request completed"
