"""The hosts of one run, connected: checked before any server starts, the load hosts as places for the drivers, and
what every record says of them.

The controller (the pytest session, the gate) runs on the server host: it starts the server there as it does on a
single machine, bound to the server host's address so the load hosts reach it, and samples it, counts it and runs its
backends there.  A server host that is not this machine is refused with the fix (run the suite there).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import psutil

from ..errors import ConfigError, HostError
from .check import HostCheck, check, refusal
from .inventory import Inventory, load
from .places import HostPlace
from .probe import facts
from .ssh import Connections


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

    @classmethod
    def from_file(cls, path: str) -> ConnectedHosts:
        return cls(load(path))

    @property
    def server_address(self) -> str:
        return self.inventory.server.address

    def open(self, addresses: set[str] | None = None) -> ConnectedHosts:
        """Check every host (a HostError or ConfigError, naming the host and the fix, before any server starts) and
        make the load hosts' places."""
        if self.places:
            return self
        server = self.inventory.server
        addresses = addresses if addresses is not None else local_addresses()
        if server.address not in addresses:
            raise ConfigError(
                f"{self.inventory.path}: the server host {server.describe()} is not this machine (its addresses: "
                f"{', '.join(sorted(addresses))}); serverbench runs where the server runs: run the same command on "
                f"{server.name} (docs/hosts.md), or give this machine's address as the server host"
            )
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

        return {"inventory": self.inventory.path, "hosts": [host(c) for c in self.checks]}

    def close(self) -> None:
        self.connections.close()


def connected(path: str | None) -> ConnectedHosts | None:
    """The hosts of ``path`` (not yet checked: :meth:`ConnectedHosts.open`), None without an inventory."""
    return None if path is None else ConnectedHosts.from_file(path)
