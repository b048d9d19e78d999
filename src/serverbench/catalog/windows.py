"""A closed-model window, sized to the cell's designed queue.  Pure: the variant's data and the workload in, seconds out.

A closed-model window counts the requests *sent* in it, each with its whole latency (oha waits for the answers in
flight after it).  Each connection's requests sent in the window cover the window, less the wait it carried in (the
rest of the request it had in flight when the window opened) plus the wait it carried out (the rest of its last one),
so rps x mean latency / connections is 1 less what the connections carried in plus what they carried out.  Both
are about half a queue Q a connection (catalog.timeouts.designed_queue_s), equal on average; in one window their
difference is noise of the order of Q / the window, and a server that serves its connections unevenly (a C event
loop takes whichever socket epoll reports, so a connection can wait several queues) makes it larger.

Measured with oha at 64 connections on /upstream (2026-11-26, oha's rows): `bjoern` (Q = 6.4 s) in a 5 s window
read 0.21 and 0.75, with 30 and 49 connections held through it, its latencies those of the connections it happened
to serve; in a 20 s window 0.95, none held, mean 6.5 s (the queue), the longest 18.9 s.  `gunicorn-meinheld-w2`
(Q = 3.2 s): 0.95 in 5 s (0.37 carried in, 0.32 out), 0.99 in 20 s (0.09 and 0.08).  So a cell with a designed
queue gets a window of at least WINDOW_QUEUES queues, whose edges weigh 1 / (2 x WINDOW_QUEUES) each, and never
more than MAX_WINDOW_S (a cell whose queue needs more is one to measure with fewer connections or a larger pool).

The lead-in (oha: load before the window, in the same run) is sized too.  A run starts with every connection's first
request sent at once; a server that serves unevenly takes several queues to reach the waits it gives in steady state,
and until then the requests carried into the window are that first wave's.  Measured on `meinheld` /upstream at 64
connections (Q = 6.4 s, one 34 s run's rows cut into windows): a 2 s lead-in read 0.55 (5 s), 0.86 (32 s); 10 s
0.89-0.93; 16 s 0.98-1.01.  So a cell with a designed queue loads the server LEAD_QUEUES queues before its window
opens, at most MAX_LEAD_S.

The trail (oha: load after the window, in the same run, its requests not counted) keeps the load on while the
window's last requests are answered.  Without it the run stops sending as the window closes, the server answers
what is left with nothing new beside it, and a server that serves its connections unevenly answers them sooner than
it would have under load: the wait carried out of the window comes out short and the ratio low.  Measured with oha
on `gunicorn-gevent-w2` /json at 64 connections (2026-11-26, four runs' rows, a 2 s lead-in and a 5 s window):
carried in 0.02-0.085 of the window, carried out 0.002-0.005 with the load stopped, ratios 0.92-0.98; the same rows
cut 1 s before the run's end (a 1 s trail under load) carried out 0.04-0.10 and read 0.96-1.02.  So every closed
run keeps TRAIL_S (the driver's) after its window, and a cell with a designed queue TRAIL_QUEUES queues (the wait a
request carried out still has is at most about one queue), at most MAX_TRAIL_S.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .timeouts import designed_queue_s
from .variants import POOL_WORKERS, Variant
from .workloads import Workload

# A window at least this many designed queues long: each edge (carried in, carried out) weighs 1 / 10 of it.
WINDOW_QUEUES = 5
# The longest window sizing gives (the load lasts it, and the queue's drain after it).
MAX_WINDOW_S = 60
# A lead-in at least this many designed queues long (oha's closed model), at most MAX_LEAD_S.
LEAD_QUEUES = 2.5
MAX_LEAD_S = 30
# A trail at least this many designed queues long (oha's closed model), at most MAX_TRAIL_S.
TRAIL_QUEUES = 1
MAX_TRAIL_S = 10
# The lead-in of a run on a server that has just served another workload (one start serves all of a cell's): its
# interpreter, imports and caches are warm, so the lead-in opens the connections and fills the endpoint's own pools
# (a backend client's connections), and --perf-warmup is a cold server's.  Measured: benchmarks/results/answers.json.
WARM_LEAD_S = 0.5


@dataclass(frozen=True)
class Queues:
    """How many designed queues a cell's lead-in, window and trail last at least."""

    lead: float
    window: float
    trail: float


