"""benchmarks/cost_spread.py: docs/lab/cost.md's A/A blocks (the spread of every figure of 20 counts per cell, what a
baseline of 5 of them would judge, the drifted cells, the stages) are rendered from its results file."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_aa_counts_are_the_rendered_ones():
    """Rendering docs/lab/cost.md from benchmarks/results/cost-aa.json changes nothing: no figure typed by hand."""
    stale = stale_renders(script("cost_spread.py"))
    assert not stale, f"{stale}: run `python benchmarks/cost_spread.py render` and commit the result"


def run(per_request, futex=None, kept=0.0):
    calls = {"recvfrom": 1.0, "clock_gettime": 11.0, **({} if futex is None else {"futex": futex})}
    return {
        "per_request": per_request,
        "calls": calls,
        "sent": 173.0,
        "received": 39.0,
        "connections": 0.005,
        "kept": kept,
        "wall_s": 7.0,
        "timestamp": "2026-11-28T20:00:00+00:00",
    }


def test_every_figure_of_the_counts_is_shown_with_its_range_a_call_a_count_lacks_read_as_zero():
    """Instructions with their range as a share of the median; a call that varied with lowest-highest and range (0
    where a count lacks it); one that did not, by its value alone; vDSO calls after the others, marked."""
    spread = script("cost_spread.py")
    runs = [run(1000.0, 2.0), run(1010.0), run(1005.0, 3.0, kept=20.5)]
    assert spread.figures(runs)["futex"] == [2.0, 0.0, 3.0]
    entry = {"app": "flask", "requests": 200, "command": "c", "date": "d", "seconds": 30, "runs": runs}
    text = spread.aa_table({"machine": "m", "cells": {"gunicorn-sync-w2": entry}})
    assert "| instructions | 1,005 (1,000-1,010, 0.995%) |" in text
    assert "| `futex` | 2.000 (0.000-3.000, 3.000) |" in text
    assert "| `recvfrom` | 1.000 |" in text
    assert text.index("`recvfrom`") < text.index("`clock_gettime` (vDSO)")
    assert "| memory kept, bytes | 0 (0-20, 20) |" in text


def test_each_baseline_of_consecutive_counts_judges_every_other_count():
    """7 counts: 3 baselines of 5, each judging the 2 counts outside it (6 judgements); a count 5% above the rest
    fails against the 2% floor only where its baseline's spread was narrow, and the tolerance stated follows."""
    spread = script("cost_spread.py")
    entry = {"app": "flask", "requests": 200, "runs": [run(1000.0 + i) for i in range(6)] + [run(1050.0)]}
    fails, total, stated = spread.judged("gunicorn-sync-w2", entry)
    assert (fails, total) == (2, 6)  # the baselines of counts 1-5 and 2-6 fail count 7; the third holds it
    assert max(t.value for t in stated) > 0.1 and min(t.value for t in stated) == 0.02


def test_a_count_outside_factor_times_its_baselines_spread_is_counted_either_way():
    """Counts 100, 101, 100 then 104 and 97: the first three (spread 1%) leave out both at 2x (4% above and 3%
    below) and neither at 5x; the windows holding an outlier are wide enough to hold the rest."""
    outside = script("cost_spread.py").outside
    values = [100.0, 101.0, 100.0, 104.0, 97.0]
    assert outside(values, 3, 2.0) == (2, 1, 6)  # 104 above, 97 below
    assert outside(values, 3, 5.0) == (0, 0, 6)


def test_counts_two_at_a_time_are_shown_all_together_then_by_the_stage_held_with_the_stage_seen():
    """Per cell and code: a row of all its counts (no comparison), then one per stage held with the stage its server
    saw, each median against the first stage's."""
    spread = script("cost_spread.py")
    runs = [
        {**run(1000.0), "held": "serverbench-paths-00", "seen": "serverbench-paths-00"},
        {**run(1010.0), "held": "serverbench-paths-01", "seen": "serverbench-paths-00"},
        {**run(1002.0), "held": "serverbench-paths-00", "seen": "serverbench-paths-00"},
    ]
    entry = {"app": "flask", "requests": 200, "command": "c", "commit": "abc1234", "date": "d", "runs": runs}
    text = spread.pairs_table({"machine": "m", "pairs": {"gunicorn-sync-w2": {"after": entry}}})
    rows = [line for line in text.splitlines() if line.startswith("| gunicorn")]
    assert rows[0] == "| gunicorn-sync-w2/flask | after (abc1234) | all |  | 3 | 1,002 | 1,000 | 1,010 | 0.998% |  |"
    assert rows[1].startswith(
        "| gunicorn-sync-w2/flask | after (abc1234) | `serverbench-paths-00` | `serverbench-paths-00` | 2"
    )
    assert rows[2].endswith("| `serverbench-paths-00` | 1 | 1,010 | 1,010 | 1,010 | 0.000% | +0.899% |")
