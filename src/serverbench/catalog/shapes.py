"""Load shapes as data: what a trial asks of a load generator, independent of which one runs it.

A shape is pure description: connections (closed model) or a target rate (open model), how long,
how many requests each connection carries before it is closed, and a ramp.  Each driver states
which shapes it can execute (:func:`refusal`); anything else is refused with the reason before any
server starts.

A shape may also hold slow clients beside that load (``c16+idle16``: 16 connections that open and send
nothing while 16 drive the load); measure.trials.slowclients runs them.  The kinds are :data:`SLOW_KINDS`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import ConfigError

# What a slow client does once connected (measure.trials.slowclients runs them):
SLOW_KINDS = {
    "slowloris": "sends its headers a byte at a time and never finishes them",
    "idle": "opens the connection and sends nothing",
    "partial": "sends the request line and half the headers, then nothing",
    "keepalive": "sends one whole request, reads the answer, then stays silent on the kept-alive connection",
}
_SLOW = re.compile(r"^(?P<base>.+)\+(?P<kind>[a-z]+)(?P<count>\d+)$")


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
    slow_clients: int = 0  # connections held beside the load, doing ``slow_kind`` (SLOW_KINDS)
    slow_kind: str | None = None

    @property
    def model(self) -> str:
        return "closed" if self.rate is None else "open"

    @property
    def label(self) -> str:
        """The shape in a test id and a record key: c64, r200, c64-rpc1, u50-w2, c16+idle16."""
        slow = f"+{self.slow_kind}{self.slow_clients}" if self.slow_clients else ""
        return self._load_label + slow

    @property
    def _load_label(self) -> str:
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
        if self.rate is not None and not (
            isinstance(self.rate, (int, float)) and math.isfinite(self.rate) and self.rate > 0
        ):
            out.append(f"rate must be requests per second > 0, got {self.rate!r}")
        if self.requests_per_connection is not None and (
            not isinstance(self.requests_per_connection, int) or self.requests_per_connection < 1
        ):
            out.append(f"requests per connection must be >= 1 (or keep-alive), got {self.requests_per_connection!r}")
        if self.workers is not None and (not isinstance(self.workers, int) or self.workers < 0):
            out.append(f"locust workers must be a whole number >= 0, got {self.workers!r}")
        if not (isinstance(self.ramp, (int, float)) and 0 <= self.ramp < self.duration):
            out.append(f"ramp must be seconds in [0, duration), got {self.ramp!r}")
        if not isinstance(self.slow_clients, int) or isinstance(self.slow_clients, bool) or self.slow_clients < 0:
            out.append(f"slow clients must be a whole number >= 0, got {self.slow_clients!r}")
        elif self.slow_clients and self.slow_kind not in SLOW_KINDS:
            out.append(f"slow clients' kind must be one of {', '.join(SLOW_KINDS)}, got {self.slow_kind!r}")
        elif not self.slow_clients and self.slow_kind is not None:
            out.append(f"slow kind {self.slow_kind!r} given without a number of slow clients")
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
        return (
            f"{caps.driver} runs the {' and '.join(caps.models)} model only; the shape {shape.label} "
            f"({shape.model} model) needs {other}"
        )
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


def from_label(label: str, duration: int = 5) -> LoadShape:
    """The shape a label names (the inverse of :attr:`LoadShape.label`): c64, r200 (on 64 connections),
    c64-rpc1, c8-ramp2, u50-w2, and any of them with slow clients: c16+idle16, c16+slowloris8.
    An unreadable label or an impossible shape is a ConfigError naming the part and the grammar."""
    fields: dict[str, object] = {"duration": duration}
    base = label.strip()
    slow = _SLOW.match(base)
    if slow:
        base = slow["base"]
        fields.update(slow_kind=slow["kind"], slow_clients=int(slow["count"]))
    parts = base.split("-")
    for i, part in enumerate(parts):
        key, value = _label_part(part, first=i == 0)
        if key is None or key in fields:
            raise ConfigError(
                f"load shape {label!r}: cannot read {part!r}; write c<connections> or r<rate> or "
                "u<users>-w<workers>, then -rpc<n> and -ramp<seconds> as needed, then "
                f"+<kind><count> for slow clients (kinds: {', '.join(SLOW_KINDS)}), e.g. c16+idle16"
            )
        fields[key] = value
    if ("users" in fields) != ("workers" in fields):
        raise ConfigError(f"load shape {label!r}: a locust scenario is u<users>-w<workers>, both parts together")
    if "users" in fields:
        fields["connections"] = fields.pop("users")
    shape = LoadShape(**fields)  # type: ignore[arg-type]
    if shape.problems():
        raise ConfigError(f"load shape {label!r}: {'; '.join(shape.problems())}")
    return shape


def _label_part(part: str, first: bool) -> tuple[str | None, object]:
    """One ``-``-separated part of a label as (field, value); (None, None) when it is not one."""
    patterns = (
        ((r"c(\d+)", "connections", int), (r"r(\d+(?:\.\d+)?)", "rate", float), (r"u(\d+)", "users", int))
        if first
        else (
            (r"rpc(\d+)", "requests_per_connection", int),
            (r"ramp(\d+(?:\.\d+)?)", "ramp", float),
            (r"w(\d+)", "workers", int),
        )
    )
    for pattern, key, kind in patterns:
        found = re.fullmatch(pattern, part)
        if found:
            return key, kind(found[1])
    return None, None


def fd_need(connections: Sequence[int]) -> int:
    """Open files a sweep needs in this process tree: a socket per connection on each side, plus slack."""
    return 2 * max(connections, default=0) + 256


def knee(
    rates: Sequence[float],
    p99_ms: Sequence[float],
    achieved: Sequence[float],
    factor: float = 3.0,
    shortfall: float = 0.95,
) -> float | None:
    """The first rate of a ladder where latency breaks: p99 above ``factor`` × the lowest rate's p99,
    or the server no longer keeps up (achieved < ``shortfall`` × target).  None: no knee in the ladder."""
    if not rates:
        return None
    base = max(p99_ms[0], 1e-3)
    for rate, p99, got in zip(rates, p99_ms, achieved):
        if p99 > factor * base or got < shortfall * rate:
            return rate
    return None
