"""The live progress line as pure functions: its text, its width, and the time-left estimate."""

import pytest

from serverbench.report.progress import Status, clock, phase_text, planned_seconds, render, time_left


def test_line_names_cell_phase_and_time_left():
    """The line reads: cell i/N, the cell, the phase and the time left."""
    line = render(Status(6, 21, "gunicorn-sync-w2/flask redis c64", "warm-up round 1", 160), 120, colour=False)
    assert line == "serverbench  cell 6/21  gunicorn-sync-w2/flask redis c64  warm-up round 1  ~2 min 40 s left"


def test_line_never_wraps():
    """A narrow terminal gets the line cut with an ellipsis, never wrapped onto a second line."""
    line = render(Status(6, 21, "gunicorn-sync-w2/flask redis c64", "measure", 160), 30, colour=False)
    assert len(line) == 30 and line.endswith("…") and "\n" not in line


def test_colour_is_ansi_styles_only():
    """With colour the same text carries ANSI styles; without, none."""
    status = Status(1, 2, "aiohttp/aiohttp json c64", "measure", None)
    assert "\x1b[" in render(status, 100) and "\x1b[" not in render(status, 100, colour=False)


@pytest.mark.parametrize(
    "phase, round, text",
    [("warm-up", 3, "warm-up round 3"), ("measure", 0, "measure"), ("verify", 0, "verify"), ("start", 0, "start")],
)
def test_phase_text(phase, round, text):
    """Phases reported by the measuring code read as people expect."""
    assert phase_text(phase, round) == text


def test_time_left_learns_from_finished_cells():
    """Cells planned at 10 s that took 15 s each: the remaining plan is scaled by 1.5."""
    planned = [10.0] * 5
    assert time_left(planned, 0, 0.0, 4.0) == 6.0 + 40.0  # nothing finished: the plan as it is
    assert time_left(planned, 2, 30.0, 5.0) == pytest.approx(15.0 - 5.0 + 2 * 15.0)
    assert time_left(planned, 5, 50.0, 0.0) == 0.0


def test_planned_seconds_and_clock():
    """A cell's plan is its replicates of warm-up rounds and window plus a start; the clock is short."""
    assert planned_seconds(2, 10, 5, 0, 3, start_s=2.0) == 3 * 25 + 2
    assert planned_seconds(2, 1, 32, 23, 1, start_s=2.0) == 2 + 32 + 23 + 2  # bjoern /upstream: 16 s lead, 7 s trail
    assert [clock(s) for s in (45, 200, 3900)] == ["45 s", "3 min 20 s", "1 h 05 min"]
