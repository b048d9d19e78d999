"""The deterministic injection knob (apps/injected_work.py): its value, its loop, and the apps' refusal of a bad value."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from serverbench.catalog.apps import PYTHON_APPS as APPS

APPS_DIR = Path(__file__).resolve().parents[2] / "apps"
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
    assert injected_work.run(iters) == f"{iters} {iters * (iters - 1) // 2 % 2 ** 30}"


@pytest.mark.parametrize("app_name", list(APPS))
def test_every_app_refuses_a_bad_value_at_import(app_name):
    """An app imported with SERVERBENCH_WORK_ITERS=ten fails at once, naming the variable."""
    env = {**os.environ, "SERVERBENCH_WORK_ITERS": "ten", "PYTHONPATH": str(APPS_DIR)}
    done = subprocess.run([sys.executable, "-c", f"import {APPS[app_name].module}"], cwd=APPS_DIR, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "ValueError: SERVERBENCH_WORK_ITERS='ten' is not a whole number >= 0" in done.stderr
