"""The locust driver's wiring with stand-in processes (issue 22, mutation survivors of drivers.locust): what the
runner is told, which port, timeout and cores its processes get, what it reports, and the error of a failed run.
No locust runs and no request is sent."""

import dataclasses
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from serverbench.catalog.shapes import LoadShape
from serverbench.drivers import locust as locust_module
from serverbench.drivers.locust import BOOKSHOP, START_S, WAIT_ENV, LocustDriver, LocustRunner, parse_stats
from serverbench.errors import ConfigError, GeneratorError, MissingBinaryError
from serverbench.processes.executors import BackgroundProcess
from tests.unit.test_locust_driver import (
    EMPTY_FAILURES,
    ERROR_REPORT,
    FAILURES_CSV,
    FINAL_ENTRIES,
    FINAL_OUTPUT,
    STATS_CSV,
    _FakeLocust,
)


def _recording(monkeypatch, base=_FakeLocust, prints=""):
    """A stand-in runner whose calls are recorded: argv_master's and argv_worker's arguments, run_generator's
    timeout and cores, each worker's cores.  ``prints``: Python run by the master before it writes its CSVs."""
    seen = []

    class Recording(base):
        def argv_master(self, host_url, duration, csv_prefix, master_port=None):
            seen.append(("master", host_url, duration, Path(csv_prefix), master_port))
            argv = super().argv_master(host_url, duration, csv_prefix, master_port)
            return argv[:2] + [prints + "\n" + argv[2]] + argv[3:]

        def argv_worker(self, master_port):
            seen.append(("worker", master_port))
            return super().argv_worker(master_port)

    real_run, real_start = locust_module.run_generator, BackgroundProcess.start.__func__

    def gaps_folder(env, main_thread):
        # every process writes its users' gaps beside the run's files (the CSV prefix's folder), sampled on its users'
        # (main) thread
        run_dir = next(entry[3] for entry in seen if entry[0] == "master").parent
        assert main_thread is True and Path(env[locust_module.GAPS_ENV]) == run_dir
        assert {k: v for k, v in env.items() if k != locust_module.GAPS_ENV} == dict(os.environ)

    def run_generator(argv, timeout, cpus=None, env=None, main_thread=False):
        seen.append(("run_generator", timeout, cpus))
        gaps_folder(env, main_thread)
        return real_run(argv, timeout=timeout, cpus=cpus, env=env)

    def start(cls, argv, log, cpus=None, env=None, main_thread=False):
        seen.append(("start", cpus))
        assert Path(log).parent == Path(env[locust_module.GAPS_ENV]) and main_thread is True
        return real_start(cls, argv, log, cpus, env)

    monkeypatch.setattr(locust_module, "run_generator", run_generator)
    monkeypatch.setattr(BackgroundProcess, "start", classmethod(start))
    return Recording, seen


def test_the_driver_tells_the_runner_its_users_spawn_rate_workers_and_locustfile(monkeypatch, tmp_path):
    """Users spawn at once without a ramp, over the ramp (at least 1 a second) with one; the URL, duration and cores
    reach the run; the report carries the bookshop visitor's think time (none known for another locustfile)."""
    calls = []
    report = dataclasses.replace(parse_stats(STATS_CSV, EMPTY_FAILURES, 3.0), think_ms=None)

    def run(self, url, duration, cpus=None):
        calls.append((self.users, self.spawn_rate, self.workers, self.locustfile, url, duration, cpus))
        return report, "the run"

    monkeypatch.setattr(LocustRunner, "run", run)
    monkeypatch.setenv(WAIT_ENV, "0.25")
    got, the_run = LocustDriver(workers=2).run("http://127.0.0.1:9", LoadShape(10, 3), cpus=[1])
    assert calls[-1] == (10, 10, 2, BOOKSHOP, "http://127.0.0.1:9", 3 + START_S, [1])  # and locust's own start
    assert got.think_ms == 250.0 and the_run == "the run" and got.requests == report.requests
    LocustDriver().run("u", LoadShape(10, 3, ramp=4.0))
    assert calls[-1][:3] == (10, 3, 0)  # ceil(10 / 4)
    LocustDriver().run("u", LoadShape(10, 3, ramp=20.0))
    assert calls[-1][1] == 1
    other = tmp_path / "other.py"
    got, _ = LocustDriver(locustfile=other).run("u", LoadShape(10, 3))
    assert calls[-1][3] == other and got.think_ms is None


