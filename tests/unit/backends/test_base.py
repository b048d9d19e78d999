"""Every backend of the registry implements the whole Service interface the fixtures and the gate call."""

import typing

import pytest

from serverbench.backends.base import BACKENDS, Service

MEMBERS = sorted({name for name in vars(Service) if not name.startswith("_")} | set(Service.__annotations__))


def missing_members(cls: type) -> list[str]:
    fields = getattr(cls, "__dataclass_fields__", {})
    return [m for m in MEMBERS if not hasattr(cls, m) and m not in fields]


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_the_service_a_backend_returns_has_every_member_of_the_interface(name):
    """The class start() and connect() return has seed, count, stop, pid, cores, url and kind (an upstream
    without seed() once errored every /upstream perf test)."""
    spec = BACKENDS[name]
    started, connected = (typing.get_type_hints(f)["return"] for f in (spec.start, spec.connect))
    assert started is connected, f"{name}: start() returns {started}, connect() {connected}"
    assert not missing_members(started), f"{name}'s {started.__name__} lacks {missing_members(started)}"


def test_a_service_without_seed_is_caught():
    """The check itself finds a missing method."""

    class Partial:
        url = "x"
        kind = "external"

    assert "seed" in missing_members(Partial)
