"""Backend faults as data: what goes wrong with which backend, and when, during a measured window.

One fault is written ``ACTION-BACKEND[:LATENCY][@AT]``:

    kill-redis@2s       redis-server is killed (SIGKILL) 2 s into the window; restarted before the next test
    slow-redis:200ms    from 1 s in, every byte Redis sends back is held 200 ms (toxiproxy's latency toxic)
    drop-mongo          from 1 s in, connections to MongoDB carry nothing and stay open (a black hole)
    reset-upstream      from 1 s in, every connection to the upstream is reset (TCP RST)

``slow``, ``drop`` and ``reset`` go through a toxiproxy placed between the app and the backend;
``kill`` needs a backend serverbench started (it owns the process).  Parsing is pure: the
executor is :mod:`serverbench.measure.trials.faults`, the judgement :mod:`serverbench.judge.faults`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .contract import BACKEND_NAMES

ACTIONS = {
    "kill": "was killed (SIGKILL)",
    "slow": "was slowed",
    "drop": "stopped answering (connections open, nothing carried)",
    "reset": "reset every connection",
}
DEFAULT_AT_S = 1.0
_FORM = re.compile(r"^(?P<action>[a-z]+)-(?P<backend>[a-z]+)(?::(?P<latency>[^@]+))?(?:@(?P<at>.+))?$")
_DURATION = re.compile(r"^(?P<number>\d+(?:\.\d+)?)(?P<unit>ms|s)?$")
EXAMPLES = "kill-redis@2s, slow-redis:200ms, drop-mongo, reset-upstream"


def _seconds(text: str, what: str, default_unit: str) -> float:
    """A duration such as 2s, 1.5, 200ms (no unit: ``default_unit``), finite and >= 0, in seconds."""
    match = _DURATION.match(text.strip())
    if match is None:
        raise ValueError(f"{what} {text!r} is not a duration such as 2s, 1.5s or 200ms")
    value = float(match["number"]) / (1000.0 if (match["unit"] or default_unit) == "ms" else 1.0)
    if not math.isfinite(value) or value > 3600:
        raise ValueError(f"{what} {text!r} is out of range (at most an hour)")
    return value


@dataclass(frozen=True)
class Fault:
    """One fault: ``action`` done to ``backend`` ``at_s`` seconds into the measured window."""

    action: str
    backend: str
    at_s: float = DEFAULT_AT_S
    latency_ms: float | None = None  # slow only: how long each answer is held

    @classmethod
    def parse(cls, raw: str) -> Fault:
        """``kill-redis@2s`` and the like; a ValueError naming the part that is wrong otherwise."""
        text = str(raw).strip().lower()
        match = _FORM.match(text)
        if match is None:
            raise ValueError(f"expected ACTION-BACKEND[:LATENCY][@AT] such as {EXAMPLES}; got {raw!r}")
        action, name = match["action"], match["backend"]
        if action not in ACTIONS:
            raise ValueError(f"unknown fault action {action!r} in {raw!r}; known actions: {', '.join(ACTIONS)}")
        if name not in BACKEND_NAMES:
            raise ValueError(f"unknown backend {name!r} in {raw!r}; known backends: {', '.join(BACKEND_NAMES)}")
        latency = None
        if action == "slow":
            if match["latency"] is None:
                raise ValueError(f"{raw!r}: a slow fault needs its latency, e.g. slow-{name}:200ms")
            latency = _seconds(match["latency"], "the latency", "ms") * 1000.0
            if latency <= 0:
                raise ValueError(f"{raw!r}: the latency must be more than 0 ms")
        elif match["latency"] is not None:
            raise ValueError(f"{raw!r}: only slow-{name} takes a latency (:200ms); {action} takes none")
        at = _seconds(match["at"], "the moment", "s") if match["at"] is not None else DEFAULT_AT_S
        return cls(action, name, at, latency)

    @property
    def proxied(self) -> bool:
        """True when the fault is made by a toxiproxy between the app and the backend (not by a kill)."""
        return self.action != "kill"

    @property
    def label(self) -> str:
        latency = f":{self.latency_ms:g}ms" if self.latency_ms is not None else ""
        return f"{self.action}-{self.backend}{latency}@{self.at_s:g}s"

    @property
    def what(self) -> str:
        """What happened, in words: 'redis was killed (SIGKILL)', 'redis was slowed by 200 ms'."""
        by = f" by {self.latency_ms:g} ms per answer" if self.latency_ms is not None else ""
        return f"{self.backend} {ACTIONS[self.action]}{by}"

    def check_window(self, duration_s: float) -> None:
        """A fault must fall inside the measured window, or it would test nothing."""
        if self.at_s >= duration_s:
            raise ValueError(
                f"--perf-fault {self.label} comes {self.at_s:g} s into a {duration_s:g} s window, "
                f"so it would never fire: give an earlier @AT or a longer --perf-duration"
            )
