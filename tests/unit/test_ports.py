"""Ports under pytest-xdist: each worker picks from its own slice, so two workers never collide."""
from serverbench.measure import ports


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
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    picked = [ports.free_port() for _ in range(ports.RECENT)]
    assert set(picked) <= set(ports.worker_range(worker(1, 3)))
    assert len(set(picked)) == len(picked)
