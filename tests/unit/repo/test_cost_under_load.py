"""benchmarks/cost_under_load.py: docs/lab/cost.md's table of counts under load is rendered from its results file."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_counts_under_load_are_the_rendered_ones():
    """Rendering docs/lab/cost.md from benchmarks/results/cost-under-load.json changes nothing: no figure typed by hand."""
    stale = stale_renders(script("cost_under_load.py"))
    assert not stale, f"{stale}: run `python benchmarks/cost_under_load.py render` and commit the result"


def test_a_row_gives_the_spread_around_the_median():
    """Range and largest distance are relative to the median of the batch."""
    row = script("cost_under_load.py").table({"x": {"busy": 2, "runs": [100.0, 101.0, 98.0]}})
    assert "| x | 2 | 3 | 100 | 98 | 101 | 3.00% | 2.00% |" in row
