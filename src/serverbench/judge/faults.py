"""Judging a trial a backend fault struck (--perf-fault): it always fails, and its message says which
backend went, when, what the clients saw (errors by the driver's classes) and how the server
degraded.  Pure: the window's observations in, words out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from ..catalog.faults import Fault
from ..records.schema import ERROR_KEYS, LoadReport, error_rate

FAST_S = 1.0  # a first failure sooner than this after the fault: the server fails fast


class Observed(Protocol):
    """What the fault executor saw in one window (measure.trials.faults.FaultRun)."""

    fault: Fault
    window_s: float
    fired_at_s: float | None
    problem: str | None
    first_error_at_s: float | None
    first_error: str | None


def error_counts(errors: Mapping[str, int]) -> str:
    """'status 1200, read 34' (the classes that occurred, in the driver's order), or 'none'."""
    counts = [f"{k} {errors.get(k, 0)}" for k in ERROR_KEYS if errors.get(k, 0)]
    return ", ".join(counts) or "none"


def time_to_fail(run: Observed) -> float | None:
    """Seconds from the fault to the first failed request, None when none failed after it."""
    if run.fired_at_s is None or run.first_error_at_s is None or run.first_error_at_s < run.fired_at_s:
        return None
    return round(run.first_error_at_s - run.fired_at_s, 3)


def degradation(run: Observed, load: LoadReport | None) -> str:
    """How the server took the fault, in a word or three: 'fails fast', 'fails slowly', 'hangs until timeout',
    'slows, no errors' or 'unaffected'."""
    if run.fired_at_s is None:
        return "fault not made"
    errors = dict(load.errors) if load is not None else {}
    probe_timeouts = (run.first_error or "").startswith("timeout") and time_to_fail(run) is not None
    if probe_timeouts or errors.get("timeout", 0) > sum(v for k, v in errors.items() if k != "timeout"):
        return "hangs until timeout"  # the client gave up waiting: requests that end in the window are not counted
    failed_after = time_to_fail(run)
    if sum(errors.values()) or failed_after is not None:
        return "fails fast" if failed_after is not None and failed_after < FAST_S else "fails slowly"
    return "slows, no errors" if run.fault.action == "slow" else "unaffected"


def fault_message(run: Observed, load: LoadReport | None) -> str:
    """Why the trial fails: the fault, when it struck, the errors by class and the first failure."""
    fault = run.fault
    if run.fired_at_s is None:
        why = run.problem or f"the window ended after {run.window_s:g} s, before {fault.at_s:g} s"
        return (
            f"backend fault {fault.label}: the fault was not made ({why}); the trial's result is not "
            "kept. Check that the backend and toxiproxy-server run, or move @AT inside the window."
        )
    parts = [f"backend fault: {fault.what} {run.fired_at_s:.2f} s into the {run.window_s:.1f} s window ({fault.label})"]
    if load is not None:
        total = sum(load.errors.values())
        parts.append(
            f"{total} request errors ({error_rate([load]):.1%} of attempts): {error_counts(load.errors)}; "
            f"{load.rps:.0f} good responses/s, p99 {load.latency_ms.get('p99', 0.0):.0f} ms"
        )
    after = time_to_fail(run)
    if after is not None:
        parts.append(f"the first failed request ({run.first_error}) came {after:.2f} s after the fault")
    elif run.first_error_at_s is not None:
        parts.append(f"a request failed ({run.first_error}) {run.first_error_at_s:.2f} s in, before the fault")
    else:
        parts.append("the probe saw no failed request")
    parts.append(f"the server {degradation(run, load)}")
    return (
        "; ".join(parts) + ". A trial with a fault is not a measurement: nothing is recorded as a result; "
        f"{fault.backend} is restarted (if killed) and the server started afresh before the next test."
    )
