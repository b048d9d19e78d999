"""A bisection file rendered (report.bisect): as text and step summary, the steps judged again from its stored counts,
and the benchmark scripts' tables."""

import json

from serverbench.measure.counting.bisect import Attempt
from serverbench.measure.trees.commits import Commit
from serverbench.report import bisect as report
from tests.unit.records.test_cost import make
from tests.unit.sample_records import bisection


def test_the_text_lists_the_commits_tried_their_changes_and_the_verdict():
    """Tried commits in range order with their change against the previous counted one; skipped ones with why."""
    record = bisection([100_000.0, "untried", None, 100_100.0, 110_000.0], steps=[{"gate": {"error": "oha missing"}}])
    text = report.text(record).splitlines()
    assert text[0].startswith("bisect waitress-t4/shop home (GET /): 5 commits, 0000000000 (c0) .. 4444444444 (c4)")
    assert "skipped: did not start: SyntaxError  [c2]" in text[3]
    assert text[4].split()[2:4] == ["100,100", "+0.10%"]
    assert text[5].split()[2:4] == ["110,000", "+9.89%"] and text[5].endswith("c4 (bad end)")
    assert "counted 3 of 5 commits, skipped 1, in 61 s (one count: median 9.0 s)" in text
    assert "verdict: regression (exit 1): 1 step(s) above 2.0%: +9.89% at 4444444444 (c4)" in text
    assert "  gate, parent against culprit: not run: oha missing" in text


def test_the_gates_verdict_is_printed_with_its_windows_time_and_each_signal():
    """A step the gate timed: its verdict, exit status, windows and wall time, then one line per signal."""
    gate = {"verdict": "regression", "exit_status": 1, "signals": {"throughput": "-9.1%"}, "seconds": 212.4}
    gate |= {"stopped": "regression", "windows": 32, "blocks": 8}
    lines = report.text(bisection([100_000.0, 110_000.0], steps=[{"gate": gate}])).splitlines()
    assert lines[-2] == "  timed gate, parent against culprit: regression (exit 1, 32 windows in 8 blocks, 212 s)"
    assert lines[-1].split() == ["throughput", "-9.1%"]


def test_a_gate_that_stopped_at_its_count_is_a_second_count_not_a_timed_gate():
    """A gate whose counted regression ended it before any window says it confirmed by a second count, in the text
    and the step summary; a file from before windows were stored is timed only when it judged a timed signal."""
    gate = {"verdict": "regression", "exit_status": 1, "signals": {"cost": "+9.9%"}, "seconds": 5.2}
    said = "confirmed by a second count, parent against culprit: regression (exit 1, no window timed: a counted "
    for stored in ({**gate, "stopped": "counted", "windows": 0, "blocks": 0}, gate):
        record = bisection([100_000.0, 110_000.0], steps=[{"gate": stored}])
        assert f"  {said}regression ends the gate, 5 s)" in report.text(record).splitlines()
        assert f"  - {said}regression ends the gate, 5 s)" in report.markdown(record)
        assert "timed" not in report.text(record).replace("no window timed", "")
    older = {**gate, "signals": {"cost": "+9.9%", "cpu": "+7.3%"}}
    assert "timed gate, parent against culprit: regression (exit 1, 5 s)" in report.text(
        bisection([100_000.0, 110_000.0], steps=[{"gate": older}])
    )


def test_a_range_that_moved_in_small_steps_names_no_culprit():
    """+1.5% and +1.5% in two halves of a 2% threshold: the spread verdict, exit 3, in text and summary."""
    record = bisection([100.0, "untried", 101.5, "untried", 103.0])
    assert report.judged(record).exit_status == 3
    assert "verdict: spread (exit 3): the range moved +3.00% but no single counted interval" in report.text(record)
    assert report.markdown(record).startswith("### serverbench bisect: waitress-t4/shop home (GET /): **spread**")


def test_the_steps_are_judged_again_from_the_stored_counts():
    """A stored threshold is applied to the stored counts: 3% is a step at 2%, none at 5%."""
    assert report.judged(bisection([100.0, 103.0])).verdict == "regression"
    assert report.judged(bisection([100.0, 103.0], threshold=0.05)).verdict == "none"


def test_the_tables_render_the_benchmarks_files(tmp_path):
    """The positions and count-time tables read the benchmark scripts' files (the docs' block renders both)."""
    positions = [
        {"app": "a", "position": 4, "found": True, "steps": [[3, 4, 0.31]], "counted": 6, "budget": 6, "skipped": 1,
         "verdict": "regression", "exit": 1, "wall_s": 80.4, "count_s": [8.0, 9.0, 10.0]},
        {"app": "a", "position": None, "found": True, "steps": [], "counted": 2, "budget": 6, "skipped": 0,
         "verdict": "none", "exit": 0, "wall_s": 20.0, "count_s": [9.0, 9.0]},
    ]  # fmt: skip
    times = {"worktree_s": [0.5, 0.7, 0.6], "variants": {"aiohttp": {"app": "aiohttp", "walls": {
        "default": [8.0, 9.0, 10.0], "window 10": [6.0, 6.0, 6.0], "warm-up 10": [4.0, 4.0, 4.0]}}}}  # fmt: skip
    (tmp_path / "bisect-positions.json").write_text(json.dumps(positions))
    (tmp_path / "bisect-count-time.json").write_text(json.dumps(times))
    block = report.benchmark_block(tmp_path)
    assert "| a | 4 | yes | 3 → 4 +31.00% | 6 (6) | 1 | regression (1) | 80 | 9.0 |" in block
    assert "| a | none | yes | none | 2 (6) | 0 | none (0) | 20 | 9.0 |" in block
    assert "| aiohttp (aiohttp) | 9.0 | 4.0 | 2.0 | 3.0 | start, 20 requests, dump, stop (44%) |" in block
    assert "(add and remove): median 0.60 s." in block


def test_what_a_bisection_says_while_it_works_goes_to_standard_error(capsys):
    """The range, each commit tried (its count or why it was skipped, and its time), a step without a Python
    profile and a gate starting: lines on standard error, none on standard output."""
    commits = [Commit(f"{i:x}" * 40, f"c{i}") for i in range(3)]
    report.bisecting("waitress-t4/flask json", commits, 0.02)
    report.counted(Attempt(2, make(1_234_500), "", 9.87, "py"), commits)
    report.counted(Attempt(1, None, "did not start: SyntaxError", 0.5, "py"), commits)
    report.no_profile(ValueError("no worktree"))
    report.confirming(commits[2], commits[1])
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.splitlines() == [
        "bisecting waitress-t4/flask json: 3 commits (0000000000..2222222222), threshold 2.0%",
        "[2/2] 2222222222 (c2): 12,345 instructions/request (9.9 s)",
        "[1/2] 1111111111 (c1): skipped: did not start: SyntaxError (0.5 s)",
        "note: no Python-level profile of the step (no worktree); C functions only",
        "confirming 2222222222 (c2) against its parent 1111111111 with the A/B gate",
    ]
