"""Judging a result against its stored baseline.  Pure: no processes, no I/O.

The check is pluggable: anything with ``judge(result, baseline, thresholds) -> Verdict`` can
replace :class:`BaselineCheck` by overriding the ``perf_check`` fixture.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..config.options import Thresholds
from ..records.baselines import SAVE_COMMAND, Baseline
from ..records.schema import Result, unanswered
from .explained import judged_error_rate, syn_drop_errors

PASS, FAIL, NO_BASELINE = "pass", "fail", "no-baseline"


@dataclass(frozen=True)
class Verdict:
    status: str
    message: str
    baseline_rps: float | None = None
    ratio: float | None = None

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    def to_record(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": self.message,
            "baseline_rps": self.baseline_rps,
            "ratio": None if self.ratio is None else round(self.ratio, 4),
        }


OPS_TOLERANCE = 0.015


def check_ops(result: Result, tolerance: float = OPS_TOLERANCE) -> list[str]:
    """TechEmpower-style work check: each backend must have counted one operation per response.

    Both sides count the same requests.  Counted over the window (``ops_span`` "window": wrk, locust, a run of its
    own): warm-up leftovers are drained before the window opens, so every answered request's operation falls inside
    it, and up to one request per connection can still be in flight when it closes (its operation counted, its
    response not): ``responses × (1 − tolerance) <= ops <= responses × (1 + tolerance) + connections``.
    Counted from the window's opening until every request sent in it was answered or given up (``ops_span``
    "answers": oha's closed model, whose window's responses are those sent in it): every answered one's operation
    falls inside, so the low bound is the same; above it, at most one lead-in request per connection in flight at
    the opening, and each request the generator gave up on (its run's unanswered attempts) that the server still
    served.  Where the run's counts are kept (``run_ops`` and the report's ``run_requests``, oha from 2026-11-25), the
    whole run is compared instead, lead-in and window: nothing is in flight before it starts or after its last
    answer, so no clock need agree between the generator's window and the counters' readings (the window's opening
    read by this process and by oha differed by up to ~130 ms, a 1.6% excess at 300 rps), and the bounds are
    ``run_requests × (1 ∓ tolerance)``, plus above the requests the generator gave up.  A server that answers
    without doing the work fails.
    """
    problems = []
    load = result.load
    # The run's attempts the generator gave up on (its run's counts where the window's were attributed from them).
    given_up = unanswered(load if load.run_errors is None else replace(load, errors=load.run_errors))
    for b in result.backends:
        if b.ops is None:
            continue
        # Above the answered requests: requests in flight at the window's opening, and the given-up ones served
        requests, ops, beyond, span = load.requests, b.ops, result.connections, ""
        if b.run_ops is not None and load.run_requests is not None:
            requests, ops, beyond = load.run_requests, b.run_ops, given_up
            span = " (counted over the whole run, lead-in and window, to its last answer)"
        elif b.ops_span == "answers":
            beyond += given_up
            span = " (counted from the window's opening to its last answer)"
        low, high = requests - requests * tolerance, requests + requests * tolerance + beyond
        if not low <= ops <= high:
            ratio = ops / requests if requests else float("inf")
            problems.append(
                f"{b.name} ({b.kind}) counted {ops:,} operations for {requests:,} responses{span} "
                f"(ratio {ratio:.3f}; allowed {low:,.0f}..{high:,.0f}): "
                "the server did not do the work it answered for"
            )
    return problems


class Check(Protocol):
    def judge(self, result: Result, baseline: Baseline | None, thresholds: Thresholds) -> Verdict: ...


class BaselineCheck:
    """Fail when rps < baseline × (1 − tolerance) or the error rate exceeds its limit."""

    def judge(self, result: Result, baseline: Baseline | None, thresholds: Thresholds) -> Verdict:
        problems = check_ops(result) if thresholds.work_check else []
        explained = syn_drop_errors(result)
        error_rate = judged_error_rate(result, explained)
        if error_rate > thresholds.max_error_rate:
            errors = ", ".join(f"{k} {v}" for k, v in result.load.errors.items() if v)
            timeout = "" if result.generator.timeout_s is None else f"; timeout {result.generator.timeout_s:g} s"
            problems.append(
                f"error rate {error_rate:.2%} > limit {thresholds.max_error_rate:.2%} ({errors}{timeout}"
                f"{'' if explained is None else '; not counted: ' + explained.cause})"
            )
        cause = "" if explained is None else f"; errors not counted: {explained.cause}"
        if thresholds.min_rps is not None and result.rps < thresholds.min_rps:
            problems.append(f"{result.rps:,.0f} rps < required {thresholds.min_rps:,.0f}")
        p99 = result.load.latency_ms["p99"]
        if thresholds.max_p99_ms is not None and p99 > thresholds.max_p99_ms:
            problems.append(f"p99 {p99:,.1f} ms > allowed {thresholds.max_p99_ms:,.1f} ms")
        if baseline is None:
            if problems:
                return Verdict(FAIL, "; ".join(problems))
            return Verdict(
                NO_BASELINE,
                f"no stored baseline for {result.key} on this machine; store one with `{SAVE_COMMAND}`{cause}",
            )
        ratio = result.rps / baseline.rps if baseline.rps > 0 else float("inf")
        floor = baseline.rps * (1 - thresholds.tolerance)
        if result.rps < floor:
            problems.append(
                f"{result.rps:,.0f} rps < {floor:,.0f} = baseline {baseline.rps:,.0f} × "
                f"(1 − {thresholds.tolerance:g}) ({ratio - 1:+.1%})"
            )
        if problems:
            return Verdict(FAIL, "; ".join(problems), baseline.rps, ratio)
        return Verdict(
            PASS,
            f"{result.rps:,.0f} rps vs baseline {baseline.rps:,.0f} ({ratio - 1:+.1%}){cause}",
            baseline.rps,
            ratio,
        )
