"""Where generators run (processes.places): this machine, the split of a load, runs side by side."""

from __future__ import annotations

import sys
import time

import pytest

from serverbench.processes.places import LOCAL, host_load, split, spread, spread_run, together


def test_split_is_as_even_as_can_be_the_larger_shares_first():
    """64 connections over 3 hosts: 22, 21, 21; never a share lost."""
    assert split(64, 3) == [22, 21, 21]
    assert split(2, 4) == [1, 1, 0, 0]
    assert sum(split(1001, 7)) == 1001
    with pytest.raises(ValueError):
        split(4, 0)


def test_together_runs_the_calls_at_once_and_raises_the_first_failure():
    """Three sleeps of 0.3 s end in well under 0.9 s; a failing call is raised after the others ended."""
    started = time.monotonic()
    assert together([lambda i=i: (time.sleep(0.3), i)[1] for i in range(3)]) == [0, 1, 2]
    assert time.monotonic() - started < 0.8
    ended = []

    def slow():
        time.sleep(0.2)
        ended.append(1)

    def fail():
        raise RuntimeError("lost")

    with pytest.raises(RuntimeError, match="lost"):
        together([slow, fail])
    assert ended == [1]


def test_the_local_place_runs_a_generator_and_reads_its_files():
    """This machine: a folder, a run with its CPU, and the file it wrote read back and listed."""
    with LOCAL.folder() as folder:
        run = LOCAL.run([sys.executable, "-c", f"open('{folder}/out.txt', 'w').write('hi')"], timeout=30)
        assert run.returncode == 0 and run.cpu_s > 0
        assert LOCAL.read(f"{folder}/out.txt") == b"hi"
        assert LOCAL.list(folder, "*.txt") == [f"{folder}/out.txt"]


def test_a_spread_run_sums_cpu_and_records_each_place():
    """Two runs as one: CPU summed, the longest wall time, a HostLoad per place with its share."""
    runs = [
        LOCAL.run([sys.executable, "-c", "pass"], timeout=30),
        LOCAL.run([sys.executable, "-c", "pass"], timeout=30),
    ]
    spread = spread_run(runs, [LOCAL, LOCAL], [32, 32])
    assert spread.cpu_s == pytest.approx(sum(r.cpu_s for r in runs))
    assert spread.wall_s == max(r.wall_s for r in runs)
    assert [h.share for h in spread.hosts] == [32, 32] and spread.hosts[0].name == "local"
    assert host_load(LOCAL, 1, 0.5, 1.0, 10).busy_pct == 50.0


def test_a_failing_call_stops_the_others_once():
    """The first failure runs on_failure once, which ends the slow call early; the failure is still raised."""
    import threading

    stop, stopped = threading.Event(), []

    def slow():
        stop.wait(10)

    def fail():
        raise RuntimeError("lost")

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="lost"):
        together([slow, fail, fail], on_failure=lambda: (stopped.append(1), stop.set()))
    assert stopped == [1] and time.monotonic() - started < 5


def test_spread_splits_the_load_and_names_each_places_share():
    """64 connections over three places: each part runs with its share, and the spread run records them in order."""

    def one(place, share):
        return LOCAL.run([sys.executable, "-c", "pass"], timeout=30), share * 10

    parts, run = spread([LOCAL, LOCAL, LOCAL], 64, one)
    assert parts == [220, 210, 210] and [h.share for h in run.hosts] == [22, 21, 21]
    parts, run = spread([LOCAL, LOCAL], 1, one)  # one connection: one place, none idle in the record
    assert parts == [10] and len(run.hosts) == 1
