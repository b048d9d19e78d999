"""A faulted trial judged (judge.faults): how the server took the fault, the time to fail, and the failure message."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from serverbench.catalog.faults import Fault
from serverbench.judge.faults import degradation, error_counts, fault_message, time_to_fail
from serverbench.records.schema import ERROR_KEYS, LoadReport


@dataclass
class Run:
    """What the fault executor saw (measure.trials.faults.FaultRun's fields)."""

    fault: Fault
    window_s: float = 5.0
    fired_at_s: float | None = 2.0
    problem: str | None = None
    first_error_at_s: float | None = None
    first_error: str | None = None


def load(requests=1000, **errors):
    return LoadReport("wrk", requests, 5.0, 0, {"p99": 40.0}, {k: errors.get(k, 0) for k in ERROR_KEYS})


def test_a_killed_backend_fails_the_trial_naming_it_and_when():
    """The message names the backend, the moment, the errors by class and the time to the first failure."""
    run = Run(Fault.parse("kill-redis@2s"), fired_at_s=2.01, first_error_at_s=2.11, first_error="status 500")
    message = fault_message(run, load(1000, status=400, read=3))
    assert "redis was killed (SIGKILL) 2.01 s into the 5.0 s window (kill-redis@2s)" in message
    assert "403 request errors" in message and "read 3, status 400" in message
    assert "first failed request (status 500) came 0.10 s after the fault" in message
    assert "fails fast" in message and "nothing is recorded as a result" in message


def test_a_fault_that_was_not_made_says_why():
    """A fault that never struck is named with the reason and the remedy."""
    run = Run(Fault.parse("slow-redis:200ms"), fired_at_s=None, problem="BackendFault: toxiproxy did not answer")
    message = fault_message(run, None)
    assert "the fault was not made (BackendFault: toxiproxy did not answer)" in message
    assert "toxiproxy-server" in message


@pytest.mark.parametrize(
    "errors,first_error_at,action,expected",
    [
        ({"status": 500}, 2.2, "kill", "fails fast"),
        ({"status": 500}, 4.5, "kill", "fails slowly"),
        ({"timeout": 90, "status": 5}, None, "drop", "hangs until timeout"),
        ({}, None, "slow", "slows, no errors"),
        ({}, None, "reset", "unaffected"),
    ],
)
def test_degradation_names_how_the_server_took_it(errors, first_error_at, action, expected):
    """Fast errors, slow errors, timeouts, or no errors at all: each has its word."""
    fault = Fault(action, "redis", 2.0, 200.0 if action == "slow" else None)
    assert degradation(Run(fault, first_error_at_s=first_error_at), load(**errors)) == expected


def test_time_to_fail_counts_from_the_fault():
    """Time to fail is from the fault to the first failure; a failure before the fault is not it."""
    fault = Fault.parse("kill-redis@2s")
    assert time_to_fail(Run(fault, first_error_at_s=2.5)) == 0.5
    assert time_to_fail(Run(fault, first_error_at_s=1.0)) is None
    assert time_to_fail(Run(fault, fired_at_s=None, first_error_at_s=2.5)) is None
    assert error_counts({"connect": 0, "status": 2}) == "status 2" and error_counts({}) == "none"


def test_a_probe_timeout_after_the_fault_is_a_hang():
    """Requests that wait past the window are no driver error; the probe's timeout after the fault names the hang."""
    run = Run(Fault.parse("kill-mongo@2s"), first_error_at_s=4.1, first_error="timeout")
    assert degradation(run, load()) == "hangs until timeout"


# Merged from test_mutation_faults.py: A faulted trial's words at their limits (issue 22, mutation survivors of
# judge.faults).
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
