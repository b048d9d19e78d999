"""The hosts of one run, connected: checked before any server starts, the load hosts as places for the drivers, and
what every record says of them.

A perf session runs where it is started.  On the server host it starts the server as on a single machine, bound to
the server host's address so the load hosts reach it.  Apart from it (``apart``: on a load host, a laptop, a CI
runner) it starts the server there over SSH and samples it there (measure.serving.remote), and the backends run on the
backends host or, without one, on the server host, which the record then says they shared.  A counted session and the
gate are still handed over to the server host first (hosts.handover): their servers run under a tracer, or from
worktrees, there.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import psutil

from ..errors import HostError
from . import ssh
from .channel import StatChannel
from .check import HostCheck, check, refusal
from .inventory import CONTROLLER_VAR, Host, Inventory, load
from .places import HostPlace
from .probe import facts
from .procstat import UNITS, group_cpu_s, units
from .ssh import Connections

BACKENDS_READY_S = 120.0  # a MongoDB server may take up to its 60 s start timeout
# What `serverbench services` prints: an export line per backend, then a "# NAME: KIND, pid N" line per backend.
EXPORT = re.compile(r"^export SERVERBENCH_(\w+)_URL='([^']*)'$", re.MULTILINE)
STARTED = re.compile(r"^# (\w+): .*, pid (\d+)$", re.MULTILINE)
# The services' CPU is summed by process group from every /proc/PID/stat there, one round trip a reading (each service
# starts in a session of its own, so its group is its pid: nginx's workers, a server's threads and children in it).


def local_addresses() -> set[str]:
    """Every address of this machine's interfaces."""
    return {a.address for addrs in psutil.net_if_addrs().values() for a in addrs}


