"""benchmarks/ab_rates.py: docs/lab/gate.md's proof table is rendered from its results files, and an A/A measured under
more than one label is also counted as one."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import script, stale_renders


def _script():
    return script("ab_rates.py")


def _record(condition: str, exit_status: int, cell: str = "v/app", duration: int | None = None) -> dict:
    verdict = {0: "pass", 1: "regression", 3: "rerun"}[exit_status]
    return {
        **({} if duration is None else {"duration": duration, "rounds": 2}),
        "cell": cell,
        "condition": condition,
        "exit_status": exit_status,
        "verdict": verdict,
        "stopped": "settled",
        "look": 1,
        "signals": {"throughput": {"verdict": verdict, "delta": 0.01}},
        "seconds": 100.0,
        "phases": {"count": 10.0},
    }


def test_the_committed_gate_proof_is_the_rendered_one():
    """Rendering docs/lab/gate.md from its proof files changes nothing: no figure of the proof table was typed by hand
    or left behind by a newer run."""
    stale = stale_renders(_script())
    assert not stale, f"{stale}: run `python benchmarks/ab_rates.py render` and commit the result"


def test_a_cell_measured_under_two_a_a_labels_gets_a_row_of_both():
    """Two A/A labels of one cell (3 runs and 2 runs, one failure): each has its row, and 'every A/A above' counts
    1 of 5; a cell with one A/A label and the other conditions get no such row."""
    records = [_record("A/A", 0), _record("A/A", 1), _record("A/A", 0), _record("A/A, later", 3)]
    records += [_record("A/A, later", 0), _record("10%", 1), _record("A/A", 0, cell="w/app")]
    rows = _script().table(records).splitlines()[2:]
    every = [r for r in rows if "every A/A above" in r]
    assert len(every) == 1 and every[0].startswith(
        "| v/app | every A/A above (2 s windows, 2 rounds a block) | **1 / 5** ("
    )
    assert len(rows) == 5
    assert [r.split(" | ")[1] for r in rows[:4]] == ["A/A", "A/A, later", "10%", "A/A"]


def test_only_a_a_labels_count_as_a_a():
    """'A/A' and 'A/A, <anything>' are A/A conditions; a label that merely starts with the letters is not."""
    is_aa = _script().is_aa
    assert is_aa("A/A") and is_aa("A/A, 2026-11-27")
    assert not is_aa("A/AB") and not is_aa("10%") and not is_aa("a/a")


def test_a_a_of_another_design_is_counted_apart():
    """A/A decisions of 1 s windows are not pooled with those of 2 s (files without ``duration`` ran 2 s windows, two
    rounds a block): each design with two or more labels gets its own 'every A/A above' row."""
    records = [_record("A/A", 0), _record("A/A, later", 1), _record("A/A, 1 s", 0, duration=1)]
    records += [_record("A/A, 1 s, later", 3, duration=1), _record("A/A, 1 s, later", 0, duration=1)]
    rows = _script().table(records).splitlines()[2:]
    every = [r for r in rows if "every A/A above" in r]
    assert every[0].startswith("| v/app | every A/A above (2 s windows, 2 rounds a block) | **1 / 2** (")
    assert every[1].startswith("| v/app | every A/A above (1 s windows, 2 rounds a block) | **0 / 3** (")
    assert len(every) == 2
