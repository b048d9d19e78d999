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
"""
from __future__ import annotations

import math

from .timeouts import designed_queue_s
from .variants import Variant
from .workloads import Workload

# A window at least this many designed queues long: each edge (carried in, carried out) weighs 1 / 10 of it.
WINDOW_QUEUES = 5
# The longest window sizing gives (the load lasts it, and the queue's drain after it).
MAX_WINDOW_S = 60
# A lead-in at least this many designed queues long (oha's closed model), at most MAX_LEAD_S.
LEAD_QUEUES = 2.5
MAX_LEAD_S = 30


def closed_window_s(concurrency: int | None, wait_s: float, connections: int, duration_s: int) -> int:
    """The window (whole seconds) of a closed-model run asked for ``duration_s``: at least WINDOW_QUEUES x the designed
    queue (``concurrency`` requests of ``wait_s`` at once, ``connections`` waiting), at most MAX_WINDOW_S unless
    ``duration_s`` asks for more; ``duration_s`` when nothing queues by design."""
    queue = designed_queue_s(concurrency, wait_s, connections)
    return max(duration_s, min(MAX_WINDOW_S, math.ceil(round(WINDOW_QUEUES * queue, 6))))


def closed_lead_s(concurrency: int | None, wait_s: float, connections: int, lead_s: int) -> int:
    """The lead-in (whole seconds) of a closed-model run whose driver leads in ``lead_s``: at least LEAD_QUEUES x the
    designed queue, at most MAX_LEAD_S unless ``lead_s`` is longer; ``lead_s`` when nothing queues by design."""
    queue = designed_queue_s(concurrency, wait_s, connections)
    return max(lead_s, min(MAX_LEAD_S, math.ceil(round(LEAD_QUEUES * queue, 6))))


def cell_lead_s(variant: Variant | None, workload: Workload, connections: int, lead_s: int) -> int:
    """The closed-model lead-in of ``variant`` serving ``workload`` at ``connections`` for a driver that leads in
    ``lead_s`` (0: a driver with none keeps none), as ``cell_window_s`` sizes the window."""
    if variant is None or workload.mix or lead_s <= 0:
        return lead_s
    return closed_lead_s(variant.blocking_concurrency, workload.spec.min_seconds, connections, lead_s)


def cell_window_s(variant: Variant | None, workload: Workload, connections: int, duration_s: int) -> int:
    """The closed-model window of ``variant`` (None: a server the catalog does not describe) serving ``workload`` at
    ``connections``, asked for ``duration_s``: a URL mix has no one designed wait, so it keeps ``duration_s``."""
    if variant is None or workload.mix:
        return duration_s
    return closed_window_s(variant.blocking_concurrency, workload.spec.min_seconds, connections, duration_s)
