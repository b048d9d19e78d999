"""Listening ports for servers and backends: free, on loopback, and never the same for two xdist workers.

Under pytest-xdist several workers start servers at once, and two that pick the same free port
before either has bound it collide.  So each worker takes its ports only from its own slice of
the range, derived from the ``PYTEST_XDIST_WORKER`` (``gw3``) and ``PYTEST_XDIST_WORKER_COUNT``
that xdist sets in every worker (the per-worker ranges pytest-redis and pytest-postgresql users
set up by hand).  A worker writes its slice to ``SERVERBENCH_PORTS`` (``first-last``) at start-up,
so every process it starts stays in the slice, including one whose environment was cleaned of
pytest's variables (a fresh virtual environment's session), and the workers of an xdist session
nested in a worker cut that slice again.  Set it yourself to confine serverbench's ports.
Inside one process, a port handed out recently is not handed out again: a server may not have
bound it yet when the next one is picked.
"""

from __future__ import annotations

import ipaddress
import os
import threading
from collections import deque
from collections.abc import Mapping, MutableMapping

import port_for

from ..errors import ConfigError

# Listening ports stay below the ephemeral range, where a client's TIME_WAIT socket can sit on
# "our" port after connection-per-request runs.
PORT_RANGE = range(10000, 32768)
RECENT = 64  # ports remembered per process: more than any test starts before its servers bind
PORTS_ENV = "SERVERBENCH_PORTS"

_recent: deque[int] = deque(maxlen=RECENT)
_lock = threading.Lock()


def configured_range(environ: Mapping[str, str] = os.environ) -> range | None:
    """The ports ``SERVERBENCH_PORTS`` (``first-last``, both included) allows, or None when it is not set."""
    value = environ.get(PORTS_ENV, "")
    if not value:
        return None
    first, _, last = value.partition("-")
    if not (first.strip().isdigit() and last.strip().isdigit() and 1024 <= int(first) <= int(last) <= 65535):
        raise ConfigError(
            f"{PORTS_ENV}={value!r}: expected the first and last port of a range, such as "
            f"{PORTS_ENV}={PORT_RANGE.start}-{PORT_RANGE.stop - 1} (1024-65535); fix it or unset it"
        )
    return range(int(first), int(last) + 1)


def worker_range(environ: Mapping[str, str] = os.environ, ports: range = PORT_RANGE) -> range:
    """This xdist worker's slice of ``ports`` (all of them outside xdist); slices never overlap."""
    worker, count = environ.get("PYTEST_XDIST_WORKER", ""), environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not (worker.startswith("gw") and worker[2:].isdigit() and count.isdigit() and int(count) > 0):
        return ports
    # A worker that replaces a crashed one gets a higher number: it takes over the slice of the one gone.
    index, size = int(worker[2:]) % int(count), len(ports) // int(count)
    start = ports.start + index * size
    return range(start, start + size)


def claim_worker_range(environ: MutableMapping[str, str] = os.environ) -> range:
    """Called once in an xdist worker: cut its slice out of the allowed ports and publish it in ``SERVERBENCH_PORTS``
    for this process and everything it starts."""
    allowed = configured_range(environ)
    mine = worker_range(environ, allowed if allowed is not None else PORT_RANGE)
    environ[PORTS_ENV] = f"{mine.start}-{mine.stop - 1}"
    return mine


def free_port() -> int:
    """A free loopback port below the ephemeral range, from this process's ports (its worker's slice)."""
    allowed = configured_range()
    with _lock:
        port = port_for.select_random(
            ports=set(allowed if allowed is not None else worker_range()), exclude_ports=set(_recent)
        )
        _recent.append(port)
    return port


def is_loopback(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1: the only places serverbench sends load."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
