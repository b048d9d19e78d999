"""The cost suite: every selected cell's instructions per request, against its stored cost baseline."""

import pytest


@pytest.mark.cost
def test_cost(perf_cost):
    """The cell spends no more instructions per request than its cost baseline allows."""
    record = perf_cost()
    assert record.instructions > 0, f"{record.key}: nothing was counted"
