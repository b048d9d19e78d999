"""measure.trials.phases: the clock that turns the phases the measuring code reports into seconds per test."""

from __future__ import annotations

import pytest

from serverbench.measure.trials.phases import PHASES, PhaseClock, phase_name


class Tick:
    """A clock that reads what the test sets."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize(
    "script, expected",
    [
        pytest.param(
            [(0.5, "start"), (2.0, "verify"), (2.25, "lead-in"), (3.25, "measure"), (5.25, "trail"), (5.5, None)],
            {"other": 0.5, "start": 1.5, "verify": 0.25, "lead-in": 1.0, "window": 2.0, "trail": 0.25},
            id="each phase lasts until the next begins, the last to the test's end",
        ),
        pytest.param(
            [(0.0, "measure"), (2.0, "again"), (3.0, "lead-in"), (11.0, "measure"), (12.0, None)],
            {"window": 2.0, "again": 10.0},
            id="after again, the second lead-in and window are again's until the test ends",
        ),
        pytest.param(
            [(0.0, "again"), (1.0, "stop"), (1.5, None)],
            {"again": 1.0, "stop": 0.5},
            id="the next cell's stop is its own phase even after again",
        ),
    ],
)
def test_a_phase_lasts_from_its_report_to_the_next(script, expected):
    """A test begun at 0 s, each phase reported at its time (None: the test ends then), gives these seconds."""
    tick = Tick()
    clock = PhaseClock(tick)
    clock.begin("t")
    for t, phase in script:
        tick.t = t
        if phase is None:
            clock.end()
        else:
            clock.phase(phase)
    assert clock.of("t") == expected


def test_reports_outside_a_test_are_ignored_and_a_new_test_ends_the_last():
    """A phase reported between tests counts nowhere; begin() closes a test still running."""
    tick = Tick()
    clock = PhaseClock(tick)
    clock.phase("start")
    clock.begin("a")
    tick.t = 1.0
    clock.begin("b")
    tick.t = 3.0
    clock.end()
    clock.end()
    assert clock.tests == {"a": {"other": 1.0}, "b": {"other": 2.0}}


def test_unknown_names_count_as_other_and_aliases_map():
    """measure is the window, setup is other, a name the clock does not know is other; every phase maps to itself."""
    assert phase_name("measure") == "window"
    assert phase_name("setup") == "other"
    assert phase_name("no-such-phase") == "other"
    assert all(phase_name(p) == p for p in PHASES)
