"""benchmarks/mutation_score.py: docs/lab/mutation.md's mutmut figures are rendered from its scores file."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import script, stale_renders


def _script():
    return script("mutation_score.py")


def test_the_committed_figures_are_the_rendered_ones():
    """Rendering docs/lab/mutation.md from benchmarks/results/mutation-scores.json changes nothing: no figure in its block
    was typed by hand or left behind by a newer run."""
    stale = stale_renders(_script())
    assert not stale, f"{stale}: run `python benchmarks/mutation_score.py --render` and commit the result"


def test_a_kept_run_scores_killed_and_listed_over_checked():
    """A module's row: its counts as kept, and the score (killed + listed equivalent) / checked."""
    run = {
        "date": "2026-11-27",
        "modules": {"m": dict(killed=7, equivalent=1, open=2, untested=1, checked=10, mutants=12)},
    }
    block = _script().render_block({"runs": {"before": run}})
    assert block.splitlines()[2] == "| before | 2026-11-27 | m | 7 | 1 | 2 | 1 | 10 | 12 | 80.0% |"
