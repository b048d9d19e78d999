"""Instructions per request of each endpoint under every server of perf_variants, counted under valgrind
(`pytest -m cost`; store the baselines with `pytest -m cost --perf-save-baseline`)."""
import pytest


@pytest.mark.cost
def test_cost(perf_cost):
    """Each endpoint keeps its stored cost baseline; a rise names the functions it came from."""
    perf_cost()
