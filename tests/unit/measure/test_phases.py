"""measure.phases: the clock that turns the phases the measuring code reports into seconds per test."""

from __future__ import annotations

from serverbench.measure.phases import PHASES, PhaseClock, phase_name


class Tick:
    """A clock that reads what the test sets."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_each_phase_lasts_until_the_next_begins():
    """A phase's seconds run from its report to the next report, the last to the test's end."""
    tick = Tick()
    clock = PhaseClock(tick)
    clock.begin("t1")
    tick.t = 0.5
    clock.phase("start")
    tick.t = 2.0
    clock.phase("verify")
    tick.t = 2.25
    clock.phase("lead-in")
    tick.t = 3.25
    clock.phase("measure")
    tick.t = 5.25
    clock.phase("trail")
    tick.t = 5.5
    clock.end()
    assert clock.of("t1") == {"other": 0.5, "start": 1.5, "verify": 0.25, "lead-in": 1.0, "window": 2.0, "trail": 0.25}


def test_a_second_window_counts_as_again():
    """After "again", the second measurement's lead-in and window are the again phase's, until the test ends."""
    tick = Tick()
    clock = PhaseClock(tick)
    clock.begin("t")
    clock.phase("measure")
    tick.t = 2.0
    clock.phase("again")
    tick.t = 3.0
    clock.phase("lead-in")
    tick.t = 11.0
    clock.phase("measure")
    tick.t = 12.0
    clock.end()
    assert clock.of("t") == {"window": 2.0, "again": 10.0}


def test_the_next_cells_stop_is_its_own_phase_even_after_again():
    """A stop reported after "again" is counted as stop."""
    tick = Tick()
    clock = PhaseClock(tick)
    clock.begin("t")
    clock.phase("again")
    tick.t = 1.0
    clock.phase("stop")
    tick.t = 1.5
    clock.end()
    assert clock.of("t") == {"again": 1.0, "stop": 0.5}


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
