"""Tests that must have the machine to themselves under pytest-xdist: turns taken on one lock all workers share.

A test marked ``@pytest.mark.alone(reason=...)`` (it judges timings, which a test running beside it
would disturb) holds the turns lock exclusively from its setup to its teardown; every other test
holds it shared.  So the workers run other tests side by side, an alone test waits for the tests
running on the other workers to end, and they wait for it.

Alone tests are served in the order they asked, and no test that asked after one runs before it: ``flock``
grants a released lock to any of its waiters, so an alone test could wait behind later ones again and again,
and shared turns could slip in between.  An alone test first takes a ticket, a file of the queue folder it
holds an ``flock`` on until its turn ends, then waits until every earlier ticket is given back; a shared turn
waits for the tickets taken before it asked.  ``fcntl.flock`` locks go with the open file: a worker that dies
releases its turn and its ticket, and the one waiting behind it removes the file.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

TURNS, QUEUE = "serverbench-turns.lock", "serverbench-queue"
# In the queue folder: the counter (one byte per ticket handed out; its lock is held only to hand one out or
# to read the line) and the tickets, ``ticket-<n>``.
COUNTER, TICKET = "counter", "ticket-"


@contextmanager
def turn(folder: Path, alone: bool) -> Iterator[None]:
    """Hold this test's turn: alone (no other test runs meanwhile) or shared with the other workers' tests."""
    with _in_line(folder / QUEUE, alone), open(folder / TURNS, "a") as turns:
        fcntl.flock(turns, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        yield


@contextmanager
def _in_line(queue: Path, alone: bool) -> Iterator[None]:
    """Wait behind every alone test that asked before this one; an alone test holds a ticket until its turn ends."""
    queue.mkdir(exist_ok=True)
    with open(queue / COUNTER, "ab") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        ahead = sorted(queue.glob(f"{TICKET}*"))  # each one locked by its holder: taken under the counter's lock
        ticket = _take_ticket(queue, counter) if alone else None
    try:
        for path in ahead:
            _wait_out(path)
        yield
    finally:
        if ticket is not None:
            os.unlink(ticket.name)  # before the lock goes: a waiter finds the file gone or waits on it
            ticket.close()


def _take_ticket(queue: Path, counter: BinaryIO) -> BinaryIO:
    """The next ticket, locked: its number is the counter's length, and the counter grows by one byte."""
    number = os.fstat(counter.fileno()).st_size
    os.write(counter.fileno(), b".")
    ticket = open(queue / f"{TICKET}{number}", "wb")
    fcntl.flock(ticket, fcntl.LOCK_EX)
    return ticket


def _wait_out(ticket: Path) -> None:
    """Wait until the holder of ``ticket`` has ended its turn or died (its lock goes with its process)."""
    try:
        held = open(ticket, "rb")
    except FileNotFoundError:
        return
    with held:
        fcntl.flock(held, fcntl.LOCK_SH)
    ticket.unlink(missing_ok=True)  # a dead holder's ticket stays behind: the first waiter through removes it
