"""processes.together: calls run at the same time in threads, their results in order; stopped (a signal in the main
thread, or one the kernel gave a calling thread), the running processes are killed until every thread has ended
through its own cleanup, and only then does the interruption go on (no server)."""

import signal
import threading
import time

import pytest

from serverbench.processes import together


class Stopped(BaseException):
    """What this test's signal handler raises, as SIGTERM's handler raises SystemExit."""


@pytest.fixture
def stop_signal():
    """SIGUSR1 raises Stopped in the main thread while the test runs."""

    def stopped(signum, frame):
        raise Stopped

    previous = signal.signal(signal.SIGUSR1, stopped)
    yield signal.SIGUSR1
    signal.signal(signal.SIGUSR1, previous)


@pytest.fixture
def killed(monkeypatch):
    """kill_running replaced by an event the calls wait on, as a count waits on its server."""
    event = threading.Event()
    monkeypatch.setattr(together, "kill_running", event.set)
    return event


def test_the_results_come_in_order_and_the_first_failure_once_all_ended():
    """Each call's result in the calls' order; a failing call's error is raised after the others have finished."""
    assert together.at_once([lambda: 1, lambda: time.sleep(0.05) or 2]) == [1, 2]
    finished = []

    def slow():
        time.sleep(0.1)
        finished.append("slow")

    with pytest.raises(ValueError, match="bad"):
        together.at_once([lambda: (_ for _ in ()).throw(ValueError("bad")), slow])
    assert finished == ["slow"]


def _count(killed, cleaned, both, signal_to=None):
    """A count that waits for its server to be killed (10 s at most) and cleans up; once both counts run, it may
    signal a thread."""

    def count():
        try:
            both.wait()
            if signal_to is not None:
                signal.pthread_kill(signal_to(), signal.SIGUSR1)
            killed.wait(10)
        finally:
            time.sleep(0.1)  # the worktree's removal
            cleaned.append(threading.current_thread().name)

    return count


def test_a_stopped_wait_kills_what_runs_and_ends_every_thread_before_it_goes_on(stop_signal, killed):
    """The main thread's signal kills the running processes; both calls' cleanup has run when the interruption
    reaches the caller, within a second, not at the calls' own end."""
    cleaned: list[str] = []
    started = time.monotonic()
    main = threading.main_thread().ident
    with pytest.raises(Stopped):
        both = threading.Barrier(2)
        together.at_once([_count(killed, cleaned, both, lambda: main), _count(killed, cleaned, both)], name="count")
    assert sorted(cleaned) == ["count-0", "count-1"]
    assert killed.is_set() and time.monotonic() - started < 5


def test_a_signal_the_kernel_gave_a_calling_thread_still_stops_the_wait(stop_signal, killed):
    """A process's signal may land on any of its threads: one given to a calling thread does not interrupt the main
    thread's wait, which wakes to run the handler (it waited out the counts)."""
    cleaned: list[str] = []
    started = time.monotonic()
    with pytest.raises(Stopped):
        both = threading.Barrier(2)
        together.at_once(
            [_count(killed, cleaned, both, threading.get_ident), _count(killed, cleaned, both)], name="count"
        )
    assert sorted(cleaned) == ["count-0", "count-1"]
    assert time.monotonic() - started < 5, "the main thread waited for the calls to end on their own"
