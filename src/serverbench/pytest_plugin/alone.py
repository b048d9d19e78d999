"""Tests that must have the machine to themselves under pytest-xdist: turns taken on one lock all workers share.

A test marked ``@pytest.mark.alone(reason=...)`` (it judges timings, which a test running beside it
would disturb) holds the turns lock exclusively from its setup to its teardown; every other test
holds it shared.  So the workers run other tests side by side, an alone test waits for the tests
running on the other workers to end, and they wait for it.  A waiting alone test goes first: it
closes a second lock, the gate, that a test passes before it takes its shared turn, so a stream
of short tests cannot starve it.  ``fcntl.flock`` locks go with the open file: a worker that dies
releases them.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

GATE, TURNS = "serverbench-gate.lock", "serverbench-turns.lock"


@contextmanager
def turn(folder: Path, alone: bool) -> Iterator[None]:
    """Hold this test's turn: alone (no other test runs meanwhile) or shared with the other workers' tests."""
    with open(folder / GATE, "a") as gate, open(folder / TURNS, "a") as turns:
        fcntl.flock(gate, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        try:
            fcntl.flock(turns, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(turns, fcntl.LOCK_UN)