# A server that takes its connections unevenly (a C event loop serves whichever socket epoll reports; greenlets):
# the lead-in and trail measured above, and a window of three queues (each edge a sixth of it; one that misses is
# measured again, longer: longer_window_s).
ANY_ORDER = Queues(LEAD_QUEUES, 3.0, TRAIL_QUEUES)
# A pool (sync workers, threads) takes its queued requests in the order they came (the kernel's accept queue, a thread
# pool's task queue): after its first wave it is in steady state, and it answers a window's last requests in order
# whatever comes after them, so one queue of lead-in, two of window and no trail beyond the driver's own.
IN_ORDER = Queues(1.0, 2.0, 0.0)


def kernel_queued(variant: Variant, connections: int) -> bool:
    """Whether the connections beyond the server's fixed listen backlog wait in the kernel (its SYN retransmits), not
    in the server's queue: no window sized to the designed queue measures that queue, and syn-drops names it."""
    return variant.backlog is not None and connections > variant.backlog


def queues_of(variant: Variant) -> Queues:
    """The queues a variant's cells are sized in: IN_ORDER for a pool (catalog.variants.POOL_WORKERS), else ANY_ORDER."""
    return IN_ORDER if variant.worker in POOL_WORKERS else ANY_ORDER


def _at_least_queues(
    queues: float, cap: int, concurrency: int | None, wait_s: float, connections: int, asked_s: int
) -> int:
    """``asked_s``, or ``queues`` x the designed queue (whole seconds, rounded up) when that is longer, at most ``cap``
    unless ``asked_s`` is longer still; ``asked_s`` when nothing queues by design."""
    queue = designed_queue_s(concurrency, wait_s, connections)
    return max(asked_s, min(cap, math.ceil(round(queues * queue, 6))))


def closed_window_s(
    concurrency: int | None,
    wait_s: float,
    connections: int,
    duration_s: int,
    ceiling_s: int = MAX_WINDOW_S,
    queues: float = WINDOW_QUEUES,
) -> int:
    """The window (whole seconds) of a closed-model run asked for ``duration_s``: at least ``queues`` x the designed
    queue (``concurrency`` requests of ``wait_s`` at once, ``connections`` waiting), at most ``ceiling_s`` unless
    ``duration_s`` asks for more; ``duration_s`` when nothing queues by design."""
    return _at_least_queues(queues, ceiling_s, concurrency, wait_s, connections, duration_s)


def closed_lead_s(
    concurrency: int | None, wait_s: float, connections: int, lead_s: float, queues: float = LEAD_QUEUES
) -> float:
    """The lead-in (whole seconds) of a closed-model run whose driver leads in ``lead_s``: at least LEAD_QUEUES x the
    designed queue, at most MAX_LEAD_S unless ``lead_s`` is longer; ``lead_s`` when nothing queues by design."""
    return _at_least_queues(queues, MAX_LEAD_S, concurrency, wait_s, connections, lead_s)


def closed_trail_s(
    concurrency: int | None, wait_s: float, connections: int, trail_s: float, queues: float = TRAIL_QUEUES
) -> float:
    """The trail (whole seconds) of a closed-model run whose driver trails ``trail_s``: at least TRAIL_QUEUES x the
    designed queue, at most MAX_TRAIL_S unless ``trail_s`` is longer; ``trail_s`` when nothing queues by design."""
    return _at_least_queues(queues, MAX_TRAIL_S, concurrency, wait_s, connections, trail_s)


def warm_lead_s(variant: Variant | None, workload: Workload, connections: int, warm: bool, warmup_s: float) -> float:
    """A closed run's lead-in: ``warmup_s`` (--perf-warmup) on a cold server, WARM_LEAD_S (at most that) on one that
    has just served another workload, either sized to the cell's designed queue (``cell_lead_s``)."""
    floor = min(WARM_LEAD_S, warmup_s) if warm else warmup_s
    return cell_lead_s(variant, workload, connections, floor) if floor > 0 else floor


def cell_lead_s(variant: Variant | None, workload: Workload, connections: int, lead_s: int) -> int:
    """The closed-model lead-in of ``variant`` serving ``workload`` at ``connections`` for a driver that leads in
    ``lead_s`` (0: a driver with none keeps none), as ``cell_window_s`` sizes the window."""
    if variant is None or workload.mix or lead_s <= 0 or kernel_queued(variant, connections):
        return lead_s
    return closed_lead_s(
        variant.blocking_concurrency, workload.spec.min_seconds, connections, lead_s, queues_of(variant).lead
    )


def cell_trail_s(variant: Variant | None, workload: Workload, connections: int, trail_s: int) -> int:
    """The closed-model trail of ``variant`` serving ``workload`` at ``connections`` for a driver that trails
    ``trail_s`` (0: a driver with none keeps none), as ``cell_lead_s`` sizes the lead-in."""
    if variant is None or workload.mix or trail_s <= 0 or kernel_queued(variant, connections):
        return trail_s
    return closed_trail_s(
        variant.blocking_concurrency, workload.spec.min_seconds, connections, trail_s, queues_of(variant).trail
    )


