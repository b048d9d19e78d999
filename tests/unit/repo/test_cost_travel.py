"""benchmarks/cost_travel.py: docs/lab/cost.md's table of counts across two checkout paths is rendered from its results
file."""

from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_travel_counts_are_the_rendered_ones():
    """docs/lab/cost.md's cost-travel block is what the results file renders (no figure typed by hand)."""
    stale = stale_renders(script("cost_travel.py"))
    assert not stale, f"{stale}: run `python benchmarks/cost_travel.py render` and commit the result"


def test_drift_and_spread_read_the_medians_and_the_range():
    """Drift compares the clones' medians; spread is a clone's range over its median."""
    travel = script("cost_travel.py")
    entry = {"short": [100.0, 101.0, 99.0], "long": [102.0, 102.0, 103.0]}
    assert round(travel.drift(entry), 6) == 0.02
    assert round(travel.spread(entry["short"]), 6) == 0.02
