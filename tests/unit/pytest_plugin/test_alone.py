"""Tests marked alone (pytest_plugin.alone): the turns they take on locks every xdist worker shares, and the order
the alone ones are served in."""

import fcntl
import signal
import subprocess
import sys
import time

from serverbench.pytest_plugin.alone import QUEUE, TICKET, TURNS, turn

# A process that asks for a turn and, once served, writes its name to the folder's log.  With "hold" it prints
# "held" and keeps its turn until it is killed.
TAKER = """
import sys
from pathlib import Path
from serverbench.pytest_plugin.alone import turn
folder, name, kind = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
with turn(folder, alone=kind != "shared"):
    with open(folder / "served.log", "a") as log:
        log.write(name + "\\n")
    if kind == "hold":
        print("held", flush=True)
        sys.stdin.read()
"""


def taken(path, mode):
    """Whether another open file could take ``mode`` on ``path`` now, without waiting (the lock is given back)."""
    with open(path, "a") as other:
        try:
            fcntl.flock(other, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(other, fcntl.LOCK_UN)
        return True


def tickets(folder):
    """The tickets of alone turns in the folder's queue, held or left by a dead holder."""
    return sorted((folder / QUEUE).glob(f"{TICKET}*"))


def ask(folder, name, kind="alone"):
    """A process that asks for a turn in ``folder`` (alone, shared, or alone and held until it is killed)."""
    return subprocess.Popen(
        [sys.executable, "-c", TAKER, str(folder), name, kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def until(condition, what):
    """Wait for ``condition``; a minute without it fails (a bound on a hang, not a timing)."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.01)


def served(folder, *takers):
    """The names in the order their processes were served, once each of ``takers`` has ended."""
    for taker in takers:
        out, _ = taker.communicate(timeout=60)
        assert taker.returncode == 0, out
    return (folder / "served.log").read_text().split()


def test_an_alone_turn_holds_the_turns_lock_exclusively_and_a_ticket_until_it_ends(tmp_path):
    """While an alone test runs no other test can take a turn, shared or alone, and it holds its ticket; both are
    free after it, and its ticket is gone."""
    with turn(tmp_path, alone=True):
        assert not taken(tmp_path / TURNS, fcntl.LOCK_SH)
        (ticket,) = tickets(tmp_path)
        assert not taken(ticket, fcntl.LOCK_SH)
    assert taken(tmp_path / TURNS, fcntl.LOCK_EX) and tickets(tmp_path) == []


def test_shared_turns_run_side_by_side_and_keep_an_alone_test_waiting(tmp_path):
    """Two shared turns are held at once, with no ticket; while any is held an alone test cannot take its turn."""
    with turn(tmp_path, alone=False), turn(tmp_path, alone=False):
        assert taken(tmp_path / TURNS, fcntl.LOCK_SH) and not taken(tmp_path / TURNS, fcntl.LOCK_EX)
        assert tickets(tmp_path) == []
    assert taken(tmp_path / TURNS, fcntl.LOCK_EX)


def test_alone_tests_are_served_in_the_order_they_asked(tmp_path):
    """Three processes ask for alone turns one after the other while this one holds its turn, and this one asks
    again the moment it ends: they are served first, second, third, and this one's second turn after them (with
    flock alone, the taker that lets go and asks at once usually wins)."""
    with turn(tmp_path, alone=True):
        takers = []
        for name in ("first", "second", "third"):
            takers.append(ask(tmp_path, name))
            until(lambda: len(tickets(tmp_path)) == len(takers) + 1, f"{name}'s ticket")
    with turn(tmp_path, alone=True), open(tmp_path / "served.log", "a") as log:
        log.write("again\n")
    assert served(tmp_path, *takers) == ["first", "second", "third", "again"]
    assert tickets(tmp_path) == []


def test_a_shared_turn_asked_after_alone_ones_waits_for_all_of_them(tmp_path):
    """Two processes ask for alone turns while this one holds its turn, then one for a shared turn: the shared one
    is served after both, not between them."""
    with turn(tmp_path, alone=True):
        takers = []
        for name in ("first", "second"):
            takers.append(ask(tmp_path, name))
            until(lambda: len(tickets(tmp_path)) == len(takers) + 1, f"{name}'s ticket")
        takers.append(ask(tmp_path, "shared", kind="shared"))
    assert served(tmp_path, *takers) == ["first", "second", "shared"]


def test_a_dead_taker_neither_holds_its_turn_nor_keeps_the_ones_behind_it_waiting(tmp_path):
    """A process killed while it waits for its alone turn, and one killed while it holds its turn, leave tickets
    that no longer hold anyone back: the next alone turn is served, and removes what they left."""
    holder = ask(tmp_path, "holder", kind="hold")
    assert holder.stdout.readline() == "held\n"
    waiting = ask(tmp_path, "killed")
    until(lambda: len(tickets(tmp_path)) == 2, "the waiting process's ticket")
    nxt = ask(tmp_path, "next")
    until(lambda: len(tickets(tmp_path)) == 3, "the next process's ticket")
    for doomed in (waiting, holder):
        doomed.send_signal(signal.SIGKILL)
        doomed.communicate(timeout=60)  # its pipes closed too
    assert served(tmp_path, nxt) == ["holder", "next"]
    assert tickets(tmp_path) == []


def test_an_alone_test_runs_with_no_other_test_beside_it(pytester):
    """Under -n 2 no other test's run overlaps the alone test's, while the others do run side by side."""
    log = pytester.path / "spans.log"
    pytester.makepyfile(
        test_spans=f'''
import time

import pytest

def span(name, seconds):
    started = time.monotonic()
    time.sleep(seconds)
    with open({str(log)!r}, "a") as out:
        out.write(f"{{name}} {{started}} {{time.monotonic()}}\\n")

@pytest.mark.parametrize("n", range(8))
def test_beside(n):
    """A short test."""
    span(f"beside{{n}}", 0.2)

@pytest.mark.alone(reason="it times itself")
@pytest.mark.parametrize("n", range(2))
def test_alone(n):
    """A test that must have the machine to itself."""
    span(f"alone{{n}}", 0.5)
'''
    )
    result = pytester.runpytest("-n", "2", "-p", "xdist")
    assert result.ret == 0 and result.parseoutcomes()["passed"] == 10
    spans = [(name, float(a), float(b)) for name, a, b in (line.split() for line in log.read_text().splitlines())]

    def overlap(x, y):
        return x[1] < y[2] and y[1] < x[2]

    alone = [s for s in spans if s[0].startswith("alone")]
    assert len(alone) == 2 and not [(a[0], s[0]) for a in alone for s in spans if s is not a and overlap(a, s)]
    beside = [s for s in spans if s[0].startswith("beside")]
    assert any(overlap(x, y) for x in beside for y in beside if x is not y), "the other tests did not run in parallel"