def cell_window_s(
    variant: Variant | None, workload: Workload, connections: int, duration_s: int, ceiling_s: int = MAX_WINDOW_S
) -> int:
    """The closed-model window of ``variant`` (None: a server the catalog does not describe) serving ``workload`` at
    ``connections``, asked for ``duration_s``, at most ``ceiling_s``: a URL mix has no one designed wait, so it keeps
    ``duration_s``."""
    if variant is None or workload.mix or kernel_queued(variant, connections):
        return duration_s
    return closed_window_s(
        variant.blocking_concurrency,
        workload.spec.min_seconds,
        connections,
        duration_s,
        ceiling_s,
        queues_of(variant).window,
    )


def cell_queue_s(variant: Variant | None, workload: Workload, connections: int) -> float:
    """The designed queue of ``variant`` serving ``workload`` at ``connections`` (catalog.timeouts); 0 for a server
    the catalog does not describe or a URL mix."""
    if variant is None or workload.mix or kernel_queued(variant, connections):
        return 0.0
    return designed_queue_s(variant.blocking_concurrency, workload.spec.min_seconds, connections)


# A steady window whose edges miss each other by more than this share of it (the wait carried out, less the wait
# carried in and the first waits, over connections x the window) has not converged: each edge weighs 1 / the window's
# length.
EDGE_TOLERANCE = 0.03
# A steady window has converged when its throughput is known within this share (the 95% interval's half-width,
# relative: drivers.oha.window_precision) and its edges within EDGE_TOLERANCE (so its mean latency is the
# connections over its throughput within them: Little's law).  Measured on this shared 2-core machine (2026-11-27,
# 50 cells of the default run's workloads, at commit 2d56b1e; the run's file was never kept): 2 s windows
# reached a median of 10% (6-22%), 8 s windows 7%: the machine's speed moves within a second by more than a window's
# requests vary.  The default run's median since: precision_rps_median in benchmarks/results/answers.json.
PRECISION = 0.20
# A window that has not converged is measured once more, at most this many times as long (and at most the ceiling).
LONGER_WINDOWS = 4
# An interval narrows as 1 / sqrt(the window): the window measured again is sized to reach the precision asked with
# this margin (its noise is itself an estimate from a few slices).
PRECISION_MARGIN = 1.5


@dataclass(frozen=True)
class WindowPolicy:
    """When a steady window has converged: its throughput and mean latency each within ``precision`` (relative
    half-width of the 95% interval), its edges within EDGE_TOLERANCE; a window measured again lasts at most
    ``ceiling_s``."""

    precision: float = PRECISION
    ceiling_s: int = MAX_WINDOW_S


DEFAULT_POLICY = WindowPolicy()


class MeasuredWindow(Protocol):
    """What the window policy reads of a measured window (records.schema.LoadReport, whose fields say what each
    is): its length, its errors, its edges and first waits, its precision and its lead-in."""

    duration_s: float
    errors: Mapping[str, int]
    run_errors: Mapping[str, int] | None
    held_through: int | None
    first_wait_s: float | None
    carried_in_s: float | None
    carried_out_s: float | None
    precision: Mapping[str, Any] | None
    lead_s: float | None
    first_answered_s: float | None


def waits_carried_in_s(load: MeasuredWindow) -> float:
    """The connection-seconds of a steady window spent on requests sent before it: ``carried_in_s`` and the run's
    first requests' ``first_wait_s`` (0 where unknown)."""
    return (load.carried_in_s or 0.0) + (load.first_wait_s or 0.0)


def edge_share(load: MeasuredWindow, connections: int) -> float | None:
    """What a steady window's edges move rps x mean latency / connections by: the wait its connections carried out of
    it, less the wait they carried in (``carried_in_s`` and the run's first requests' ``first_wait_s``), over their
    time in it; None where the driver cannot tell, 0 for a window of no time or no connection."""
    if load.carried_in_s is None or load.carried_out_s is None:
        return None
    if connections <= 0 or load.duration_s <= 0:
        return 0.0
    return (load.carried_out_s - waits_carried_in_s(load)) / (connections * load.duration_s)


