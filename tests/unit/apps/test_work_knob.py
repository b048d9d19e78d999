"""The per-request knobs (apps/injected_work.py): the work knob's value, its loop, the apps' refusal of a bad value,
and the leak knob."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from serverbench.catalog.apps import PYTHON_APPS as APPS

APPS_DIR = Path(__file__).resolve().parents[3] / "apps"
_spec = importlib.util.spec_from_file_location("injected_work", APPS_DIR / "injected_work.py")
injected_work = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(injected_work)


@pytest.mark.parametrize("value, expected", [(None, 0), ("0", 0), ("7", 7), ("250000", 250000)])
def test_the_knob_reads_a_whole_number(value, expected):
    """Unset reads as 0; a whole number reads as itself."""
    environ = {} if value is None else {"SERVERBENCH_WORK_ITERS": value}
    assert injected_work.iterations(environ) == expected


@pytest.mark.parametrize("value", ["", "-1", "1.5", "1e3", " 5", "+5", "1_000", "ten", "²"])
def test_the_knob_refuses_anything_else(value):
    """A value that is not a whole number >= 0 is refused with the variable's name and the fix."""
    with pytest.raises(ValueError) as info:
        injected_work.iterations({"SERVERBENCH_WORK_ITERS": value})
    assert f"SERVERBENCH_WORK_ITERS={value!r} is not a whole number >= 0" in str(info.value)
    assert "unset it" in str(info.value)


@pytest.mark.parametrize("iters", [0, 1, 2, 1000, 100_000])
def test_the_loop_runs_exactly_n_iterations(iters):
    """The header value carries N and the loop's sum of 0..N-1 (mod 2**30): only N iterations give it."""
    assert injected_work.run(iters) == f"{iters} {iters * (iters - 1) // 2 % 2**30}"


@pytest.mark.parametrize("app_name", list(APPS))
def test_every_app_refuses_a_bad_value_at_import(app_name):
    """An app imported with SERVERBENCH_WORK_ITERS=ten fails at once, naming the variable."""
    env = {**os.environ, "SERVERBENCH_WORK_ITERS": "ten", "PYTHONPATH": str(APPS_DIR)}
    done = subprocess.run(
        [sys.executable, "-c", f"import {APPS[app_name].module}"],
        cwd=APPS_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "ValueError: SERVERBENCH_WORK_ITERS='ten' is not a whole number >= 0" in done.stderr


def _knobs(environ):
    """injected_work as imported with these SERVERBENCH_* variables (its knobs are read at import)."""
    spec = importlib.util.spec_from_file_location("injected_work_under_test", APPS_DIR / "injected_work.py")
    module = importlib.util.module_from_spec(spec)
    saved = dict(os.environ)
    try:
        os.environ.update(environ)
        spec.loader.exec_module(module)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return module


def test_the_leak_knob_keeps_n_bytes_per_request():
    """SERVERBENCH_LEAK_BYTES=N: each per-request call keeps one more N-byte object, never released."""
    knobs = _knobs({"SERVERBENCH_LEAK_BYTES": "4096"})
    assert knobs.PER_REQUEST and knobs.LEAK_BYTES == 4096
    for _ in range(3):
        knobs.per_request()
    assert [len(kept) for kept in knobs._leaked] == [4096, 4096, 4096]


def test_the_delay_knob_sleeps_in_the_request_unless_the_caller_awaits_it(monkeypatch):
    """SERVERBENCH_DELAY_US=N: the per-request hook is installed and sleeps N us (time.sleep), except for a
    caller that awaits the wait itself (the aiohttp app: sleep=False)."""
    knobs = _knobs({"SERVERBENCH_DELAY_US": "60"})
    assert knobs.PER_REQUEST and knobs.DELAY_S == 60e-6
    slept = []
    monkeypatch.setattr(knobs.time, "sleep", slept.append)
    knobs.per_request()
    knobs.per_request(sleep=False)
    assert slept == [60e-6]


def test_the_leak_knob_is_off_by_default():
    """Unset or 0, the leak knob installs no hook (PER_REQUEST false without burn) and keeps nothing."""
    for environ in ({}, {"SERVERBENCH_LEAK_BYTES": "0"}):
        knobs = _knobs({"SERVERBENCH_BURN_US": "0", **environ})
        assert not knobs.PER_REQUEST and knobs.LEAK_BYTES == 0


def test_the_leak_knob_refuses_a_bad_value():
    """SERVERBENCH_LEAK_BYTES must be a whole number: a bad one is refused naming the variable."""
    with pytest.raises(ValueError, match="SERVERBENCH_LEAK_BYTES='1k' is not a whole number >= 0"):
        _knobs({"SERVERBENCH_LEAK_BYTES": "1k"})


def test_the_heap_knob_writes_this_process_heap_at_most_every_interval(tmp_path):
    """SERVERBENCH_HEAP_DIR=<folder>: a request writes '<blocks> <malloc bytes>' to <folder>/<pid>, and not
    again until HEAP_EVERY_S has passed; unset, no hook is installed."""
    knobs = _knobs({"SERVERBENCH_HEAP_DIR": str(tmp_path)})
    assert knobs.PER_REQUEST and knobs.HEAP_DIR == str(tmp_path)
    knobs.per_request()
    path = tmp_path / str(os.getpid())
    blocks, malloc = map(int, path.read_text().split())
    assert blocks > 1000 and (malloc > 0 or malloc == -1)
    path.write_text("0 0\n")
    knobs.write_heap(str(tmp_path), knobs._heap_due[0] - 0.01)  # not yet due: the file stays as it was
    assert path.read_text() == "0 0\n"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
    assert not _knobs({}).PER_REQUEST


def test_the_stat_and_getaddrinfo_knobs_plant_n_calls_per_request(monkeypatch):
    """SERVERBENCH_STAT_PER_REQUEST=N and SERVERBENCH_GETADDRINFO=N: the hook is installed and each request
    stats this module N times and resolves localhost N times; unset or 0, neither installs a hook."""
    knobs = _knobs({"SERVERBENCH_STAT_PER_REQUEST": "2", "SERVERBENCH_GETADDRINFO": "1"})
    assert knobs.PER_REQUEST and (knobs.STATS, knobs.LOOKUPS) == (2, 1)
    stats, lookups = [], []
    monkeypatch.setattr(knobs.os, "stat", stats.append)
    monkeypatch.setattr(knobs.socket, "getaddrinfo", lambda host, port: lookups.append((host, port)))
    knobs.per_request()
    assert stats == [knobs.__file__, knobs.__file__] and lookups == [("localhost", None)]
    off = _knobs({"SERVERBENCH_STAT_PER_REQUEST": "0", "SERVERBENCH_GETADDRINFO": "0"})
    assert not off.PER_REQUEST and (off.STATS, off.LOOKUPS) == (0, 0)


def test_the_redis_knobs_are_read_but_install_no_hook():
    """SERVERBENCH_REDIS_EXTRA_GET=N and SERVERBENCH_REDIS_CONNECT=1 change /redis only: no per-request hook."""
    knobs = _knobs({"SERVERBENCH_REDIS_EXTRA_GET": "3", "SERVERBENCH_REDIS_CONNECT": "1"})
    assert (knobs.REDIS_EXTRA_GETS, knobs.REDIS_CONNECT, knobs.PER_REQUEST) == (3, True, False)
    with pytest.raises(ValueError, match="SERVERBENCH_REDIS_CONNECT='yes' is not a whole number >= 0"):
        _knobs({"SERVERBENCH_REDIS_CONNECT": "yes"})
