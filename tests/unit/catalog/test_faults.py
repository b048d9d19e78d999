"""Backend faults as data (catalog.faults): parsing --perf-fault, each bad form named, the label."""

from __future__ import annotations

import pytest

from serverbench.backends.base import BACKENDS
from serverbench.catalog.faults import BACKEND_NAMES, Fault


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("kill-redis@2s", Fault("kill", "redis", 2.0)),
        ("kill-mongo@2.5", Fault("kill", "mongo", 2.5)),
        ("kill-upstream@500ms", Fault("kill", "upstream", 0.5)),
        ("slow-redis:200ms", Fault("slow", "redis", 1.0, 200.0)),
        ("slow-redis:0.2s@3s", Fault("slow", "redis", 3.0, 200.0)),
        ("slow-redis:150", Fault("slow", "redis", 1.0, 150.0)),
        ("drop-mongo", Fault("drop", "mongo")),
        (" Reset-Upstream ", Fault("reset", "upstream")),
    ],
)
def test_faults_parse(raw, expected):
    """The documented forms parse to the fault they name (latency in ms, moment in s, default 1 s)."""
    assert Fault.parse(raw) == expected


@pytest.mark.parametrize(
    "raw,found",
    [
        ("explode-redis", "unknown fault action 'explode'"),
        ("kill-postgres", "unknown backend 'postgres'"),
        ("slow-redis", "needs its latency"),
        ("slow-redis:0ms", "more than 0 ms"),
        ("kill-redis:200ms", "only slow-redis takes a latency"),
        ("kill-redis@soon", "is not a duration"),
        ("kill-redis@-1s", "is not a duration"),
        ("kill-redis@99999s", "out of range"),
        ("redis", "expected ACTION-BACKEND"),
        ("", "expected ACTION-BACKEND"),
    ],
)
def test_bad_faults_say_what_is_wrong(raw, found):
    """A malformed fault is a ValueError naming the wrong part."""
    with pytest.raises(ValueError, match=found):
        Fault.parse(raw)


def test_fault_backends_are_the_registry():
    """The backends a fault may name (those the contract's endpoints talk to) are exactly the backend registry's."""
    assert BACKEND_NAMES == tuple(BACKENDS)


def test_label_round_trips_and_says_what_happened():
    """A fault's label parses back to it; its words name the backend and the latency."""
    fault = Fault.parse("slow-redis:200ms@2s")
    assert Fault.parse(fault.label) == fault
    assert fault.what == "redis was slowed by 200 ms per answer"
    assert fault.proxied and not Fault.parse("kill-redis").proxied