def unconverged(load: MeasuredWindow, connections: int, policy: WindowPolicy = DEFAULT_POLICY) -> dict[str, float]:
    """What a steady window has not yet measured well enough: ``edges`` (the edge share, beyond EDGE_TOLERANCE) and
    ``rps`` (the half-width reached, beyond ``policy.precision``); empty when it converged or the driver cannot tell."""
    out: dict[str, float] = {}
    share = edge_share(load, connections)
    if share is not None and abs(share) > EDGE_TOLERANCE:
        out["edges"] = share
    reached = (load.precision or {}).get("rps")
    if reached is not None and reached > policy.precision:
        out["rps"] = reached
    return out


def started_late(load: MeasuredWindow) -> bool:
    """Whether the run's first requests (one per connection, sent as it began) were still being answered when the
    window opened: a server that takes its connections in turn, whose lead-in was too short for it."""
    return load.first_answered_s is not None and load.lead_s is not None and load.first_answered_s > load.lead_s


# The longest lead-in a window measured again gets for a run that started late: a server that takes its connections
# more slowly than that (bjoern on /upstream takes one more per round of those it serves: 42 of 64 after 48 s) is
# named by the first waits instead (measured 2026-11-27: bjoern /upstream measured again in 100 s, still 0.76).
MAX_AGAIN_LEAD_S = 10


def again_lead_s(load: MeasuredWindow) -> float | None:
    """The lead-in of a window measured again when the run started late (``started_late``) but the server had taken
    every connection before the window closed: long enough for every connection's first request to be answered
    before it ends (1.5 times the time that took), at least twice this one, whole seconds; None when the run did not
    start late, when a connection was not taken within the window (uWSGI's --http-socket starves most), or when that
    lead-in would pass MAX_AGAIN_LEAD_S."""
    if not started_late(load) or load.first_answered_s > load.lead_s + load.duration_s:
        return None
    lead = math.ceil(round(max(2 * load.lead_s, 1.5 * load.first_answered_s), 6))
    return lead if lead <= MAX_AGAIN_LEAD_S else None


def longer_window_s(
    load: MeasuredWindow, connections: int, listen_drops: int = 0, policy: WindowPolicy = DEFAULT_POLICY
) -> int | None:
    """The window (whole seconds) to measure again in when this one did not converge (``unconverged``): long enough
    for each edge to weigh half of EDGE_TOLERANCE (an edge's weight falls as 1 / the window) and for each interval to
    narrow to the precision asked (as 1 / sqrt(the window), with PRECISION_MARGIN), at least twice and at most
    LONGER_WINDOWS times this window, at most ``policy.ceiling_s``.  None when it converged, when the driver cannot
    tell, or when the window already lasts the ceiling.  Nor when the run failed a request, held a connection through
    the window, or had connections' SYNs dropped (``listen_drops``, the kernel's over the run): the connections then
    spent time in no answered request, the window's numbers are not all that moves, and the checks name those causes
    (measured in the default run of 2026-11-26: 14 such cells measured again, 10 min of load, every one still named by
    them).

    Measured with oha on `gunicorn-gevent-w2` /json at 64 connections (2026-11-26, a 1 s trail): each edge carried
    0.02-0.11 of a 5 s window (a gevent worker serves its connections in bursts, 1 s waits beside 0.5 ms ones), and
    their difference moved the ratio by up to 0.086 (1.09); a window four times as long weighs each a quarter."""
    missing = unconverged(load, connections, policy)
    if not missing or load.duration_s >= policy.ceiling_s:
        return None
    failed = sum(n for kind, n in (load.run_errors or load.errors).items() if kind != "status")  # a status: answered
    if failed or listen_drops or (load.held_through and again_lead_s(load) is None):
        return None
    needs = [load.duration_s * abs(missing["edges"]) / (EDGE_TOLERANCE / 2)] if "edges" in missing else []
    if "rps" in missing:
        needs.append(load.duration_s * (missing["rps"] / policy.precision) ** 2 * PRECISION_MARGIN)
    grown = min(max(needs), LONGER_WINDOWS * load.duration_s)
    return min(policy.ceiling_s, math.ceil(round(max(grown, 2 * load.duration_s), 6)))


def ceiling_problems(queues: Mapping[str, tuple[float, float]], ceiling_s: int) -> tuple[list[str], list[str]]:
    """The cells a window ceiling cannot measure, and those it measures in fewer queues than their sizing asks, given
    each cell's designed queue and the queues its window lasts (by a label naming the cell): a window shorter than one
    queue holds no request sent in it that was answered in it; a shorter one than sized weighs its edges more."""
    short = [f"{name} (queue {q:.1f} s)" for name, (q, _) in queues.items() if q > ceiling_s]
    capped = [
        f"{name} (queue {q:.1f} s, window {ceiling_s} s)" for name, (q, n) in queues.items() if q <= ceiling_s < n * q
    ]
    return short, capped
