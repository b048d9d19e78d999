"""A closed-model request's timeout, sized to the cell.  Pure: the variant's data and the workload in, seconds out.

In a closed model each of N connections always has one request in flight, so a server that serves P requests at
once, each taking its endpoint's designed wait w (a sleep, a slow upstream), answers P / w a second and each
request waits N x w / P in its queue (Little's law).  A timeout shorter than that queue turns a slow-but-working
server's latency into errors: `meinheld` (one process, a blocking client) on /upstream at 64 connections queues
each request 6.4 s, past the drivers' 5 s.  So the timeout is QUEUE_MARGIN times the designed queue, never below
DEFAULT_TIMEOUT_S and never above MAX_TIMEOUT_S; the record keeps the timeout used (``generator.timeout_s``).
"""
from __future__ import annotations

import math

from .variants import Variant
from .workloads import Workload

# The drivers' timeout on a cell with no designed queue (wrk's and oha's --timeout since they were added).
DEFAULT_TIMEOUT_S = 5
# A queue is served in no fixed order (a C event loop takes whichever socket epoll reports; threads race for
# accept), so a request can wait longer than the mean: measured max / mean on /upstream at 64 connections
# (docs/measurements.md, "Timeouts sized to the cell") stays below this.
QUEUE_MARGIN = 2.0
# The upper bound: a run waits up to its timeout for the answers in flight after its window, so this bounds a
# cell's time; a designed queue longer than MAX_TIMEOUT_S / QUEUE_MARGIN (15 s) is one to measure with fewer
# connections or a larger pool, and its timeouts fail the cell.
MAX_TIMEOUT_S = 30


def designed_queue_s(concurrency: int | None, wait_s: float, connections: int) -> float:
    """Seconds each request waits in a closed model at the designed capacity (``concurrency`` requests of ``wait_s``
    at once): connections x wait / concurrency; 0 when nothing bounds the server, nothing waits by design or
    every connection is served at once."""
    if concurrency is None or concurrency <= 0 or wait_s <= 0 or connections <= concurrency:
        return 0.0
    return connections * wait_s / concurrency


def closed_timeout_s(concurrency: int | None, wait_s: float, connections: int) -> int:
    """The per-request timeout (whole seconds, as the drivers take it): QUEUE_MARGIN x the designed queue, within
    [DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S]."""
    queue = designed_queue_s(concurrency, wait_s, connections)
    return min(MAX_TIMEOUT_S, max(DEFAULT_TIMEOUT_S, math.ceil(round(QUEUE_MARGIN * queue, 6))))


def cell_timeout_s(variant: Variant | None, workload: Workload, connections: int) -> int:
    """The closed-model timeout of ``variant`` (None: a server the catalog does not describe) serving ``workload``
    at ``connections``: a URL mix has no one designed wait, so it keeps the default."""
    if variant is None or workload.mix:
        return DEFAULT_TIMEOUT_S
    return closed_timeout_s(variant.blocking_concurrency, workload.spec.min_seconds, connections)
