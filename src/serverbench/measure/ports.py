"""Listening ports for servers and backends: free, on loopback, and never the same for two xdist workers.

Under pytest-xdist several workers start servers at once, and two that pick the same free port
before either has bound it collide.  So each worker takes its ports only from its own slice of
the range, derived from the ``PYTEST_XDIST_WORKER`` (``gw3``) and ``PYTEST_XDIST_WORKER_COUNT``
that xdist sets in every worker (the per-worker ranges pytest-redis and pytest-postgresql users
set up by hand); a sub-session a worker starts inherits them and stays in its slice.  Inside
one process, a port handed out recently is not handed out again: a server may not have bound
it yet when the next one is picked.
"""
from __future__ import annotations

import os
import threading
from collections import deque
from typing import Mapping

import port_for

# Listening ports stay below the ephemeral range, where a client's TIME_WAIT socket can sit on
# "our" port after connection-per-request runs.
PORT_RANGE = range(10000, 32768)
RECENT = 64  # ports remembered per process: more than any test starts before its servers bind

_recent: deque[int] = deque(maxlen=RECENT)
_lock = threading.Lock()


def worker_range(environ: Mapping[str, str] = os.environ, ports: range = PORT_RANGE) -> range:
    """This xdist worker's slice of ``ports`` (all of them outside xdist); slices never overlap."""
    worker, count = environ.get("PYTEST_XDIST_WORKER", ""), environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not (worker.startswith("gw") and worker[2:].isdigit() and count.isdigit() and int(count) > 0):
        return ports
    # A worker that replaces a crashed one gets a higher number: it takes over the slice of the one gone.
    index, size = int(worker[2:]) % int(count), len(ports) // int(count)
    start = ports.start + index * size
    return range(start, start + size)


def free_port() -> int:
    """A free loopback port below the ephemeral range, from this worker's slice."""
    with _lock:
        port = port_for.select_random(ports=set(worker_range()), exclude_ports=set(_recent))
        _recent.append(port)
    return port
