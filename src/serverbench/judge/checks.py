"""Consistency checks: does a record's own numbers explain themselves?  Pure: records in, flags out.

Each rule reads one stored :class:`~serverbench.records.schema.Result` (``check_session``: all of a
session's) and returns a :class:`Flag` naming what was seen, what it means and what to do, or None.
The rules judge; they never measure (the kernel's listen counters a rule reads were taken by
``measure.host.kernel`` around the measured window).  docs/checks.md explains every flag.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Callable

from ..catalog.variants import registry
from ..catalog.windows import EDGE_TOLERANCE, LONGER_WINDOWS, MAX_WINDOW_S, edge_share, waits_carried_in_s
from ..catalog.workloads import WORKLOADS
from ..records.schema import SATURATION_BUSY_PCT, Generator, Result
from .explained import SYN_RETRY_S

# Little's law for the closed model: each of N connections always has one request in flight, so
# throughput x mean latency = N.  A steady-state window holds it within a few percent (measured 0.97-1.00
# with wrk on uvicorn, meinheld, eventlet, gunicorn-sync on /json, docs/checks.md); outside LITTLE_TOLERANCE the
# latencies are not the server's steady state unless the record names a cause outside the harness (below).
# Below: connections spent time outside any timed request (connecting, SYN retransmits, reconnecting after
# errors, a generator too slow to send the next request) or the window started on a drained server (its first
# answers are an empty queue's, the requests queued at its end are not counted: gunicorn-sync-w2 on /sleep at
# c64, 0.68); above: latencies that sum to more time than the connections had, as wrk's own coordinated-omission
# samples made them (wrk.c's stats_correct, wg/wrk#438; gevent servers 2-15x) until wrk_report.lua removed them.
LITTLE_TOLERANCE = 0.05

# At capacity: a pool of P workers or threads whose requests each take the endpoint's designed wait (a sleep,
# a slow upstream) plus the server's CPU serves at most P / service time.  Throughput within this share of it
# (either side: the CPU per request is measured under load, so the capacity is an estimate), with more
# connections than the pool, is the pool's designed limit: the rest of the latency is the queue behind it.
CAPACITY_BAND = 0.10

# A stall: the server, its backends and the generator each used less than this share of what they could.  The
# server's is its busy share of what the latency leaves it: its N requests in flight need N x (CPU per request),
# and over one latency the cores it can use give it latency x cores (stall_shares).  A server its CPU holds up
# reads about 1 on any machine (measured 0.84-1.01 at c8 and c64: uvicorn and gevent-pywsgi-nodelay on /json,
# gunicorn-sync-w2 on /json and /redis; stock gevent-pywsgi's stall 0.08 at c8 and 0.39 at c64, docs/checks.md);
# a wait of fixed length (Nagle against delayed ACK, ~40 ms) reads lower the faster the CPU.  Not a share of one
# core: stock gevent-pywsgi on /json at c64 stalled 44 ms per request with the server 36-38% of a core busy,
# above the 30% of a core the rule used to take for idle (a slower CPU crosses any fixed share).
STALL_BUSY_SHARE = 0.5
# ...while the median request took this many times its service time (the server's CPU per request
# plus any wait the endpoint has by design) and at least STALL_MIN_MS more.  Measured: a Nagle/delayed-ACK
# stall is 65-90x (44 ms on 0.5-0.7 ms, gevent-pywsgi c8).  A pool smaller than the connections at its
# designed capacity (gunicorn-gthread-t10, /sleep at c64: 611 ms on 100.7 ms, 6x) is `at-capacity`, not a stall.
STALL_FACTOR = 5.0
STALL_MIN_MS = 5.0

# SYN drops: the kernel's own count (ListenOverflows/ListenDrops during the window) decides when the
# record carries it: any is a flag, none is none (wrk starts a request's clock after connecting, so a
# dropped SYN often shows in no latency at all).  Without the counters (old records, no /proc): the
# kernel retransmits a dropped SYN (or SYN-ACK) after 1 s, then 3 s after the first try
# (TCP_TIMEOUT_INIT, doubled), and a percentile that lands in [t - 20 ms, t + p50 + 100 ms] is a share
# of requests that waited one retransmit.  Not the max alone: one slow request anywhere near 1 s
# (measured: 1,066 ms on gunicorn-gevent-w2 with the kernel counting no drop) proves nothing.
RETRANSMIT_MS = tuple(1000.0 * t for t in SYN_RETRY_S[:2])  # the first two: 1 s, 3 s
RETRANSMIT_EARLY_MS = 20.0
RETRANSMIT_LATE_MS = 100.0
SYN_PERCENTILES = ("p90", "p99", "p999")

# CPU per request on a workload that waits (a backend, a sleep) against the same variant's cost on
# a lighter one (json, plaintext) at the same shape: a server that waits by blocking or in an event
# loop pays about the same, plus the client's work (a Redis or Mongo call costs ~0.1-0.3 ms of CPU
# in Python).  1.5x and 1 ms more per request is CPU spent waiting: polling, spinning threads.
LIGHT_WORKLOADS = ("json", "plaintext")
BUSY_RATIO = 1.5
BUSY_EXTRA_US = 1000.0
# ...and the server must be busy: a server that waits by polling burns a share of the cores it can use.  Below
# this, a high cost per request is the idle server's own ticks (gunicorn's heartbeats, one per process) spread over
# a few slow requests (measured: gunicorn-sync-w2 on /upstream, 20 rps, 3% of a core, 1.3 ms per request).
BUSY_MIN_SHARE = 0.20

# Neighbours: what every other process on the machine used during the window (the machine's busy CPU
# less the server's, the generator's and the backends' own), as a share of one core.  The default
# `./run perf` on a quiet 2-core machine: median 1.3%, 90th percentile 3.0%, max 7.2% of a core over 172 cells
# (the harness's own sampling); helper sessions compiling and testing beside a run drove load average to 4-5.
NEIGHBOUR_PCT = 25.0
STEAL_PCT = 10.0

MEANINGS: Mapping[str, str] = {
    "littles-law": "throughput x mean latency disagrees with the connections by more than 5%: the latencies are not "
    "the server's steady state (hidden in the summary unless a cause outside the harness is named)",
    "no-answers": "the server answered no request in the window: the record says what held the connections",
    "at-capacity": "throughput at the pool's designed capacity (workers or threads / the endpoint's service time): "
    "the latency is the queue behind the pool, by design",
    "stall": "server, backends and generator each less than half busy (of what they could use) while requests wait "
    "far beyond their service time",
    "syn-drops": "the kernel dropped connection attempts (listen backlog full): connections waited for 1 s retransmits",
    "busy-waiting": "CPU per request far above the same variant's on a lighter workload (polling while waiting)",
    "error-statuses": "responses with an HTTP error status; the record cannot tell the app's from the server's own",
    "generator-saturated": "the load generator was >= 90% busy: the server may be faster than measured",
    "backend-bound": "a backend was >= 90% busy: it, not the server under test, set the throughput",
    "neighbours": "other processes (or other guests of the hypervisor) took CPU during the window",
    "memory-growth": "the server's PSS kept growing through a long window, beyond the tolerance per 10,000 requests",
    "imprecise": "the window's throughput is known less precisely than --perf-precision asked, even in the longest "
    "window the suite measured it in",
    "gil-enabled": "a free-threaded build ran the window with the GIL back on: a module that does not declare it can "
    "run without the GIL turned it on; the figures are a GIL build's",
}


@dataclass(frozen=True)
class Flag:
    """One rule's finding on one record: its name (a key of MEANINGS) and what was seen, meant, and to do.

    ``cause``: the littles-law flag's cause as a short stable code (OUTSIDE_CAUSES, HARNESS_CAUSES), for counting
    without reading the message; None on the other rules.  Not stored (the check gives it again from the result), so
    not compared either: a flag read back from its record equals the one the check made."""

    name: str
    message: str
    cause: str | None = field(default=None, compare=False)

    def to_record(self) -> dict[str, str]:
        return {"name": self.name, "message": self.message}

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> Flag:
        return cls(str(rec["name"]), str(rec["message"]))


def _closed(r: Result) -> bool:
    """The closed model (wrk, oha without a rate, locust's users): every connection or user sends its next request
    when the answer is in (a locust user after its think time, when the record knows it)."""
    return r.shape.rate is None and (r.shape.workers is None or r.load.think_ms is not None)


def _designed_wait_ms(r: Result) -> float:
    """What the endpoint waits by design (a sleep, a slow upstream), in ms; 0 for a mix or an unknown workload."""
    workload = WORKLOADS.get(r.workload)
    return 0.0 if workload is None or workload.mix else workload.spec.min_seconds * 1000.0


def _cpu_us_per_request(r: Result) -> float | None:
    return None if r.server_cpu_s is None or not r.requests else r.server_cpu_s / r.requests * 1e6


def littles_ratio(r: Result) -> float | None:
    """Closed model only: rps x (mean latency + think time) / connections (1 in a steady state); None when it does
    not apply."""
    if not _closed(r) or not r.requests or r.load.duration_s <= 0 or not r.connections:
        return None
    return _in_flight_share(r, r.load.latency_ms["mean"] + (r.load.think_ms or 0.0))


def _in_flight_share(r: Result, cycle_ms: float) -> float:
    """rps x a connection's cycle (ms) / connections: the share of the connections' time the cycle accounts for."""
    return r.requests / r.load.duration_s * cycle_ms / 1000.0 / r.connections


def _kernel_dropped(r: Result, ratio: float) -> str | None:
    overflows, drops = r.kernel.get("listen_overflows", 0), r.kernel.get("listen_drops", 0)
    if not (overflows or drops):
        return None
    return (
        f"the kernel dropped connection attempts ({overflows:,} listen overflows, {drops:,} drops; "
        "see syn-drops): time connecting is outside any timed request"
    )


def _generator_late(r: Result, ratio: float) -> str | None:
    if not r.generator.saturated:
        return None
    return (
        f"the generator was {_short_of_cpu(r.generator)} (see generator-saturated): it sent each "
        "connection's next request late"
    )


def _users_waited(r: Result, ratio: float) -> str | None:
    wait = _users_wait(r) if ratio < 1 else None
    if wait is None:
        return None
    idle_ms, with_wait = wait
    return (
        f"{r.generator.name}'s users waited {idle_ms:.2f} ms per request between an answer and their "
        "next request beyond any think time (measured by the users: the generator's own Python and its "
        "turn on its one event loop, in no response time); with that wait their time covers "
        f"{with_wait:.0%} of the window: the generator could not keep its users busy"
    )


def _locust_cpu(r: Result, ratio: float) -> str | None:
    # A record without the users' measured gaps (with them, _users_waited speaks): a locust user runs its own Python
    # between an answer and its next request (task choice, the answer's checks, statistics), in no response time.
    # Its CPU per request bounds that time.
    if not (ratio < 1 and r.shape.workers is not None and r.requests and r.generator.cpu_s and r.load.gap_ms is None):
        return None
    missing_ms = (1 - ratio) * r.connections / (r.requests / r.load.duration_s) * 1000.0
    cpu_ms = r.generator.cpu_s / r.requests * 1000.0
    if missing_ms > cpu_ms:
        return None
    return (
        f"locust spent {cpu_ms:.2f} ms of its own CPU per request (its users' Python between an "
        f"answer and the next request, in no response time) against {missing_ms:.2f} ms per "
        "request the latencies do not cover"
    )


def _connections_failed(r: Result, ratio: float) -> str | None:
    failed = sum(r.load.errors[k] for k in ("connect", "read", "write", "timeout")) if ratio < 1 else 0
    if not failed:
        return None
    return (
        f"{failed:,} connections failed or timed out (the server's errors): reconnecting is outside any timed request"
    )


# What the record measured outside the harness that explains a ratio off 1, in the order a message names them:
# (cause code, what was seen or None).  The codes are those benchmarks/time_breakdown.py counts (two of them the
# flags that say more).  Not neighbours: they slow the server and the generator alike, and Little's law still holds
# between them.
OUTSIDE_CAUSES: tuple[tuple[str, Callable[[Result, float], str | None]], ...] = (
    ("syn-drops", _kernel_dropped),
    ("generator-saturated", _generator_late),
    ("generator's users waited", _users_waited),
    ("locust's CPU", _locust_cpu),
    ("failed connections", _connections_failed),
)


def _outside_causes(r: Result, ratio: float) -> list[tuple[str, str]]:
    """Every cause outside the harness the record measured for ``ratio``: (code, what was seen), in OUTSIDE_CAUSES
    order."""
    return [(code, seen) for code, cause in OUTSIDE_CAUSES if (seen := cause(r, ratio)) is not None]


def _users_wait(r: Result) -> tuple[float, float] | None:
    """A locust record's measured gap between an answer and the next request, beyond the think time (ms), and
    Little's law with it counted in the users' cycle, when that accounts for the users' time within
    LITTLE_TOLERANCE; None when the gap was not measured or does not account for it.  Called with a record that has a
    ratio (``littles_ratio``: requests, a window and connections)."""
    if r.load.gap_ms is None:
        return None
    with_wait = _in_flight_share(r, r.load.latency_ms["mean"] + r.load.gap_ms)
    if abs(with_wait - 1) > LITTLE_TOLERANCE:
        return None
    return r.load.gap_ms - (r.load.think_ms or 0.0), with_wait


def _held_meaning(r: Result, ratio: float) -> str:
    held = r.load.held_through
    return (
        f"{held} of {r.connections} connections sent no request in the window: each waited through it on a "
        "request sent before it and answered after it, or never (the server answered the other connections first; "
        f"a wait longer than the window), so the window's requests are the other {r.connections - held} "
        "connections' and their latencies are not the server's for all of them. The latencies are hidden "
        "from the summary; a window longer than the longest wait measures every connection"
    )


def _first_waits_meaning(r: Result, ratio: float) -> str:
    share = _first_wait_share(r)
    return (
        f"the connections spent {share:.0%} of the window waiting on the run's first requests, sent as it "
        f"began, or on requests never answered ({r.load.held_through or 0} of {r.connections} connections "
        "through the whole window): the server took its connections in turn, not at once, so some waited "
        f"from the run's start into the window; with that wait their time covers {ratio + share:.0%} of "
        "it. The window's requests are those of the connections the server had taken, and their latencies "
        "are not the server's for all of them: hidden from the summary"
    )


def _edges_meaning(r: Result, ratio: float) -> str:
    carried_in = waits_carried_in_s(r.load)
    whole = r.connections * r.load.duration_s
    return (
        f"the window's edges did not cancel: its connections carried {r.load.carried_out_s / whole:.0%} of "
        f"it out (the rest of its last requests) and {carried_in / whole:.0%} in (the rest of the "
        f"requests in flight as it opened), moving the ratio by {edge_share(r.load, r.connections):+.2f}: "
        f"the server's waits are long and uneven against a {r.load.duration_s:g} s window (the perf suite "
        f"measures such a window once more, {LONGER_WINDOWS} times as long, up to {MAX_WINDOW_S} s). The "
        "latencies are hidden from the summary; measure longer (--perf-duration)"
    )


def _said(template: str) -> Callable[[Result, float], str]:
    """A meaning that is ``template`` filled in with the record ``r``, its ``ratio`` and the saturation ``limit``."""
    return lambda r, ratio: template.format(r=r, ratio=ratio, limit=SATURATION_BUSY_PCT)


_IDLE_IN_STEADY = _said(
    "the connections' timed requests cover {ratio:.0%} of a steady-state window with no cause "
    "outside the harness measured: {r.generator.name} left its connections idle between an answer "
    "and the next request. The latencies are hidden from the summary"
)
_LOCUST_RUNNABLE = _said(
    "the users' timed requests (and think time) cover {ratio:.0%} of the window with no cause outside "
    "the harness measured: locust was runnable {r.generator.runnable_pct:.0f}% of the window (under "
    "the {limit:.0f}% limit) and its users still waited between an answer and their "
    "next request. The latencies are hidden from the summary; measure again on a quieter machine"
)
_LOCUST_COUNTS = _said(
    "the users' timed requests (and think time) cover {ratio:.0%} of the window with no cause outside "
    "the harness measured: locust's counts or window are not its users' (records measured before "
    "serverbench read locust's final statistics counted from its CSV, which misses up to the last "
    "second, over -t, while the users answered for about a second less). The latencies are hidden "
    "from the summary; measure again"
)
_DRAINED_START = _said(
    "the connections' timed requests cover {ratio:.0%} of the window with no cause outside the "
    "harness measured: {r.generator.name}'s window did not measure a steady state (it started on "
    "a drained server, so its first answers are an empty queue's, and dropped the requests in flight "
    "at its end). The latencies are hidden from the summary; measure longer (--perf-duration) or "
    "measure with --perf-closed-driver oha (a steady-state window)"
)
_OMISSION_SAMPLES = _said(
    "{r.generator.name}'s latencies add up to more time than its connections had: the throughput "
    "holds, the latencies do not and are hidden from the summary. wrk adds a synthetic sample for "
    "coordinated omission below every slow request (wrk.c's stats_correct; wg/wrk#438): records "
    "measured before serverbench removed those samples (its wrk reporter) carry them, 2-15x on "
    "gevent servers. Measure again, or with --perf-closed-driver oha"
)


@dataclass(frozen=True)
class HarnessCause:
    """A reason inside the harness for a ratio off 1 with no cause outside it: its code (what
    benchmarks/time_breakdown.py counts: "unexplained" where the record measured nothing that accounts for the
    gap and the message names the likely reason), when it applies, and what the message says."""

    code: str
    applies: Callable[[Result, float], bool]
    meaning: Callable[[Result, float], str]


# Tried in order; the first that applies is the one named (the last applies to any ratio above 1).
HARNESS_CAUSES: tuple[HarnessCause, ...] = (
    HarnessCause("held connections", lambda r, ratio: ratio < 1 and _held_through_explains(r, ratio), _held_meaning),
    HarnessCause(
        "first requests waited", lambda r, ratio: ratio < 1 and _first_waits_explain(r, ratio), _first_waits_meaning
    ),
    HarnessCause("window edges", lambda r, ratio: _edges_apart(r), _edges_meaning),
    HarnessCause("unexplained", lambda r, ratio: ratio < 1 and r.load.window == "steady", _IDLE_IN_STEADY),
    HarnessCause(
        "unexplained",
        lambda r, ratio: ratio < 1 and r.shape.workers is not None and r.generator.runnable_pct is not None,
        _LOCUST_RUNNABLE,
    ),
    HarnessCause("unexplained", lambda r, ratio: ratio < 1 and r.shape.workers is not None, _LOCUST_COUNTS),
    HarnessCause("unexplained", lambda r, ratio: ratio < 1, _DRAINED_START),
    HarnessCause("unexplained", lambda r, ratio: True, _OMISSION_SAMPLES),
)


def _littles_cause(r: Result, ratio: float) -> tuple[str, str]:
    """The cause of a ratio off 1 (code, meaning): every cause outside the harness the record measured (the first
    one's code), else the first of HARNESS_CAUSES that applies."""
    outside = _outside_causes(r, ratio)
    if outside:
        return outside[0][0], "measured cause outside the harness: " + "; ".join(seen for _, seen in outside)
    cause = next(c for c in HARNESS_CAUSES if c.applies(r, ratio))
    return cause.code, cause.meaning(r, ratio)


def _cycle_text(r: Result) -> str:
    """A connection's cycle as the message shows it: the mean latency, plus the think time where there is one."""
    cycle = f"{r.load.latency_ms['mean']:.2f} ms mean"
    return f"({cycle} + {r.load.think_ms:.2f} ms think time)" if r.load.think_ms else cycle


def littles_law(r: Result) -> Flag | None:
    """Closed model only: rps x (mean latency + think time) / connections within LITTLE_TOLERANCE of 1, or the
    cause named (the flag's ``cause``: its code)."""
    ratio = littles_ratio(r)
    if ratio is None or abs(ratio - 1) <= LITTLE_TOLERANCE:
        return None
    code, meaning = _littles_cause(r, ratio)
    who = "users" if r.shape.workers is not None else "connections"
    return Flag(
        "littles-law",
        f"{r.requests / r.load.duration_s:,.1f} rps x {_cycle_text(r)} = {ratio * r.connections:.1f} requests in "
        f"flight against {r.connections} {who} (ratio {ratio:.2f}, "
        f"healthy {1 - LITTLE_TOLERANCE:.2f}-{1 + LITTLE_TOLERANCE:.2f}): {meaning}",
        cause=code,
    )


def _edges_apart(r: Result) -> bool:
    """A steady window whose edges (the wait carried in and out of it) moved the ratio by more than EDGE_TOLERANCE."""
    share = edge_share(r.load, r.connections)
    return share is not None and abs(share) > EDGE_TOLERANCE


def _held_through_explains(r: Result, ratio: float) -> bool:
    """The connections that sent nothing in a steady window account for the time the window's requests do not
    cover: the others' share of the connections, ``(connections - held) / connections``, is the ratio within
    LITTLE_TOLERANCE (the others in a steady state of their own)."""
    held = r.load.held_through
    return bool(held) and abs((r.connections - held) / r.connections - ratio) <= LITTLE_TOLERANCE


def _first_wait_share(r: Result) -> float:
    """The share of a steady window's connection-time spent waiting on the run's first requests or on requests never
    answered (``first_wait_s`` over connections x the window); 0 where the driver cannot tell."""
    return (r.load.first_wait_s or 0.0) / (r.connections * r.load.duration_s)


def _first_waits_explain(r: Result, ratio: float) -> bool:
    """The waits on the run's first requests account for the time the window's requests do not cover: the ratio
    with them added is within LITTLE_TOLERANCE of 1 (the connections the server had taken in a steady state)."""
    return abs(ratio + _first_wait_share(r) - 1) <= LITTLE_TOLERANCE


def latency_known_wrong(r: Result) -> bool:
    """The suite knows this record's latencies are not the server's: Little's law fails with no cause outside
    the harness (a summary then shows none)."""
    ratio = littles_ratio(r)
    return ratio is not None and abs(ratio - 1) > LITTLE_TOLERANCE and not _outside_causes(r, ratio)


@cache
def _variants() -> dict:
    return registry()


def pool_size(variant: str) -> int | None:
    """Requests the variant serves at once when each blocks its thread (workers x threads; one per process for a
    C event loop running a WSGI app), from the catalog; None for greenlets, an event loop with async clients or an
    unknown variant (no pool bounds them)."""
    v = _variants().get(variant)
    return None if v is None else v.blocking_concurrency


@dataclass(frozen=True)
class Capacity:
    """A pool's designed capacity on one record: pool size, service time (ms) and the rps it allows."""

    pool: int
    service_ms: float

    @property
    def rps(self) -> float:
        return self.pool / self.service_ms * 1000.0


def capacity(r: Result) -> Capacity | None:
    """The record's pool capacity on an endpoint that waits by design, when the pool is smaller than the
    connections and the throughput sits within CAPACITY_BAND of it; else None."""
    pool, wait_ms, cpu_us = pool_size(r.variant), _designed_wait_ms(r), _cpu_us_per_request(r)
    if pool is None or not wait_ms or r.connections <= pool or r.load.duration_s <= 0 or not r.requests:
        return None
    cap = Capacity(pool, wait_ms + (cpu_us or 0.0) / 1000.0)
    return cap if abs(r.rps / cap.rps - 1) <= CAPACITY_BAND else None


def at_capacity(r: Result) -> Flag | None:
    """Throughput at the pool's designed capacity: named, with the capacity and the queueing delay it implies."""
    cap = capacity(r)
    if cap is None:
        return None
    wait_ms = r.connections / cap.rps * 1000.0  # Little's law: each of N connections waits N / capacity
    return Flag(
        "at-capacity",
        f"{r.rps:,.1f} rps is {r.rps / cap.rps:.0%} of the pool's designed capacity "
        f"{cap.rps:,.1f} rps ({cap.pool} workers/threads / {cap.service_ms:.1f} ms per request: the "
        f"endpoint's designed wait plus the server's CPU): with {r.connections} connections each request "
        f"waits {wait_ms:,.0f} ms, {wait_ms - cap.service_ms:,.0f} ms of it queued for the pool. The latency "
        "measures the queue, by design; give the pool more workers or threads to serve more",
    )


def no_answers(r: Result) -> Flag | None:
    """A window in which the server answered nothing: what held the connections, in one line."""
    if r.requests or r.load.duration_s <= 0:
        return None
    errors = ", ".join(f"{k} {n:,}" for k, n in r.load.errors.items() if n) or "no error either"
    held = ""
    if r.slow_clients is not None:
        s = r.slow_clients
        held = (
            f"; {s.opened} of {s.asked} {s.kind} clients were held beside them, the server dropped {len(s.dropped_s)}"
        )
    pool, wait_ms = pool_size(r.variant), _designed_wait_ms(r)
    pool_text = f" (a pool of {pool})" if pool is not None else ""
    if r.load.errors["timeout"] and pool is not None and wait_ms and r.connections > pool:
        queue_s = r.connections * wait_ms / pool / 1000.0  # Little's law at the pool's capacity
        return Flag(
            "no-answers",
            f"no request answered in {r.load.duration_s:.1f} s on {r.connections} connections "
            f"(errors: {errors}){held}: at the pool's designed capacity ({pool} / {wait_ms:.0f} ms) each "
            f"request waits about {queue_s:,.0f} s in its queue, longer than the generator's timeout, so "
            "every one timed out. Measure fewer connections, or a larger pool",
        )
    return Flag(
        "no-answers",
        f"no request answered in {r.load.duration_s:.1f} s on {r.connections} connections "
        f"(errors: {errors}){held}: the server{pool_text} accepted or read no request to the end, so every "
        "connection waited; its workers were held by something else (slow clients hold a sync worker "
        "each) or it stopped serving (read its log)",
    )


def server_cores(r: Result) -> float:
    """The cores the server could use in the window: its processes (1 for a variant the catalog does not know), at
    most what every other process left of the machine's cores (the host's counters; else the generator's and the
    backends' CPU), and never less than one: the kernel's scheduler gives a process that wakes to serve a request
    its turn however busy the others keep the machine (stock gevent-pywsgi stalled 44 ms at c8 with another
    session's processes holding both cores; the neighbours flag names them).  Apart from the server host, the
    machine is the server host: its cores, and what else used them, as its sampler read them (the session's own
    machine once read 1.6 cores for a server pinned to the server host's one, and flagged its full core a stall)."""
    v = _variants().get(r.variant)
    processes = v.processes if v is not None else 1
    there = (r.extra.get("sampler") or {}).get("server_host_cpu") or {}
    apart = _server_host(r)
    if apart is not None and there.get("cores"):
        busy, _, wall, _ = apart
        others = max(busy - r.server_cpu_s, 0.0) / wall  # type: ignore[operator]  # _server_host read it
        return float(min(processes, max(1.0, len(there["cores"]) - others)))
    cores = r.machine.get("cores")
    if not cores:
        return float(processes)
    if r.host_cpu_s is not None and r.host_wall_s and r.server_cpu_s is not None:
        others = max(r.host_cpu_s - r.server_cpu_s, 0.0) / r.host_wall_s
    else:
        others = r.generator.cpu_pct / 100.0 + sum((b.cpu_pct or 0.0) / 100.0 for b in r.backends)
    return float(min(processes, max(1.0, cores - others)))


def server_busy_share(r: Result) -> float | None:
    """The server's busy share of what the latency leaves it: the CPU its requests in flight need (N x CPU per
    request) over what the cores it could use give in one latency (latency x cores).  By Little's law N / latency
    is the throughput, so this is rps x CPU per request / cores: read over the window, which holds where a window's
    latencies do not (littles-law).  About 1 when its CPU holds requests up, on a fast machine or a slow one; None
    without the server's CPU or a window."""
    cpu_us = _cpu_us_per_request(r)
    if cpu_us is None or r.load.duration_s <= 0:
        return None
    return r.requests / r.load.duration_s * cpu_us / 1e6 / server_cores(r)


def stall_shares(r: Result) -> dict[str, float] | None:
    """The busy share of what each process of the cell could use: the server's of what the latency leaves it, the
    generator's of its cores (its threads, at most the machine's), each backend's of its cores; None when one is not
    measured (a backend at a URL may be the busy one)."""
    server = server_busy_share(r)
    if server is None or any(b.cpu_pct is None for b in r.backends):
        return None
    shares = {"server": server, "generator": r.generator.busy_pct / 100.0}
    shares.update({b.name: b.cpu_pct / 100.0 / max(1, b.cores) for b in r.backends})  # type: ignore[operator]
    return shares


def stall(r: Result) -> Flag | None:
    """Nothing near what it could do while the median request waits far beyond its service time."""
    shares, cpu_us = stall_shares(r), _cpu_us_per_request(r)
    if shares is None or cpu_us is None:
        return None
    service_ms = cpu_us / 1000.0 + _designed_wait_ms(r)
    p50 = r.load.latency_ms["p50"]
    if max(shares.values()) >= STALL_BUSY_SHARE or p50 < STALL_FACTOR * service_ms or p50 - service_ms < STALL_MIN_MS:
        return None
    if capacity(r) is not None:
        return None  # the queue for a pool at its designed capacity: at-capacity names it
    cores = server_cores(r)
    parts = [f"{name} {share:.0%}" for name, share in shares.items() if name not in ("server", "generator")]
    crowded = _crowded(r)  # the neighbours flag's figures: the cell was idle, the machine was not
    machine = (
        ""
        if crowded is None
        else f"; the machine was not idle: other processes used {crowded[0]:.0f}% of a core and the hypervisor stole "
        f"{crowded[1]:.0f}% (neighbours), so the wait may be theirs"
    )
    return Flag(
        "stall",
        f"p50 {p50:.1f} ms against a service time of {service_ms:.2f} ms (server CPU per request"
        f"{' plus the endpoint’s designed wait' if _designed_wait_ms(r) else ''}), while the server's CPU was "
        f"{shares['server']:.0%} of what the latency left it ({r.requests / r.load.duration_s:,.0f} rps x {cpu_us / 1000.0:.2f} ms of CPU "
        f"each, on the {cores:.2g} core(s) it could use), the generator "
        f"{shares['generator']:.0%} of its cores{''.join(', ' + p for p in parts)}{' of theirs' if parts else ''}; "
        f"each under {STALL_BUSY_SHARE:.0%}{machine}, below any pool's designed capacity: requests wait on something that "
        "uses no CPU. A ~40 ms stall is Nagle against delayed ACK (set TCP_NODELAY on accepted sockets); "
        "otherwise a lock, or a full accept queue (see syn-drops)",
    )


def syn_drops(r: Result) -> Flag | None:
    """The kernel counted listen-queue drops, or latency percentiles sit at the SYN retransmit times."""
    overflows, drops = r.kernel.get("listen_overflows", 0), r.kernel.get("listen_drops", 0)
    p50 = r.load.latency_ms["p50"]
    near = (
        []
        if r.kernel
        else [
            (k, r.load.latency_ms[k], t)
            for k in SYN_PERCENTILES
            for t in RETRANSMIT_MS
            if t - RETRANSMIT_EARLY_MS <= r.load.latency_ms[k] <= t + p50 + RETRANSMIT_LATE_MS
        ]
    )
    if not (overflows or drops or near):
        return None
    seen = []
    if overflows or drops:
        seen.append(
            f"the kernel counted {overflows:,} listen-queue overflows and {drops:,} listen drops during the window"
        )
    if near:
        seen.append(
            "latency "
            + ", ".join(f"{k} {v:,.0f} ms" for k, v, _ in near)
            + f" at the SYN retransmit times ({', '.join(f'{t / 1000:g} s' for t in RETRANSMIT_MS)})"
        )
    return Flag(
        "syn-drops",
        f"{'; '.join(seen)}: connections found the server's listen backlog full and waited "
        f"for a retransmit ({r.connections} connections). Raise the server's backlog (listen(2) argument, "
        "e.g. socketserver's request_queue_size) and net.core.somaxconn, or measure fewer connections",
    )


def error_statuses(r: Result) -> Flag | None:
    """Responses with an HTTP error status: said, with why their origin (app or server) is unknown."""
    n = r.load.errors["status"]
    if not n:
        return None
    return Flag(
        "error-statuses",
        f"{n:,} responses ({n / max(r.requests, 1):.1%} of the answered) had an HTTP "
        f"error status; {r.generator.name} counts statuses >= 400 but not who sent them, so this record "
        "cannot tell the app's errors (a failed backend call) from the server's own (a full queue, a "
        "protocol error): read the server's log and the app's, or rerun the endpoint alone",
    )


def generator_saturated(r: Result) -> Flag | None:
    """The load generator used at least SATURATION_BUSY_PCT of the cores it can use."""
    g = r.generator
    if not g.saturated:
        return None
    if g.hosts:  # across load hosts: name the busy ones, and the fix that holds there
        busy = [h for h in g.hosts if h.busy_pct >= SATURATION_BUSY_PCT]
        named = ", ".join(f"{h.name} {h.busy_pct:.0f}% of {min(h.processes, h.cores)} core(s)" for h in busy)
        return Flag(
            "generator-saturated",
            f"{g.name} on load host {named} (limit {SATURATION_BUSY_PCT:.0f}%): the server may be faster than "
            "measured. Add a load host to the inventory (docs/hosts.md), or give these hosts more cores",
        )
    return Flag(
        "generator-saturated",
        f"{g.name} was {_short_of_cpu(g)} (of {min(g.threads, g.cores)} "
        f"core(s); limit {SATURATION_BUSY_PCT:.0f}%): the server may be faster than measured. Give the "
        "generator more threads (--perf-threads) or more cores than the server needs",
    )


def _short_of_cpu(g: Generator) -> str:
    """How a saturated generator was short of CPU: busy, or runnable with part of it spent waiting for a core."""
    runnable = g.runnable_pct
    if runnable is None or g.busy_pct >= SATURATION_BUSY_PCT:
        return f"{g.busy_pct:.0f}% busy"
    cores = max(1, min(g.threads, g.cores))
    waited = 100.0 * g.run_queue.wait_s / g.run_queue.wall_s / cores
    return (
        f"runnable {runnable:.0f}% of the time (on a core {runnable - waited:.0f}%, waiting for one "
        f"{waited:.0f}%: the server and other processes held the cores; the kernel's schedstat)"
    )


def backend_bound(r: Result) -> Flag | None:
    """A backend used at least SATURATION_BUSY_PCT of the cores it can use."""
    bound = [b for b in r.backends if b.bound]
    if not bound:
        return None
    names = ", ".join(f"{b.name} {b.cpu_pct:.0f}% of {b.cores} core(s)" for b in bound)
    return Flag(
        "backend-bound",
        f"{names} (limit {SATURATION_BUSY_PCT:.0f}%): the backend, not the server under "
        "test, set this throughput; give the backend more cores or compare servers on a lighter endpoint",
    )


def _server_host(r: Result) -> tuple[float, float, float, float] | None:
    """A session apart from the server host: its cores' busy and stolen seconds over the window's wall time, beside
    what serverbench's own used there (the server, its sampler, the backends when they shared the host); None when the
    record has no such reading (a session on the server host, an older record)."""
    cores = (r.extra.get("sampler") or {}).get("server_host_cpu") or {}
    if cores.get("busy_s") is None or not cores.get("wall_s") or r.server_cpu_s is None:
        return None
    shared = ((r.extra.get("hosts") or {}).get("backends") or {}).get("shared_with_server")
    ours = r.server_cpu_s + ((r.extra.get("sampler") or {}).get("cpu_s") or 0.0)
    ours += sum(b.cpu_s or 0.0 for b in r.backends) if shared else 0.0
    return cores["busy_s"], cores.get("steal_s") or 0.0, cores["wall_s"], ours


def _crowded(r: Result) -> tuple[float, float] | None:
    """(other processes' share of a core, the hypervisor's stolen share) in the window, when either passes its limit:
    on the server host's cores when the session ran apart from it, else on the machine the session ran on."""
    apart = _server_host(r)
    if apart is not None:
        busy, steal, wall, ours = apart
        others_pct, steal_pct = 100.0 * max(busy - ours, 0.0) / wall, 100.0 * steal / wall
        return None if others_pct < NEIGHBOUR_PCT and steal_pct < STEAL_PCT else (others_pct, steal_pct)
    # Over the wall time the host's counters covered (an older record: the load's duration, which for locust's users'
    # window is shorter: its CPU then read up to 5x a core on 2 cores).  The generator's CPU is its whole run's; where
    # the run was longer than that (oha's lead-in), its share of the covered time.
    duration = r.host_wall_s or r.load.duration_s
    if r.host_cpu_s is None or r.server_cpu_s is None or duration <= 0:
        return None
    generator = r.generator.cpu_s * min(1.0, duration / r.generator.wall_s) if r.generator.wall_s > 0 else 0.0
    ours = r.server_cpu_s + generator + sum(b.cpu_s or 0.0 for b in r.backends)
    others_pct = 100.0 * max(r.host_cpu_s - ours, 0.0) / duration
    steal_pct = 100.0 * (r.host_steal_s or 0.0) / duration
    if others_pct < NEIGHBOUR_PCT and steal_pct < STEAL_PCT:
        return None
    return others_pct, steal_pct


def neighbours(r: Result) -> Flag | None:
    """Other processes on the machine (or other guests' stolen time) used a share of a core during the window."""
    crowded = _crowded(r)
    if crowded is None:
        return None
    others_pct, steal_pct = crowded
    apart = _server_host(r)
    duration = apart[2] if apart is not None else r.host_wall_s or r.load.duration_s
    where = " on the server host's cores" if apart is not None else ""
    return Flag(
        "neighbours",
        f"other processes used {others_pct:.0f}% of a core{where} during the window (limit "
        f"{NEIGHBOUR_PCT:.0f}%; the hypervisor stole {steal_pct:.0f}%, limit {STEAL_PCT:.0f}%) beside the "
        f"server's {100.0 * r.server_cpu_s / duration:.0f}% and the generator's {r.generator.cpu_pct:.0f}%: "
        "they competed for the cores, so the server looks slower and idler than it is (the stall and "
        "littles-law flags may be theirs). Rerun on a quiet machine, or compare in one interleaved A/B "
        "session (docs/gate.md)",
    )


def memory_growth(r: Result) -> Flag | None:
    """A window long enough to judge (a soak) whose PSS kept growing after warm-up (judge.memory)."""
    from .memory import growth, is_soak

    series = r.memory.get("series") or {}
    if not is_soak(series):
        return None
    found = growth(series["t_s"], series.get("pss_mb") or (), r.load.requests, r.load.duration_s)
    if found.verdict != "grows":
        return None
    return Flag(
        "memory-growth",
        f"{found.message}: the server keeps memory per request (a leak, or a cache "
        "without a bound); run longer to see whether it levels off, and compare the workers' PSS in the "
        "record's memory.series (docs/memory.md)",
    )


def imprecise(r: Result) -> Flag | None:
    """A steady window whose throughput did not reach the precision it was asked for (its record keeps both:
    ``precision``), after any window measured again."""
    precision = r.load.precision or {}
    asked, reached = precision.get("asked"), precision.get("rps")
    if asked is None or reached is None or reached <= asked:
        return None
    return Flag(
        "imprecise",
        f"{r.key}: throughput within ±{reached:.1%} over {r.load.duration_s:g} s ({precision.get('slices', '?')} "
        f"slices), asked ±{asked:.1%}: "
        "the machine's speed moved within the window more than the precision allows. Rerun on a quieter machine, "
        "raise --perf-window-max for a longer window, or ask less (--perf-precision)",
    )


def gil_enabled(r: Result) -> Flag | None:
    """A free-threaded build (``python.free_threaded``) whose server processes had the GIL on during the window, as
    the probe in them saw it (the record's ``gil``, measure.host.gil), naming the modules that turned it on."""
    gil = r.gil or {}
    if not r.python.get("free_threaded") or not gil.get("enabled"):
        return None
    modules = list(gil.get("enabled_by") or ())
    if modules:
        why = f"importing {', '.join(modules)} turned it on (not declared free-threading safe)"
        fix = f"use a release of {modules[0].split('.')[0]} that declares it, or a variant without it"
    else:
        why = f"it was on from the start (PYTHON_GIL={gil['gil_env']})" if gil.get("gil_env") else "no module was named"
        fix = "start the server without PYTHON_GIL=1 / -X gil=1"
    return Flag(
        "gil-enabled",
        f"{r.key}: the GIL was on during the window on {r.python.get('implementation')} {r.python.get('version')} "
        f"free-threaded: {why}. The figures are a GIL build's, not free-threaded ones: {fix} "
        "(PYTHON_GIL=0 keeps it off at your own risk)",
    )


RULES: tuple[Callable[[Result], Flag | None], ...] = (
    no_answers,
    littles_law,
    at_capacity,
    stall,
    syn_drops,
    error_statuses,
    generator_saturated,
    backend_bound,
    neighbours,
    memory_growth,
    imprecise,
    gil_enabled,
)


def check(record: Result) -> list[Flag]:
    """Every rule that reads one record alone, in RULES order."""
    return [flag for flag in (rule(record) for rule in RULES) if flag is not None]


def _waits(r: Result) -> bool:
    workload = WORKLOADS.get(r.workload)
    return workload is not None and not workload.mix and bool(workload.spec.backends or workload.spec.min_seconds)


def busy_waiting(r: Result, lighter: Iterable[Result]) -> Flag | None:
    """CPU per request on a waiting workload against the cheapest of ``lighter`` (same variant and shape)."""
    cost = _cpu_us_per_request(r)
    costs = [(c, x) for x in lighter if (c := _cpu_us_per_request(x)) is not None]
    if cost is None or not costs or not _waits(r):
        return None
    base, ref = min(costs, key=lambda pair: pair[0])
    if (
        cost < BUSY_RATIO * base
        or cost - base < BUSY_EXTRA_US
        or r.load.duration_s <= 0
        or r.server_cpu_s / r.load.duration_s / server_cores(r) < BUSY_MIN_SHARE
    ):
        return None
    return Flag(
        "busy-waiting",
        f"{cost:,.0f} µs of server CPU per request on {r.workload}, against {base:,.0f} µs "
        f"on {ref.workload} at the same shape ({cost / base:.1f}x, {cost - base:,.0f} µs more): the server "
        f"burns CPU while it waits for {', '.join(WORKLOADS[r.workload].spec.backends) or 'the wait'} "
        "(busy polling, spinning worker threads). Profile the server at this workload",
    )


def _group(r: Result) -> tuple:
    return r.test, r.variant, r.app, r.shape.label, r.python.get("implementation"), r.python.get("version")


def check_session(records: Sequence[Result]) -> list[list[Flag]]:
    """The flags of every record (``check``) plus the rules that compare records of one session, in order."""
    light: dict[tuple, list[Result]] = {}
    for r in records:
        if r.workload in LIGHT_WORKLOADS:
            light.setdefault(_group(r), []).append(r)
    out = []
    for r in records:
        flags = check(r)
        busy = busy_waiting(r, light.get(_group(r), ()))
        out.append(flags + ([busy] if busy is not None else []))
    return out