@dataclass
class ConnectedHosts:
    """An inventory's hosts once checked: the load hosts' places, and the server's address to bind to."""

    inventory: Inventory
    connections: Connections = field(default_factory=Connections)
    checks: tuple[HostCheck, ...] = ()
    places: tuple[HostPlace, ...] = ()
    check_s: float = 0.0
    backend_urls: dict[str, str] = field(default_factory=dict)  # name -> URL, started on the backends host
    backend_pids: dict[str, int] = field(default_factory=dict)  # name -> its pid (and process group) there
    services: ssh.Tethered | None = None
    tick: int = 100  # the backends host's clock ticks per second (getconf CLK_TCK there)
    channel: StatChannel | None = None  # a shell kept open there, reading its processes (hosts.channel)
    apart: bool = False  # the session runs on another machine than the server host: the server is started there

    @property
    def backends_host(self) -> Host | None:
        """Where the backends run when not here: the backends host, or (a session apart without one) the server
        host, which they then share with the server; None: here, as on one machine."""
        if self.inventory.backends is not None:
            return self.inventory.backends
        return self.inventory.server if self.apart else None

    def facts_of(self, name: str) -> Mapping | None:
        """What host ``name``'s check found there (None before the check, or when it was not reached)."""
        return next((c.facts for c in self.checks if c.host.name == name), None)

    @classmethod
    def from_file(cls, path: str) -> ConnectedHosts:
        return cls(load(path))

    @property
    def server_address(self) -> str:
        return self.inventory.server.address

    def open(self, addresses: set[str] | None = None, backends: bool = True) -> ConnectedHosts:
        """Check every host (a HostError, naming the host and the fix, before any server starts) and make the load
        hosts' places.  ``backends``: whether the session uses any (without a backends host, a session apart then
        starts them on the server host; one that uses none starts nothing beside the server there)."""
        if self.places:
            return self
        addresses = addresses if addresses is not None else local_addresses()
        self.apart = self.inventory.server.address not in addresses
        started = time.monotonic()
        here = facts()
        self.checks = tuple(check(self.inventory, self.connections, here))
        self.check_s = time.monotonic() - started
        refused = refusal(self.checks)
        if refused:
            self.close()
            raise HostError(
                f"{self.inventory.path}: {refused}. `serverbench hosts check {self.inventory.path}` tells more"
            )
        by_name = {c.host.name: c for c in self.checks}
        if self.backends_host is not None and (backends or self.inventory.backends is not None):
            self.start_backends(self.backends_host)
        self.places = tuple(
            HostPlace(h, self.connections, {**(by_name[h.name].facts or {}), "rtt_ms": by_name[h.name].rtt_ms})
            for h in self.inventory.load
        )
        return self

    def record(self) -> Mapping:
        """What a record says of the hosts: the server host and each load host, with cores, kernel and round trip."""

        def host(c: HostCheck) -> dict:
            f = c.facts or {}
            return {
                "name": c.host.name,
                "role": c.host.role,
                "address": c.host.address,
                "cores": len(c.host.cores) if c.host.cores else f.get("cores"),
                "kernel": f.get("kernel"),
                "rtt_to_server_ms": None if c.rtt_ms is None else round(c.rtt_ms, 4),
                "clock_offset_ms": None if c.clock_offset_ms is None else round(c.clock_offset_ms, 1),
            }

        # A session handed over from another machine (hosts.handover) names it: the controller, not a host that ran.
        controller = os.environ.get(CONTROLLER_VAR) or None
        backends = self.backends_host or self.inventory.server  # without either, here: this machine is the server host
        return {
            "inventory": self.inventory.path,
            "controller": controller,
            "session": "apart from the server host" if self.apart else "on the server host",
            "backends": {"host": backends.name, "shared_with_server": backends.role == "server"},  # started there
            "hosts": [host(c) for c in self.checks],
        }

    def start_backends(self, host: Host, timeout: float = BACKENDS_READY_S) -> dict[str, str]:
        """``serverbench services --host ADDRESS`` on the backends host, on a tether: every backend started and seeded
        there, listening on its address; their URLs (what the apps get) once it has printed them."""
        folder = tempfile.mkdtemp(prefix="sb-backends-")
        argv = [host.python, "-m", "serverbench", "services", "--host", host.address]
        self.services = ssh.start(self.connections, host, argv, folder)
        deadline = time.monotonic() + timeout
        while True:
            printed = self.services.stdout()
            found = dict(EXPORT.findall(printed))
            pids = {name: int(pid) for name, pid in STARTED.findall(printed)}
            if found and len(pids) >= len(found):  # every backend up and seeded
                break
            if not self.services.running() or time.monotonic() > deadline:
                said = self.services.output()[-800:]
                self.close()
                raise HostError(
                    f"the {host.role} host {host.describe()} did not start the backends within {timeout:g} s: "
                    f"{said or 'no output'}; it needs redis-server, nginx with its echo module and a MongoDB server "
                    "(mongod or SecantusDB): run ./run there"
                )
            time.sleep(0.1)
        self.backend_urls = {name.lower(): url for name, url in found.items()}
        self.backend_pids = pids
        self.tick, _ = units(self.connections.run(host, UNITS).stdout.decode())
        self.channel = StatChannel(self.connections, host)  # their CPU read through it, one round trip a reading
        return self.backend_urls

    def backend_cpu_s(self, name: str) -> float | None:
        """The CPU seconds backend ``name``'s processes on the backends host have used so far (read there, one round
        trip); None when it has no pid there or the host cannot be read."""
        pid = self.backend_pids.get(name)
        if self.channel is None or pid is None:
            return None
        sampled = self.channel.ask()
        if sampled is None:
            return None
        return group_cpu_s(sampled.stats.values(), {pid}, self.tick).get(pid)

    def close(self) -> None:
        """Stop the backends host's services (by pid, on their tether) and close every master connection."""
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.services is not None:
            ssh.stop(self.connections, self.services)
            folder = self.services.out.parent
            self.services = None
            shutil.rmtree(folder, ignore_errors=True)
        self.connections.close()


@dataclass
class HostedService:
    """A service the backends host runs, as the apps reach it (by URL), its CPU read there by its process group
    (no pid here to sample): the rest is the connected service's."""

    service: Any
    hosts: ConnectedHosts
    name: str

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.service, attribute)

    def cpu_s(self) -> float | None:
        return self.hosts.backend_cpu_s(self.name)


def connected(path: str | None) -> ConnectedHosts | None:
    """The hosts of ``path`` (not yet checked: :meth:`ConnectedHosts.open`), None without an inventory."""
    return None if path is None else ConnectedHosts.from_file(path)
