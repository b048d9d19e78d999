"""A closed-model request's timeout, sized to the cell.  Pure: the variant's data and the workload in, seconds out.

In a closed model each of N connections always has one request in flight, so a server that serves P requests at
once, each taking its endpoint's designed wait w (a sleep, a slow upstream), answers P / w a second and each
request waits Q = N x w / P in its queue on average (Little's law).  A timeout shorter than the waits such a server
gives turns a slow-but-working server's latency into errors: `meinheld` (one process, a blocking client) on
/upstream at 64 connections queues each request 6.4 s, past the drivers' 5 s.  And a queue is not served in order
everywhere: a C event loop takes whichever socket epoll reports, so a connection can starve while the others are
served, until the load stops and the queue drains (measured on `meinheld`: 5 requests timed out at 13 s, twice Q,
all from the run's first seconds).  On a server serving at its designed capacity no request waits longer than the
run's load plus the drain of one queue, so a cell with a designed queue gets that bound, the queue taken twice for
the server's own CPU and an uneven drain: lead-in + duration + trail + QUEUE_MARGIN x Q, never below DEFAULT_TIMEOUT_S and
never above MAX_TIMEOUT_S.  The record keeps the timeout used (``generator.timeout_s``).
"""

from __future__ import annotations

import math

from .variants import Variant
from .workloads import Workload

# The drivers' timeout (wrk's and oha's --timeout, their default) on a cell with no designed queue.
DEFAULT_TIMEOUT_S = 5
# The queue counted twice in the bound: the server's CPU per request adds to the designed wait, and the drain
# after the load stops need not be in order.
QUEUE_MARGIN = 2.0
# The upper bound: a run waits up to its timeout for the answers in flight after its window, so this bounds a
# cell's time; a cell whose bound is longer (a designed queue over ~11 s, or a long --perf-duration) is one to
# measure with fewer connections or a larger pool, and a request starved past it fails the cell as a timeout.
# It covers the longest load catalog.windows sizes (a 30 s lead-in, a 60 s window and a 10 s trail): a connection a
# server leaves unanswered through the whole run is then held through the window, not given up inside it.
MAX_TIMEOUT_S = 100


def designed_queue_s(concurrency: int | None, wait_s: float, connections: int) -> float:
    """Seconds each request waits in a closed model at the designed capacity (``concurrency`` requests of ``wait_s``
    at once): connections x wait / concurrency; 0 when nothing bounds the server, nothing waits by design or
    every connection is served at once."""
    if concurrency is None or concurrency <= 0 or wait_s <= 0 or connections <= concurrency:
        return 0.0
    return connections * wait_s / concurrency


def closed_timeout_s(concurrency: int | None, wait_s: float, connections: int, run_s: float) -> int:
    """The per-request timeout (whole seconds, as the drivers take it) of a run whose load lasts ``run_s`` (the
    driver's lead-in and the window): DEFAULT_TIMEOUT_S without a designed queue, else run_s + QUEUE_MARGIN x the
    queue, within [DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S]."""
    queue = designed_queue_s(concurrency, wait_s, connections)
    if not queue:
        return DEFAULT_TIMEOUT_S
    return min(MAX_TIMEOUT_S, max(DEFAULT_TIMEOUT_S, math.ceil(round(run_s + QUEUE_MARGIN * queue, 6))))


def cell_timeout_s(variant: Variant | None, workload: Workload, connections: int, run_s: float) -> int:
    """The closed-model timeout of ``variant`` (None: a server the catalog does not describe) serving ``workload``
    at ``connections`` for ``run_s`` of load: a URL mix has no one designed wait, so it keeps the default."""
    if variant is None or workload.mix:
        return DEFAULT_TIMEOUT_S
    return closed_timeout_s(variant.blocking_concurrency, workload.spec.min_seconds, connections, run_s)
