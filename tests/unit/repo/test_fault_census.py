"""benchmarks/fault_census.py: docs/robustness.md's census figures are rendered from its results file, and a census's
pytest output is read into that file's form."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _script() -> SimpleNamespace:
    return SimpleNamespace(**runpy.run_path(str(ROOT / "benchmarks" / "fault_census.py")))


def test_the_committed_census_figures_are_the_rendered_ones():
    """Rendering docs/robustness.md from benchmarks/results/fault-census.json changes nothing: no figure of the census
    was typed by hand or left behind by a newer run."""
    stale = [str(p.relative_to(ROOT)) for p, text in _script().render(write=False).items() if text != p.read_text()]
    assert not stale, f"{stale}: run `python benchmarks/fault_census.py render` and commit the result"


def test_a_census_log_gives_its_rows_counts_and_seconds():
    """The JSON rows -s prints (after pytest's own text on a line, too) in order, and the summary's counts and time."""
    row = {
        "moment": "server spawned",
        "phase": "start",
        "at_s": 1.46,
        "exit": 2,
        "passed": 0,
        "left": [],
        "records": "none",
        "baseline": "old",
        "temp files": [],
        "wrk_seen": 0,
    }
    log = "\n".join(
        [
            "tests/integration/sessions/test_fault_census.py " + json.dumps(row),
            json.dumps({**row, "moment": "HTML written", "left": ["pid 7 wrk"]}),
            "=================== 21 passed, 1 failed, 2 warnings in 135.41s (0:02:15) ===================",
        ]
    )
    parsed = _script().parse(log)
    assert [r["moment"] for r in parsed["rows"]] == ["server spawned", "HTML written"]
    assert parsed["rows"][1]["left"] == ["pid 7 wrk"] and "wrk_seen" not in parsed["rows"][0]
    assert (parsed["passed"], parsed["failed"], parsed["seconds"]) == (21, 1, 135)


def test_a_log_without_rows_is_refused_naming_the_fix():
    """Output of a run without -s (no rows) stops with what to do, and writes nothing."""
    with pytest.raises(SystemExit, match="run the census with -s"):
        _script().parse("===== 22 passed in 135.00s =====")


def test_the_block_counts_what_was_left_and_the_killed_test():
    """Each row's leftovers are counted; the SIGKILL row says 0 only when the run had no failure."""
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
    data = {
        "runs": {
            "after": {"date": "d", "commit": "c", "passed": 1, "failed": 1, "seconds": 9, "rows": rows},
            "before": {"date": "d0", "commit": "c0", "left": {"m": 3}},
        }
    }
    block = _script().render_block(data)
    assert "(1 passed, 1 failed, 9 s)" in block and "| 1 | m | start | 1.0 | 2 | 3 | 2 | none | old |" in block
    assert "| 2 | SIGKILL of pytest while measuring | measure |  |  |  | see the failures |  |  |" in block
