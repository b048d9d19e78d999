"""A generator's time on a core and waiting for one (processes.runqueue): readings of the kernel's schedstat, and the
part of a run that covers a window."""

import os
import time

from serverbench.drivers.locust import answer_window
from serverbench.processes.runqueue import RunQueueSampler, between, combined, read
from serverbench.records.schema import RunQueue

SAMPLES = ((100.0, 0.0, 0.0), (101.0, 0.5, 0.1), (102.0, 1.2, 0.5), (103.0, 1.9, 0.9), (104.0, 2.0, 1.0))


def test_the_window_takes_the_samples_nearest_inside_it():
    """[100.5, 103.5] runs from the sample at 101 to the one at 103; no bounds is the whole run."""
    assert _rounded(between(SAMPLES, 100.5, 103.5)) == RunQueue(cpu_s=1.4, wait_s=0.8, wall_s=2.0)
    assert _rounded(between(SAMPLES)) == RunQueue(cpu_s=2.0, wait_s=1.0, wall_s=4.0)
    assert _rounded(between(SAMPLES, 101.0, 102.0)) == RunQueue(cpu_s=0.7, wait_s=0.4, wall_s=1.0)
    assert _rounded(between(SAMPLES, 103.0)) == RunQueue(cpu_s=0.1, wait_s=0.1, wall_s=1.0)


def _rounded(q: RunQueue) -> RunQueue:
    return RunQueue(round(q.cpu_s, 9), round(q.wait_s, 9), round(q.wall_s, 9))


def test_a_window_with_fewer_than_two_samples_or_counters_going_back_is_not_measured():
    """One sample in the window, none, or counters that go back (another process on the pid) give None."""
    assert between(SAMPLES, 101.5, 102.5) is None
    assert between((), None, None) is None
    assert between(((1.0, 2.0, 1.0), (2.0, 1.0, 1.5))) is None
    assert between(((1.0, 1.0, 1.0), (2.0, 1.5, 0.5))) is None
    assert between(((2.0, 1.0, 1.0), (2.0, 1.5, 1.5))) is None


def test_side_by_side_processes_add_their_times_over_the_longest_span():
    """Two workers: times added, the longer span; one unmeasured worker leaves the whole unmeasured."""
    assert combined([RunQueue(1.0, 0.5, 3.0), RunQueue(2.0, 0.25, 3.5)]) == RunQueue(3.0, 0.75, 3.5)
    assert combined([RunQueue(1.0, 0.5, 3.0), None]) is None
    assert combined([]) is None


def test_this_process_reads_its_own_time_on_a_core():
    """The kernel's schedstat of this process: time on a core that grows while it computes."""
    first = read(os.getpid())
    assert first is not None, "no /proc/PID/task/TID/schedstat on this kernel"
    deadline = time.process_time() + 0.05
    while time.process_time() < deadline:
        pass
    second = read(os.getpid())
    assert second[0] - first[0] >= 0.04 and second[1] >= first[1]
    assert read(2**22 + 12345) is None  # above pid_max: no such process


def test_the_main_thread_alone_leaves_out_another_threads_time_on_a_core():
    """A second thread that computes for 0.1 s adds to the sum over the threads, not to the main thread's own
    reading (locust's users all run on its main thread)."""
    import threading

    before_all, before_main = read(os.getpid()), read(os.getpid(), main_thread=True)
    burnt, done = threading.Event(), threading.Event()

    def burn() -> None:  # its time is in the kernel's statistics only while it lives
        deadline = time.thread_time() + 0.1
        while time.thread_time() < deadline:
            pass
        burnt.set()
        done.wait(5)

    worker = threading.Thread(target=burn)
    worker.start()
    burnt.wait(5)
    after_main, after_all = read(os.getpid(), main_thread=True), read(os.getpid())
    done.set()
    worker.join()
    assert after_main[0] - before_main[0] < 0.05 <= after_all[0] - before_all[0]
    sampler = RunQueueSampler(os.getpid(), interval=0.01, main_thread=True)
    first = sampler.stop()[0][1]
    assert sampler.main_thread and after_main[0] <= first <= read(os.getpid(), main_thread=True)[0]


def test_the_sampler_keeps_readings_in_time_order_until_stopped():
    """Sampling this process every 10 ms gives several readings, each later and no smaller (waited for up to 10 s: on
    a loaded machine the sampler's thread may not run for a while)."""
    sampler = RunQueueSampler(os.getpid(), interval=0.01)
    deadline = time.monotonic() + 10
    while len(sampler._samples) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    samples = sampler.stop()
    assert len(samples) >= 3
    assert all(a[0] < b[0] and a[1] <= b[1] and a[2] <= b[2] for a, b in zip(samples, samples[1:]))
    assert between(samples) is not None


def test_locusts_users_window_runs_from_the_first_start_to_the_last_answer():
    """The entries' earliest start and latest answer; entries never answered do not count, and none answered is None."""
    final = {
        "entries": [
            {"start_time": 10.0, "last_request_timestamp": 14.0},
            {"start_time": 10.5, "last_request_timestamp": 14.5},
            {"start_time": 9.0, "last_request_timestamp": None},
        ]
    }
    assert answer_window(final) == (10.0, 14.5)
    assert answer_window({"entries": [{"start_time": 9.0, "last_request_timestamp": None}]}) is None