def test_the_driver_check_finds_locust_or_names_its_install(monkeypatch):
    """With locust importable the check passes; without it, it is a missing tool naming locust and its install."""
    LocustDriver().check()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "locust" else real(name, *a))
    with pytest.raises(MissingBinaryError, match="locust"):
        LocustDriver().check()


def test_one_user_spawned_one_a_second_is_a_valid_runner():
    """The smallest shape, 1 user at 1 a second, is accepted."""
    runner = LocustRunner(users=1, spawn_rate=1)
    assert (runner.users, runner.spawn_rate) == (1, 1)


def test_only_loopback_http_and_https_urls_are_driven():
    """An https loopback URL runs; another scheme on loopback is refused."""
    report, _ = _FakeLocust().run("https://127.0.0.1:9", 5)
    assert report.requests == 10000 - 17
    with pytest.raises(ConfigError, match="loopback http URLs only"):
        _FakeLocust().run("ftp://127.0.0.1:9", 5)


def test_the_master_gets_the_host_the_duration_a_csv_prefix_and_its_workers_port(monkeypatch):
    """The master is told the URL's scheme, host and port (not its path), the duration and a CSV prefix "run" in a
    serverbench-locust- folder, and a free port its worker is told too; it runs within duration + stop timeout +
    worker wait + 60 s on the cores given, as the worker does; the run returns the master's argv and output."""
    runner, seen = _recording(monkeypatch, prints="import sys; print('out'); sys.stderr.write('err')")
    report, run = runner(workers=1).run("http://127.0.0.1:9/site/x", 5, cpus=[0])
    (master,) = [s for s in seen if s[0] == "master"]
    (worker,) = [s for s in seen if s[0] == "worker"]
    assert master[1:3] == ("http://127.0.0.1:9", 5) and master[3].name == "run"
    assert master[3].parent.name.startswith("serverbench-locust-")
    assert isinstance(master[4], int) and master[4] > 0 and worker == ("worker", master[4])
    assert ("run_generator", 5 + 2 + 30 + 60, [0]) in seen and ("start", [0]) in seen
    assert run.argv[:2] == (sys.executable, "-c") and run.argv[3] == str(master[3])
    assert run.stdout == "out\n" and run.stderr == "err" and report.requests == 10000 - 17


def test_a_single_process_run_needs_no_port(monkeypatch):
    """Without workers no port is taken: the master is told none."""
    runner, seen = _recording(monkeypatch)
    runner().run("http://127.0.0.1:9", 5)
    assert [s[4] for s in seen if s[0] == "master"] == [None]


def test_the_final_statistics_printed_by_the_master_make_the_report(monkeypatch):
    """A master that prints its final statistics (--json): the report's requests and bytes are theirs, not the CSV's."""
    runner, _ = _recording(monkeypatch, prints=f"print({FINAL_OUTPUT!r})")

    class Clean(runner):
        master_csv = (STATS_CSV.replace(",Aggregated,10000,40,", ",Aggregated,10000,0,"), EMPTY_FAILURES, "0")

    report, run = Clean().run("http://127.0.0.1:9", 5)
    assert run.returncode == 0 and report.requests == 10 and report.bytes == 19600


# A sender that works for its users' window: it burns ``burn`` seconds of CPU (or sleeps them) between two wall-clock
# readings, writes its users' gaps where the driver asked, and (the master) prints final statistics over that window.
WINDOWED = """
import json, os, time
t0 = time.time()
end = time.process_time() + {burn}
while {busy} and time.process_time() < end:
    pass
time.sleep(0 if {busy} else {burn})
t1 = time.time()
with open(os.path.join(os.environ[{env!r}], "gaps-%d.json" % os.getpid()), "w") as f:
    json.dump({{"pairs": {pairs}, "gap_s": {gap_s}}}, f)
entries = json.loads({entries!r})
for e in entries:
    e["start_time"], e["last_request_timestamp"] = t0, t1
if {master}:
    print(json.dumps(entries))
"""


