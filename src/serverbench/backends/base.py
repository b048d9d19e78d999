"""The backend interface and registry: every service an app talks to, declared once.

A backend is data: its name (what a workload's endpoints list), the environment variable that
hands its URL to the apps, the option that names a running one (``--redis-url``), how to start
one (proc) and how to use one someone else runs (noproc).  The pytest fixtures, the A/B gate and
``serverbench services`` all start backends through this registry, and the option table, the gate's
flags, the fixtures and the docs' backends table are made from it, so adding a backend is one entry here
plus its module.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Callable, Protocol

from ..errors import ConfigError


class Service(Protocol):
    """A reachable backend: started by serverbench (``pid`` set) or someone else's (``pid`` None)."""

    url: str
    kind: str

    @property
    def pid(self) -> int | None: ...

    @property
    def cores(self) -> int: ...

    def seed(self) -> None:
        """(Re)write the contract's data and reset counters, before a test uses it."""

    def count(self) -> int | None:
        """Operations served so far (None when the service cannot say): one per request that uses it."""

    def cpu_s(self) -> float | None:
        """The CPU seconds it has used so far, as it reports them itself (None: it cannot say). Read for a service
        serverbench did not start (no pid to sample: a --redis-url, a backends host's)."""

    def stop(self) -> None: ...


@dataclass(frozen=True)
class Backend:
    """One kind of backing service: everything else about it (its URL variable, its option and the gate's
    flag, its fixtures, its ``services`` entry, its docs row) is derived from this entry.

    Its module, ``backends/<name>.py``, defines ``start_<name>(port=None, timeout=30.0, **options)`` (a seeded
    service serverbench owns) and ``connect_<name>(url)`` (a seeded service someone else runs); it is
    imported on first use, so reading the registry (the option table does) imports no client library."""

    name: str
    schemes: tuple[str, ...]  # the URL schemes its option accepts (a loopback URL)
    running: str  # the option's help: "Use this running <running> instead of starting <instead>."
    instead: str
    description: str
    url_example: str  # shown when a noproc fixture has no URL
    min_start_timeout: float = 0.0  # a floor under --perf-start-timeout (SecantusDB imports slowly)
    binary: str | None = None  # a program checked before a session that starts one (a usage error, not N failures)

    @property
    def env_var(self) -> str:
        """How the apps find it: SERVERBENCH_<NAME>_URL."""
        return f"SERVERBENCH_{self.name.upper()}_URL"

    @property
    def url_option(self) -> str:
        """The option naming a running one (config.OPTIONS, the gate's flag): <name>_url, --<name>-url."""
        return f"{self.name}_url"

    @property
    def url_flag(self) -> str:
        return "--" + self.url_option.replace("_", "-")

    @property
    def option_help(self) -> str:
        return f"Use this running {self.running} instead of starting {self.instead}."

    def _module(self):
        return importlib.import_module(f"{__package__}.{self.name}")

    @property
    def start(self) -> Callable[..., Service]:
        """start_<name>(port=None, timeout=30.0, ...) of its module: a seeded service serverbench owns."""
        return getattr(self._module(), f"start_{self.name}")

    @property
    def connect(self) -> Callable[[str], Service]:
        """connect_<name>(url) of its module: a seeded service someone else runs."""
        return getattr(self._module(), f"connect_{self.name}")


BACKENDS: Mapping[str, Backend] = {
    b.name: b
    for b in (
        Backend(
            "redis",
            ("redis",),
            "Redis (redis://127.0.0.1:PORT/DB)",
            "redis-server",
            "redis-server without persistence: a click counter and a 2,000-character value",
            "redis://127.0.0.1:PORT/0",
            binary="redis-server",
        ),
        Backend(
            "mongo",
            ("mongodb",),
            "MongoDB (mongodb://127.0.0.1:PORT/)",
            "mongod from PATH or SecantusDB",
            "mongod from PATH, else SecantusDB (MongoDB's wire protocol): small and big documents, event queues",
            "mongodb://127.0.0.1:PORT/",
            min_start_timeout=60.0,
        ),
        Backend(
            "upstream",
            ("http",),
            "slow upstream (http://127.0.0.1:PORT/PATH) for /upstream",
            "nginx",
            "nginx with the echo module, answering after 100 ms",
            "http://127.0.0.1:PORT/PATH",
        ),
    )
}


def backend(name: str) -> Backend:
    if name not in BACKENDS:
        raise ConfigError(f"unknown backend {name!r}; known backends: {', '.join(BACKENDS)}")
    return BACKENDS[name]


def provide(name: str, url: str | None = None, timeout: float = 30.0, host: str | None = None) -> Service:
    """A seeded service: the one at ``url`` when given (noproc), else one started now (proc), listening on ``host``
    (loopback when None; a backends host's address: docs/hosts.md)."""
    b = backend(name)
    if url is not None:
        return b.connect(url)
    return b.start(timeout=timeout) if host is None else b.start(timeout=timeout, host=host)


def alive(service: Service) -> bool:
    """False when serverbench started this backend and its process has since died (a fault killed it)."""
    process = getattr(service, "process", None)
    return process is None or process.alive()


def revive(name: str, service: Service, timeout: float = 30.0) -> bool:
    """Start again, on its own port (the apps hold its URL), a backend whose process died, and seed it;
    True when it had to.  Someone else's backend (noproc) is never touched."""
    if alive(service):
        return False
    process = service.process
    process.stop()  # reap the dead group, sweep what is left of it, close its log
    process.start(timeout=max(timeout, backend(name).min_start_timeout))
    seed = getattr(service, "seed", None)  # the upstream has no data to seed
    if seed is not None:
        seed()
    return True


def env(services: Mapping[str, Service]) -> dict[str, str]:
    """The environment variables that hand these services' URLs to the apps."""
    return {BACKENDS[name].env_var: s.url for name, s in services.items()}


@contextmanager
def started(
    names: Iterable[str],
    urls: Mapping[str, str | None] | None = None,
    timeout: float = 30.0,
    host: str | None = None,
) -> Iterator[dict[str, Service]]:
    """Every named backend, provided in order (those started listening on ``host``, loopback when None) and stopped
    (those we started) on every exit path."""
    urls = urls or {}
    with ExitStack() as stack:
        services: dict[str, Service] = {}
        for name in dict.fromkeys(names):
            service = provide(name, urls.get(name), timeout, host)
            stack.callback(service.stop)
            services[name] = service
        yield services
