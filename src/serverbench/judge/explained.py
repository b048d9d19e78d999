"""Errors a measured cause outside the harness explains.  Pure: a record in, a count and its cause out.

The perf test fails a cell whose error rate exceeds its limit, unless the record measured why the requests failed
and the cause is outside both the harness and the server's speed.  One cause is counted by the kernel: a listen
backlog too small for the connections (wsgiref's 5, socketserver's default; cheroot's and Paste's 5 too), whose
dropped SYNs the kernel counts (``ListenDrops``, the record's ``kernel``).  A connection whose SYN is dropped gets no
error: the client retransmits after 1 s, then 3 s, 7 s, 15 s after its first try (TCP_TIMEOUT_INIT, doubled each
time), and the request times out once its timeout passes with every try dropped.  So each timeout those drops
explain took one dropped try per retransmit time below the timeout (``syn_tries``: 3 at 5 s), and the drops explain
at most ``drops // syn_tries`` timeouts; the rest, and every other error, still count against the limit.  The cell
then passes for that cause with a one-line message, and its latency (the retransmit timer's, not the server's) is
not shown as its speed (report.terminal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..catalog.timeouts import DEFAULT_TIMEOUT_S
from ..records.schema import Result

# When a client sends its SYN again after the first try (s): Linux's initial retransmit timeout, doubled each time.
SYN_RETRY_S = (1.0, 3.0, 7.0, 15.0, 31.0, 63.0)


def syn_tries(timeout_s: float) -> int:
    """SYNs a client sends before its request's ``timeout_s`` runs out: the first and every retry before it."""
    return 1 + sum(1 for t in SYN_RETRY_S if t < timeout_s)


@dataclass(frozen=True)
class Explained:
    """``errors`` of a record's errors that ``cause`` (one line) accounts for."""

    errors: int
    cause: str


def _drops(kernel: Mapping[str, int], prefix: str = "") -> int:
    """The listen drops (or overflows, if more) the kernel counted: the window's, or with ``run_`` the run's."""
    return max(int(kernel.get(f"{prefix}listen_drops", 0)), int(kernel.get(f"{prefix}listen_overflows", 0)))


def syn_drop_errors(r: Result) -> Explained | None:
    """The timeouts the kernel's listen drops explain (None: no drop, or no timeout).  A window whose timeouts were
    taken from a longer run's (oha's closed model: ``run_errors``) is judged on that run's span: a request sent in
    the window has its dropped SYNs up to its timeout after it, so the run's drops (``run_listen_drops``) against
    the run's timeouts, that share of the window's; else the window's drops against its timeouts."""
    timeouts = r.load.errors["timeout"]
    run_timeouts = (r.load.run_errors or {}).get("timeout", 0)
    run_drops = _drops(r.kernel, "run_")
    over_run = bool(run_timeouts and run_drops)
    drops = run_drops if over_run else _drops(r.kernel)
    if not drops or not timeouts:
        return None
    timeout_s = r.generator.timeout_s if r.generator.timeout_s is not None else DEFAULT_TIMEOUT_S
    tries = syn_tries(timeout_s)
    if over_run:
        run_explained = min(run_timeouts, drops // tries)
        explained = min(timeouts, round(timeouts * run_explained / run_timeouts))
        counted = (
            f"over the run the window's were taken from: its {drops:,} listen drops at {tries} dropped SYNs "
            f"each before the {timeout_s:g} s timeout explain {run_explained:,} of its {run_timeouts:,} "
            "timeouts"
        )
    else:
        explained = min(timeouts, drops // tries)
        counted = f"{tries} dropped SYNs each before the {timeout_s:g} s timeout"
    if not explained:
        return None
    return Explained(
        explained,
        f"{explained:,} of {timeouts:,} timeouts are the kernel's {drops:,} listen drops "
        f"(syn-drops; {counted}): the server's listen backlog is too small for the connections, so they "
        "measure the kernel's retransmit timer, not the server's speed",
    )


def judged_error_rate(r: Result, explained: Explained | None) -> float:
    """The record's error rate without the errors ``explained`` accounts for (the same denominator)."""
    total = sum(r.load.errors.values())
    if explained is None or not total:
        return r.error_rate
    return r.error_rate * (total - explained.errors) / total
