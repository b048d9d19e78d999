"""A faulted trial's words at their limits (issue 22, mutation survivors of judge.faults)."""

from serverbench.catalog.faults import Fault
from serverbench.judge.faults import degradation, fault_message, time_to_fail
from tests.unit.judge.test_faults import Run, load

KILL = Fault.parse("kill-redis@2s")


def test_a_failure_at_the_moment_of_the_fault_counts_from_it():
    """A first failure at exactly the fault's time is 0 s after it (not before it)."""
    assert time_to_fail(Run(KILL, fired_at_s=2.0, first_error_at_s=2.0)) == 0.0


def test_fails_fast_is_under_one_second():
    """A first failure 0.999 s after the fault is 'fails fast'; exactly 1 s is 'fails slowly'."""
    assert degradation(Run(KILL, fired_at_s=2.0, first_error_at_s=2.999), load(status=5)) == "fails fast"
    assert degradation(Run(KILL, fired_at_s=2.0, first_error_at_s=3.0), load(status=5)) == "fails slowly"


def test_timeouts_must_outnumber_the_other_errors_to_be_a_hang():
    """As many timeouts as other errors is not a hang; one more is."""
    run = Run(KILL, first_error_at_s=2.5, first_error="status 500")
    assert degradation(run, load(timeout=5, status=5)) == "fails fast"
    assert degradation(run, load(timeout=6, status=5)) == "hangs until timeout"


def test_errors_without_a_probed_failure_fail_slowly():
    """Driver errors with no failure seen by the probe: the server fails, but not fast."""
    assert degradation(Run(KILL), load(read=1)) == "fails slowly"
    assert degradation(Run(KILL, fired_at_s=None), load(read=1)) == "fault not made"


def test_a_fault_not_made_for_want_of_time_names_the_window():
    """A fault whose time fell after the window says both times."""
    message = fault_message(Run(Fault.parse("kill-redis@7s"), window_s=5.0, fired_at_s=None), None)
    assert message.startswith(
        "backend fault kill-redis@7s: the fault was not made (the window ended after 5 s, "
        "before 7 s); the trial's result is not kept."
    )


def test_a_failure_before_the_fault_and_no_failure_are_said():
    """A failure before the fault is named as such; no failure at all says the probe saw none."""
    before = fault_message(Run(KILL, fired_at_s=2.0, first_error_at_s=1.5, first_error="read"), None)
    assert "; a request failed (read) 1.50 s in, before the fault; the server unaffected." in before
    none = fault_message(Run(KILL, fired_at_s=2.0), load())
    assert (
        "0 request errors (0.0% of attempts): none; 200 good responses/s, p99 40 ms; the probe saw no failed "
        "request; the server unaffected. A trial with a fault is not a measurement" in none
    )
    assert none.endswith("redis is restarted (if killed) and the server started afresh before the next test.")


def test_time_to_fail_is_kept_to_the_millisecond():
    """0.0004 s after the fault rounds to 0.0 (milliseconds), 0.0006 s to 0.001."""
    assert time_to_fail(Run(KILL, fired_at_s=2.0, first_error_at_s=2.0004)) == 0.0
    assert time_to_fail(Run(KILL, fired_at_s=2.0, first_error_at_s=2.0006)) == 0.001


def test_the_message_judges_degradation_from_the_drivers_errors():
    """The message's last word reads the driver's errors: read errors and no probed failure 'fails slowly'."""
    assert "; the server fails slowly. A trial" in fault_message(Run(KILL), load(read=3))
