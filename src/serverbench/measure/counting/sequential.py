"""The client of a cost count: one keep-alive connection sending the same request, sequentially, and
waiting before each request until the server is quiet.

Quiet means every thread of every server process is blocked in the kernel (state S or D, or
stopped), seen on several looks in a row.  Without the wait an event loop folds the next request
into the tail of the previous one on one run and not on another: aiohttp's counts spread 3%
without it and 0.03% with it.  The request never changes: the endpoint's method, path, headers and
body (a contract endpoint: a plain GET), ``Host: localhost``, so neither the port nor the client's
address shows in what the server parses.
"""

from __future__ import annotations

import glob
import http.client
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

import psutil

from ...catalog.contract import Endpoint
from .callgrind import CountingError

HOST_HEADER = "localhost"  # fixed, so the request does not change with the port (Django allows it)
WARMUP_CONNECTIONS = 4
QUIET_CHECKS = 3  # consecutive looks at the process table that must find every thread blocked
QUIET_GAP_S = 0.001
QUIET_CAP_S = 5.0


def server_pids(leader: int) -> list[int]:
    """The leader and every descendant (pre-fork workers, a router, a spawned worker)."""
    try:
        root = psutil.Process(leader)
        return [leader] + [c.pid for c in root.children(recursive=True)]
    except psutil.NoSuchProcess:
        raise CountingError(f"the server (pid {leader}) exited before counting began") from None


def quiet(pids: list[int]) -> None:
    """Wait until every thread of these processes is blocked (state S or D) on several looks in a row."""
    deadline = time.monotonic() + QUIET_CAP_S
    streak = 0
    while streak < QUIET_CHECKS:
        if time.monotonic() > deadline:
            return  # a server that never blocks (busy polling) is counted as it is; its spread shows it
        streak = streak + 1 if all(state in "SDIT" for state in _thread_states(pids)) else 0  # T: paused
        time.sleep(QUIET_GAP_S)


def _thread_states(pids: list[int]) -> list[str]:
    states = []
    for pid in pids:
        for stat in glob.glob(f"/proc/{pid}/task/*/stat"):
            try:
                with open(stat) as f:
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
            except (OSError, IndexError):
                continue
    return states


class SequentialClient:
    """One keep-alive connection sending the endpoint's request, waiting for the server to go quiet before each."""

    def __init__(self, port: int, endpoint: Endpoint, quiet_pids: list[int] | None = None):
        self.port = port
        self.endpoint = endpoint
        self.path = endpoint.path
        self.quiet_pids = list(quiet_pids or [])
        self._conn: http.client.HTTPConnection | None = None

    def warm_up(self, requests: int) -> None:
        """Concurrent connections first, so that every pre-fork worker and pool thread serves some."""
        errors: list[BaseException] = []

        def run(count: int) -> None:
            client = SequentialClient(self.port, self.endpoint)
            try:
                client.send(count)
            except BaseException as exc:  # reported below, in the caller's thread
                errors.append(exc)
            finally:
                client.close()

        threads = [
            threading.Thread(target=run, args=(max(requests // WARMUP_CONNECTIONS, 1),))
            for _ in range(WARMUP_CONNECTIONS)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise CountingError(f"warm-up of {self.path} failed: {errors[0]}")

    def send(self, requests: int) -> None:
        for _ in range(requests):
            if self.quiet_pids:
                quiet(self.quiet_pids)
            self._one()

    def _one(self) -> None:
        if self._conn is None:
            self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn, request, what = self._conn, self.endpoint.request, f"{self.endpoint.request.method} {self.path}"
        try:
            conn.putrequest(request.method, self.path, skip_host=True, skip_accept_encoding=True)
            conn.putheader("Host", HOST_HEADER)
            for name, value in request.headers:
                conn.putheader(name, value)
            if request.body or request.method not in ("GET", "HEAD"):
                conn.putheader("Content-Length", str(len(request.body)))
            with _one_segment(conn) if request.body else nullcontext():
                conn.endheaders(request.body or None)
            response = conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            raise CountingError(f"{what} failed during counting: {exc!r}") from None
        if response.status != self.endpoint.status or (not body and self.endpoint.content_type):
            self.close()
            raise CountingError(
                f"{what} answered {response.status} with {len(body)} bytes during counting "
                f"(verified before the window: {self.endpoint.status} with a body)"
            )
        if response.will_close:
            self.close()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


@contextmanager
def _one_segment(conn: http.client.HTTPConnection) -> Iterator[None]:
    """Hold what ``conn`` sends inside the block and release it as one segment (``TCP_CORK``): http.client
    sends a request's headers and its body in two writes, and whether the server then reads them in one
    ``recv`` or two depends on how the two processes are scheduled, so a POST's count moved with the
    machine's load.  A request without a body is one write either way, so it is sent as before."""
    if conn.sock is None:
        conn.connect()
    sock = conn.sock  # the one corked, even if a failed send drops conn's reference to it
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    try:
        yield
    finally:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 0)
