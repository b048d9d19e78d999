"""What the tests across simulated hosts share: one at a time.

They are not marked ``alone``: none judges a timing that a test beside it could move (the gate's planted burn doubles
aiohttp's CPU per request; the rest check records, exit statuses and what is left behind), so the other xdist worker
runs its tests meanwhile.  But two of them at once would see each other's namespaces and files in /tmp, which each
checks it leaves as it found them: each holds one lock, shared by every worker of the run, from setup to teardown."""

from __future__ import annotations

import fcntl

import pytest


@pytest.fixture(autouse=True)
def one_simulation_at_a_time(tmp_path_factory):
    """Hold the run's hosts lock (in the folder every xdist worker's base folder is in) for this test."""
    with open(tmp_path_factory.getbasetemp().parent / "serverbench-hosts-tests.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
