"""Cells that start from one state: response size drift is judged from the records (pure), and a user's
perf_app_reset runs in a child interpreter from the app's folder with its environment."""

from dataclasses import replace

import pytest

from serverbench.catalog.userapp import AppTarget
from serverbench.errors import ResetError
from serverbench.judge.drift import size_drift
from serverbench.measure.reset import reset_app
from tests.unit.judge.test_checks import record


def _sized(variant, workload, bytes_per_response):
    r = record(workload=workload, variant=variant)
    return replace(r, load=replace(r.load, bytes=int(bytes_per_response * r.load.requests)))


def test_growing_listing_is_warned_and_header_differences_are_not():
    """A listing 100x bigger in a later cell is named with every cell's size; 150 bytes of headers are not."""
    results = [
        _sized("waitress-t4", "list", 2_000),
        _sized("gunicorn-sync-w2", "list", 200_000),
        _sized("waitress-t4", "home", 500),
        _sized("gunicorn-sync-w2", "home", 650),
    ]
    warnings = size_drift(results)
    assert len(warnings) == 1
    assert "list changed size" in warnings[0] and "gunicorn-sync-w2/flask 200,000" in warnings[0]
    assert "perf_app_reset" in warnings[0]


def test_reset_runs_in_the_app_folder_with_its_environment(tmp_path):
    """The reset function sees the app's folder as cwd, its module on the path and perf_app_env; a failing one
    is a ResetError with its traceback's end."""
    (tmp_path / "state.py").write_text(
        "import os, pathlib\n"
        "def reset():\n    pathlib.Path('reset.txt').write_text(os.environ['DB'])\n"
        "def broken():\n    raise RuntimeError('no database here')\n"
    )
    reset_app(AppTarget.parse("state:reset"), tmp_path, {"DB": "notes.sqlite3"})
    assert (tmp_path / "reset.txt").read_text() == "notes.sqlite3"
    with pytest.raises(ResetError, match="(?s)state:broken failed.*no database here"):
        reset_app(AppTarget.parse("state:broken"), tmp_path, {})
