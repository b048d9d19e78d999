"""benchmarks/cost_system.py: docs/cost.md's table of planted changes is rendered from its results file."""

from __future__ import annotations

import json

from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_planted_changes_are_the_rendered_ones():
    """Rendering docs/cost.md from benchmarks/results/cost-plants.json changes nothing: no figure typed by hand."""
    stale = stale_renders(script("cost_system.py"))
    assert not stale, f"{stale}: run `python benchmarks/cost_system.py render` and commit the result"


def test_every_planted_change_is_in_the_committed_results():
    """The results file holds one row per planted change the script plants, with the knob that planted it."""
    cost_system = script("cost_system.py")
    rows = json.loads(cost_system.RESULTS.read_text())["plants"]
    assert [(r["change"], r["knob"]) for r in rows] == [(w, f"{k}={v}") for w, _, k, v in cost_system.PLANTS]


def test_a_row_names_the_calls_that_moved_and_why_it_failed():
    """A row shows instructions' change, each moved call with its sign (vDSO ones marked, listed last), the
    connections, which figure failed the verdict and the seconds to decision."""
    row = {
        "change": "x",
        "knob": "SERVERBENCH_X=1",
        "workload": "json",
        "instructions": [100, 101],
        "calls_moved": {"clock_gettime": [1.0, 3.0], "newfstatat": [0.0, 1.0], "read": [2.0, 1.0]},
        "vdso": ["clock_gettime"],
        "connections": [0.005, 1.005],
        "status": "fail",
        "instructions_failed": False,
        "system": "regression",
        "seconds": 21.4,
    }
    data = {"command": "c", "cell": "v/a", "requests": 200, "tolerance": 0.02, "date": "d", "machine": "m"}
    text = script("cost_system.py").table({**data, "plants": [row]})
    assert (
        "| x (`SERVERBENCH_X=1`) | /json | +1.00% | +1.00 newfstatat, -1.00 read, +2.00 clock_gettime (vDSO) "
        "| 0.005 -> 1.005 | **fail** (system calls) | 21 s |"
    ) in text
