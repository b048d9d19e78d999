"""The fault executor's pure parts (measure.trials.faults): the toxics a fault asks for, the proxied URLs, the probe's error classes."""

from __future__ import annotations

from serverbench.catalog.faults import Fault
from serverbench.measure.trials.faults import error_class, toxic_of, with_port


def test_toxics_match_the_faults():
    """slow is a latency toxic, drop a timeout of 0 (nothing passes), reset a reset_peer; all downstream."""
    assert toxic_of(Fault.parse("slow-redis:200ms"))["attributes"] == {"latency": 200, "jitter": 0}
    assert toxic_of(Fault.parse("drop-mongo"))["type"] == "timeout"
    assert toxic_of(Fault.parse("reset-upstream"))["type"] == "reset_peer"
    assert {toxic_of(Fault.parse(f))["stream"] for f in ("slow-redis:1", "drop-redis", "reset-redis")} == {"downstream"}


def test_proxy_urls_keep_everything_but_the_port():
    """A backend's URL through the proxy differs only in its port."""
    assert with_port("redis://127.0.0.1:6379/0", 7000) == "redis://127.0.0.1:7000/0"
    assert (
        with_port("mongodb://127.0.0.1:27017/?directConnection=true", 7001)
        == "mongodb://127.0.0.1:7001/?directConnection=true"
    )
    assert with_port("http://127.0.0.1:8080/delay", 7002) == "http://127.0.0.1:7002/delay"


def test_probe_errors_use_the_drivers_classes():
    """A refused connection is connect, a timeout is timeout, a reset is read, a broken pipe write."""
    assert error_class(ConnectionRefusedError()) == "connect"
    assert error_class(TimeoutError()) == "timeout"
    assert error_class(ConnectionResetError()) == "read"
    assert error_class(BrokenPipeError()) == "write"
