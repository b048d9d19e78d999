"""benchmarks/fault_census.py: docs/lab/robustness.md's census figures are rendered from its results file, and a census's
pytest output is read into that file's form."""

from __future__ import annotations

import json

import pytest

from tests.unit.repo.benchmark_scripts import script, stale_renders


def _script():
    return script("fault_census.py")


def test_the_committed_census_figures_are_the_rendered_ones():
    """Rendering docs/lab/robustness.md from benchmarks/results/fault-census.json changes nothing: no figure of the census
    was typed by hand or left behind by a newer run."""
    stale = stale_renders(_script())
    assert not stale, f"{stale}: run `python benchmarks/fault_census.py render` and commit the result"


def test_a_census_log_gives_its_rows_in_the_census_order_counts_and_seconds():
    """The JSON rows -s prints (after pytest's own text on a line, too) in the order of the census's moments, those
    without a time (SIGKILL, the gate) after them, and the summary's counts and time."""
    row = {
        "moment": "HTML written",
        "phase": "report",
        "at_s": 7.29,
        "exit": 2,
        "passed": 2,
        "left": ["pid 7 wrk"],
        "records": "valid: 2 result(s), HTML",
        "baseline": "old + new",
        "temp files": [],
        "wrk_seen": 4,
    }
    log = "\n".join(
        [
            "tests/integration/sessions/test_fault_census.py " + json.dumps(row),
            json.dumps({**row, "moment": "server spawned", "left": []}),
            json.dumps(
                {"moment": "gate: SIGTERM while measuring", "phase": "gate", "exit": 143, "left": [], "worktrees": []}
            ),
            "=================== 21 passed, 1 failed, 2 warnings in 135.41s (0:02:15) ===================",
        ]
    )
    parsed = _script().parse(log)
    assert [r["moment"] for r in parsed["rows"]] == ["server spawned", "HTML written"]
    assert parsed["rows"][1]["left"] == ["pid 7 wrk"] and "temp files" not in parsed["rows"][0]
    assert parsed["others"] == [{"moment": "gate: SIGTERM while measuring", "phase": "gate", "exit": 143, "left": []}]
    assert (parsed["passed"], parsed["failed"], parsed["seconds"]) == (21, 1, 135)


def test_a_log_without_rows_is_refused_naming_the_fix():
    """Output of a run without -s (no rows) stops with what to do, and writes nothing."""
    with pytest.raises(SystemExit, match="run the census with -s"):
        _script().parse("===== 22 passed in 135.00s =====")


def test_the_block_counts_what_each_moment_left():
    """Each row's leftovers are counted, beside what the code before the fixes left; a row without a time or an exit
    (SIGKILL of pytest) leaves those cells empty."""
    rows = [
        {
            "moment": "m",
            "phase": "start",
            "at_s": 1.0,
            "exit": 2,
            "left": ["a", "b"],
            "records": "none",
            "baseline": "old",
        }
    ]
    others = [{"moment": "SIGKILL of pytest while measuring", "phase": "measure", "exit": None, "left": []}]
    data = {
        "runs": {
            "after": {
                "date": "d",
                "commit": "c",
                "passed": 1,
                "failed": 1,
                "seconds": 9,
                "rows": rows,
                "others": others,
            },
            "before": {"date": "d0", "commit": "c0", "left": {"m": 3}},
        }
    }
    block = _script().render_block(data)
    assert "at c (1 passed, 1 failed, 9 s)" in block and "| 1 | m | start | 1.0 | 2 | 3 | 2 | none | old |" in block
    assert "| 2 | SIGKILL of pytest while measuring | measure |  |  |  | 0 |  |  |" in block
