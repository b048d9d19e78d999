"""Tests marked alone (pytest_plugin.alone): the turns they take on locks every xdist worker shares."""

import fcntl

from serverbench.pytest_plugin.alone import GATE, TURNS, turn


def taken(path, mode):
    """Whether another open file could take ``mode`` on ``path`` now, without waiting (the lock is given back)."""
    with open(path, "a") as other:
        try:
            fcntl.flock(other, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(other, fcntl.LOCK_UN)
        return True


def test_an_alone_turn_holds_the_turns_lock_exclusively_and_opens_the_gate_again(tmp_path):
    """While an alone test runs no other test can take a turn, shared or alone; the gate is open again once its turn
    is taken, and everything is free after it."""
    with turn(tmp_path, alone=True):
        assert not taken(tmp_path / TURNS, fcntl.LOCK_SH)
        assert taken(tmp_path / GATE, fcntl.LOCK_EX)
    assert taken(tmp_path / TURNS, fcntl.LOCK_EX)


def test_shared_turns_run_side_by_side_and_keep_an_alone_test_waiting(tmp_path):
    """Two shared turns are held at once; while any is held an alone test cannot take its turn, and the gate stays
    open for the next test."""
    with turn(tmp_path, alone=False), turn(tmp_path, alone=False):
        assert taken(tmp_path / TURNS, fcntl.LOCK_SH) and not taken(tmp_path / TURNS, fcntl.LOCK_EX)
        assert taken(tmp_path / GATE, fcntl.LOCK_EX)
    assert taken(tmp_path / TURNS, fcntl.LOCK_EX)


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
