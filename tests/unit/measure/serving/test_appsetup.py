"""measure.serving.appsetup: perf_app_setup runs with sh in the app's folder, with its environment and interpreter."""

import sys
from pathlib import Path

import pytest

from serverbench.errors import SetupError
from serverbench.measure.serving.appsetup import set_up_app, setup_env


def test_the_command_runs_in_the_app_folder_with_its_environment(tmp_path):
    """cwd is the app's folder, perf_app_env is set, `python` is the arm's interpreter and the folder is importable."""
    (tmp_path / "initdb.py").write_text(
        "import os, pathlib, sys\npathlib.Path('made.txt').write_text(os.environ['DB'] + ' ' + sys.executable)\n"
    )
    seconds = set_up_app("python -m initdb && echo done", tmp_path, {"DB": "notes.sqlite3"}, sys.executable)
    made = (tmp_path / "made.txt").read_text().split()
    assert made[0] == "notes.sqlite3" and Path(made[1]).parent == Path(sys.executable).parent
    assert seconds >= 0


def test_the_arm_interpreter_folder_comes_first_on_path(tmp_path):
    """PATH starts with the folder of the arm's python (its venv's console scripts), PYTHONPATH with the app's."""
    env = setup_env(tmp_path, {"A": "1"}, "/opt/base-venv/bin/python")
    assert env["PATH"].split(":")[0] == "/opt/base-venv/bin"
    assert env["PYTHONPATH"].split(":")[0] == str(tmp_path) and env["A"] == "1"


def test_a_failing_command_names_itself_its_exit_and_its_output(tmp_path):
    """A command that exits non-zero is a SetupError with its exit status, its output's end and the fix."""
    with pytest.raises(SetupError) as failed:
        set_up_app("echo migrating; echo 'no such table: todo' >&2; exit 3", tmp_path, {})
    text = str(failed.value)
    assert "exit 3" in text and "no such table: todo" in text and "migrating" in text
    assert str(tmp_path) in text and "perf_app_dir" in text
