"""Backing services the apps talk to.  Redis: started per session (proc) or given by URL (noproc).

The Redis server runs with no persistence (no RDB snapshots, no AOF) so disk never enters a
measurement; the contract's keys are seeded before use and the counter reset per test.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import redis

from ..catalog.contract import REDIS_COUNTER_KEY, REDIS_VALUE, REDIS_VALUE_KEY
from ..errors import BackendUnreachable
from ..processes.executors import LOOPBACK, ManagedProcess, free_port
from ..processes.ports import is_loopback
from .environment import require_program


@dataclass
class RedisService:
    """A reachable Redis: its URL, and the process when serverbench started it."""

    url: str
    process: ManagedProcess | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=5, decode_responses=True)

    def seed(self) -> None:
        """Store the contract's value and reset the counter."""
        with self.client() as client:
            client.set(REDIS_VALUE_KEY, REDIS_VALUE)
            client.set(REDIS_COUNTER_KEY, 0)

    kind = "redis-server"
    cores = 1  # Redis executes commands on one thread

    def count(self) -> int | None:
        """INCR calls served so far (INFO commandstats): one per /redis request.

        Some Redis builds account INCR under ``incrby`` (Debian's 7.0 does), so both are summed.
        """
        try:
            with self.client() as client:
                stats = client.info("commandstats")
                return sum(int(stats.get(k, {}).get("calls", 0)) for k in ("cmdstat_incr", "cmdstat_incrby"))
        except redis.RedisError:
            return None

    def cpu_s(self) -> float | None:
        """Its CPU (user + system, every thread) so far, from INFO cpu: readable from any host."""
        try:
            with self.client() as client:
                cpu = client.info("cpu")
                return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])
        except (redis.RedisError, KeyError, ValueError):
            return None

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()


def redis_command(binary: str, port: int, host: str = LOOPBACK) -> list[str]:
    return [
        binary,
        "--port",
        str(port),
        "--bind",
        host,
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--protected-mode",
        # Listening on a backends host's address (docs/hosts.md), it must take the server host's connections: a
        # network of the benchmark's own (RFC 2544's range), never a public one.
        "yes" if is_loopback(host) else "no",
        "--loglevel",
        "warning",
    ]


def start_redis(
    port: int | None = None,
    executable: str | None = None,
    timeout: float = 30.0,
    log_dir: Path | None = None,
    host: str = LOOPBACK,
) -> RedisService:
    """Start redis-server on a free port of ``host`` (loopback; a backends host's address: docs/hosts.md), the proc
    fixture."""
    binary = executable if executable is not None else require_program("redis-server", "redis-server")
    port = port if port is not None else free_port()
    process = ManagedProcess(
        "redis-server",
        redis_command(binary, port, host),
        port,
        ready_path=None,
        timeout=timeout,
        log_dir=log_dir,
        host=host,
    ).start()
    service = RedisService(f"redis://{host}:{port}/0", process)
    try:
        service.seed()
    except redis.RedisError:
        service.stop()
        raise
    return service


def connect_redis(url: str) -> RedisService:
    """Use a Redis someone else runs (the noproc fixture); unreachable is a clear error."""
    service = RedisService(url)
    try:
        service.seed()
    except redis.RedisError as exc:
        raise BackendUnreachable(
            f"--redis-url {url} did not answer ({exc}). Start that Redis, fix the URL, "
            "or drop --redis-url to let serverbench start its own redis-server."
        ) from None
    return service
