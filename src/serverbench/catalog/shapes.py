"""Load shapes as data: what a trial asks of a load generator, independent of which one runs it.

A shape is pure description: connections (closed model) or a target rate (open model), how long,
how many requests each connection carries before it is closed, and a ramp.  Each driver states
which shapes it can execute (:func:`refusal`); anything else is refused with the reason before any
server starts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..errors import ConfigError


@dataclass(frozen=True)
class LoadShape:
    """``rate`` None is the closed model (each connection sends its next request when the answer
    came); a rate is the open model (requests sent on schedule whatever the answers do).
    ``requests_per_connection`` None keeps connections alive; 1 opens a new one per request.
    ``workers`` set: a locust scenario, ``connections`` users in that many worker processes (0: one
    process)."""

    connections: int = 64
    duration: int = 5
    rate: float | None = None
    requests_per_connection: int | None = None
    ramp: float = 0.0
    workers: int | None = None

    @property
    def model(self) -> str:
        return "closed" if self.rate is None else "open"

    @property
    def label(self) -> str:
        """The shape in a test id and a record key: c64, r200, c64-rpc1, u50-w2."""
        if self.workers is not None:
            return f"u{self.connections}-w{self.workers}"
        parts = [f"c{self.connections}" if self.rate is None else f"r{self.rate:g}"]
        if self.requests_per_connection is not None:
            parts.append(f"rpc{self.requests_per_connection}")
        if self.ramp:
            parts.append(f"ramp{self.ramp:g}")
        return "-".join(parts)

    def problems(self) -> list[str]:
        out = []
        if not isinstance(self.connections, int) or self.connections < 1:
            out.append(f"connections must be a whole number >= 1, got {self.connections!r}")
        if not isinstance(self.duration, int) or self.duration < 1:
            out.append(f"duration must be whole seconds >= 1, got {self.duration!r}")
        if self.rate is not None and not (isinstance(self.rate, (int, float)) and math.isfinite(self.rate)
                                          and self.rate > 0):
            out.append(f"rate must be requests per second > 0, got {self.rate!r}")
        if self.requests_per_connection is not None and (not isinstance(self.requests_per_connection, int)
                                                         or self.requests_per_connection < 1):
            out.append(f"requests per connection must be >= 1 (or keep-alive), got {self.requests_per_connection!r}")
        if self.workers is not None and (not isinstance(self.workers, int) or self.workers < 0):
            out.append(f"locust workers must be a whole number >= 0, got {self.workers!r}")
        if not (isinstance(self.ramp, (int, float)) and 0 <= self.ramp < self.duration):
            out.append(f"ramp must be seconds in [0, duration), got {self.ramp!r}")
        return out


@dataclass(frozen=True)
class Capabilities:
    """What a driver can execute."""

    driver: str
    models: tuple[str, ...]
    requests_per_connection: bool
    ramp: bool
    max_connections: int | None = None


def refusal(caps: Capabilities, shape: LoadShape) -> str | None:
    """Why ``caps.driver`` cannot run ``shape`` (None when it can)."""
    if shape.model not in caps.models:
        other = "an open-model driver (--perf-rates needs oha)" if shape.model == "open" else "a closed-model driver"
        return (f"{caps.driver} runs the {' and '.join(caps.models)} model only; the shape {shape.label} "
                f"({shape.model} model) needs {other}")
    if shape.requests_per_connection is not None and not caps.requests_per_connection:
        return f"{caps.driver} cannot limit requests per connection (shape {shape.label})"
    if shape.ramp and not caps.ramp:
        return f"{caps.driver} cannot ramp load up (shape {shape.label}); use locust for ramps"
    if caps.max_connections is not None and shape.connections > caps.max_connections:
        return f"{caps.driver} opens at most {caps.max_connections} connections, the shape asks {shape.connections}"
    return None


def check(shapes: Iterable[LoadShape], caps: Capabilities) -> None:
    """Raise one ConfigError listing every invalid or unsupported shape."""
    problems = []
    for shape in shapes:
        problems += [f"{shape.label}: {p}" for p in shape.problems()]
        if not shape.problems():
            reason = refusal(caps, shape)
            if reason:
                problems.append(reason)
    if problems:
        raise ConfigError("impossible load shape(s):\n  " + "\n  ".join(dict.fromkeys(problems)))


def fd_need(connections: Sequence[int]) -> int:
    """Open files a sweep needs in this process tree: a socket per connection on each side, plus slack."""
    return 2 * max(connections, default=0) + 256


def knee(rates: Sequence[float], p99_ms: Sequence[float], achieved: Sequence[float],
         factor: float = 3.0, shortfall: float = 0.95) -> float | None:
    """The first rate of a ladder where latency breaks: p99 above ``factor`` × the lowest rate's p99,
    or the server no longer keeps up (achieved < ``shortfall`` × target).  None: no knee in the ladder."""
    if not rates:
        return None
    base = max(p99_ms[0], 1e-3)
    for rate, p99, got in zip(rates, p99_ms, achieved):
        if p99 > factor * base or got < shortfall * rate:
            return rate
    return None
