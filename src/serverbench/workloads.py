"""Workloads: what one trial requests, as data.  A workload names an endpoint of the contract."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .contract import ENDPOINTS, Endpoint


@dataclass(frozen=True)
class Workload:
    """A request pattern driven against a server: here, one endpoint hit repeatedly."""

    name: str
    endpoint: str
    description: str

    @property
    def spec(self) -> Endpoint:
        return ENDPOINTS[self.endpoint]

    @property
    def path(self) -> str:
        return self.spec.path

    @property
    def backends(self) -> tuple[str, ...]:
        return self.spec.backends


WORKLOADS: Mapping[str, Workload] = {
    w.name: w
    for w in (
        Workload("plaintext", "plaintext", "13-byte text/plain body: the server's own overhead"),
        Workload("json", "json", "serialize a one-key JSON object per request"),
        Workload("redis", "redis", "INCR a counter and GET a 2,000-character value, return both as JSON"),
    )
}