def _windowed(burn: float, busy: bool, pairs: int, gap_s: float, master: bool) -> str:
    return WINDOWED.format(
        burn=burn,
        busy=busy,
        env=locust_module.GAPS_ENV,
        pairs=pairs,
        gap_s=gap_s,
        entries=json.dumps(FINAL_ENTRIES),
        master=master,
    )


class _Clean(_FakeLocust):
    master_csv = (STATS_CSV.replace(",Aggregated,10000,40,", ",Aggregated,10000,0,"), EMPTY_FAILURES, "0")


def test_one_process_gives_its_users_gaps_and_its_run_queue_over_their_window(monkeypatch):
    """One locust process that computes for 0.6 s of its users' window and wrote 4 gaps over 10 ms: gap_ms 2.5, and
    its run queue covers the window (at most its length, runnable through it), not its whole run."""
    runner, _ = _recording(monkeypatch, base=_Clean, prints=_windowed(0.6, True, 4, 0.01, True))
    report, run = runner().run("http://127.0.0.1:9", 5)
    assert report.gap_ms == pytest.approx(2.5)
    assert run.run_queue is not None and 0 < run.run_queue.wall_s <= report.duration_s
    assert run.run_queue.cpu_s + run.run_queue.wait_s >= 0.8 * run.run_queue.wall_s  # runnable: on a core or waiting


def test_with_workers_the_run_queue_and_gaps_are_the_workers(monkeypatch):
    """A master that sleeps through its users' window while its one worker computes: the run queue is the worker's
    (runnable through the window), and the gaps are summed over the files every process wrote (3 + 1 over 8 ms)."""

    class Busy(_Clean):
        worker_code = _windowed(1.5, True, 3, 0.006, False)

    runner, _ = _recording(
        monkeypatch, base=Busy, prints="import time; time.sleep(0.3)\n" + _windowed(0.6, False, 1, 0.002, True)
    )
    report, run = runner(workers=1).run("http://127.0.0.1:9", 5)
    assert report.gap_ms == pytest.approx(2.0)
    assert run.run_queue is not None and run.run_queue.cpu_s + run.run_queue.wait_s >= 0.8 * run.run_queue.wall_s > 0


def test_the_csv_failures_stay_when_locust_also_printed_an_error_report(monkeypatch):
    """Exit code 1 with failures in the CSV: the printed error report does not replace them."""
    runner, _ = _recording(monkeypatch, prints=f"print({ERROR_REPORT!r})")
    report, run = runner().run("http://127.0.0.1:9", 5)
    assert run.returncode == 1
    assert dict(report.errors) == {"connect": 5, "read": 8, "write": 0, "timeout": 4, "status": 23}


def test_a_failed_master_names_the_workers_that_failed_or_logged_an_error():
    """A master exiting 2 is an error ending with the last 300 characters of each worker that exited non-zero or
    whose output says "Error", in order; a clean worker is left out."""
    codes = iter(
        [
            "import sys; sys.stdout.write('x' * 400 + 'END'); sys.exit(3)",
            "print('ConnectionError: gave up')",
            "print('fine')",
        ]
    )

    class Failing(_FakeLocust):
        master_csv = (STATS_CSV, FAILURES_CSV, "2")

        def argv_worker(self, master_port):
            return [sys.executable, "-c", next(codes)]

    with pytest.raises(GeneratorError) as err:
        Failing(workers=3).run("http://127.0.0.1:9", 5)
    assert str(err.value).startswith("locust exited with code 2: ")
    assert str(err.value).endswith(
        "\nworker 0 (exit 3): " + ("x" * 400 + "END")[-300:] + "\nworker 1 (exit 0): ConnectionError: gave up\n"
    )
