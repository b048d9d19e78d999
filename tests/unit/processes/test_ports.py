"""Ports under pytest-xdist: each worker picks from its own slice, so two workers never collide."""

import pytest

from serverbench.errors import ConfigError
from serverbench.processes import ports


def worker(n, count):
    return {"PYTEST_XDIST_WORKER": f"gw{n}", "PYTEST_XDIST_WORKER_COUNT": str(count)}


def test_outside_xdist_the_whole_range_is_used():
    """Without xdist's variables (or with malformed ones) a process picks from the whole range."""
    assert ports.worker_range({}) == ports.PORT_RANGE
    assert ports.worker_range({"PYTEST_XDIST_WORKER": "master", "PYTEST_XDIST_WORKER_COUNT": "2"}) == ports.PORT_RANGE


def test_worker_slices_are_disjoint_and_inside_the_range():
    """For any worker count, the workers' slices do not overlap and stay below the ephemeral range."""
    for count in (1, 2, 3, 8, 64):
        slices = [set(ports.worker_range(worker(n, count))) for n in range(count)]
        assert sum(len(s) for s in slices) == len(set().union(*slices))
        assert all(s and s <= set(ports.PORT_RANGE) for s in slices)


def test_a_replacement_worker_takes_a_slice_of_the_range():
    """A worker numbered beyond the count (xdist replaced a crashed one) still gets a slice in range."""
    assert ports.worker_range(worker(5, 4)) == ports.worker_range(worker(1, 4))


def test_free_port_stays_in_the_workers_slice_and_does_not_repeat(monkeypatch):
    """free_port picks from this worker's slice and never hands out a recent port twice."""
    monkeypatch.delenv(ports.PORTS_ENV, raising=False)  # set when this test itself runs on a worker
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    picked = [ports.free_port() for _ in range(ports.RECENT)]
    assert set(picked) <= set(ports.worker_range(worker(1, 3)))
    assert len(set(picked)) == len(picked)


def test_a_worker_publishes_its_slice_and_what_it_starts_stays_in_it():
    """The claimed slice goes to SERVERBENCH_PORTS, which alone decides for a child without xdist's variables."""
    environ = worker(1, 2)
    mine = ports.claim_worker_range(environ)
    assert mine == ports.worker_range(worker(1, 2)) and environ[ports.PORTS_ENV] == f"{mine.start}-{mine.stop - 1}"
    assert ports.configured_range({ports.PORTS_ENV: environ[ports.PORTS_ENV]}) == mine


def test_a_nested_session_cuts_its_workers_slices_from_the_outer_slice():
    """Workers of an xdist session started inside a worker share that worker's slice between them."""
    outer = ports.claim_worker_range(worker(0, 2))
    inner = [
        ports.claim_worker_range({**worker(n, 2), ports.PORTS_ENV: f"{outer.start}-{outer.stop - 1}"}) for n in range(2)
    ]
    assert all(set(s) <= set(outer) for s in inner) and not set(inner[0]) & set(inner[1])


def test_free_port_honours_serverbench_ports(monkeypatch):
    """SERVERBENCH_PORTS confines free_port, whatever xdist's variables say."""
    monkeypatch.setenv(ports.PORTS_ENV, "20000-20099")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    assert all(20000 <= ports.free_port() <= 20099 for _ in range(10))


@pytest.mark.parametrize("value", ["20000", "20000-1999", "a-b", "80-90", "20000-70000"])
def test_a_malformed_serverbench_ports_names_the_variable_and_the_form(value):
    """A value that is not FIRST-LAST within 1024-65535 is an error showing the value and an example."""
    expected = rf"SERVERBENCH_PORTS='{value}': expected the first and last port.*10000-32767"
    with pytest.raises(ConfigError, match=expected):
        ports.configured_range({ports.PORTS_ENV: value})
