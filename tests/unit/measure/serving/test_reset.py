"""measure.serving.reset: a user's perf_app_reset function called in a child interpreter, from the app's folder with its
environment; a failure is a ResetError ending with the child's output (no server)."""

from __future__ import annotations

import os

import pytest

from serverbench.catalog.userapp import AppTarget
from serverbench.errors import ResetError
from serverbench.measure.serving.reset import reset_app


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


def test_the_given_env_wins_over_the_harness_and_the_app_folder_leads_pythonpath(tmp_path, monkeypatch):
    """The child inherits the harness's variables, the given ones replace them, and PYTHONPATH starts at the folder."""
    (tmp_path / "envdump.py").write_text(
        "import os, pathlib\n"
        "def reset():\n"
        "    keys = ('DB', 'HARNESS_ONLY', 'PYTHONPATH')\n"
        "    pathlib.Path('env.txt').write_text('\\n'.join(os.environ.get(k, '-') for k in keys))\n"
    )
    monkeypatch.setenv("DB", "from-the-harness")
    monkeypatch.setenv("HARNESS_ONLY", "kept")
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    reset_app(AppTarget.parse("envdump:reset"), tmp_path, {"DB": "given"})
    db, harness, pythonpath = (tmp_path / "env.txt").read_text().split("\n")
    assert (db, harness) == ("given", "kept")
    assert pythonpath.split(os.pathsep) == [str(tmp_path), "/elsewhere"]


def test_a_failed_reset_names_its_exit_code_and_shows_the_last_eight_lines_of_its_output(tmp_path):
    """stderr's last eight lines (stdout's when stderr is empty) and the exit code are in the ResetError."""
    (tmp_path / "noisy.py").write_text(
        "import sys\n"
        "def loud():\n"
        "    for i in range(1, 21):\n        print(f'line {i}', file=sys.stderr)\n"
        "    sys.exit(3)\n"
        "def quiet():\n"
        "    print('only stdout')\n    sys.exit(4)\n"
    )
    with pytest.raises(ResetError) as info:
        reset_app(AppTarget.parse("noisy:loud"), tmp_path, {})
    message = str(info.value)
    assert f"perf_app_reset = noisy:loud failed (exit 3) in {tmp_path}:" in message
    shown = [line for line in message.splitlines() if line.startswith("line ")]
    assert shown == [f"line {i}" for i in range(13, 21)]
    assert message.endswith("fix the function (it must run with perf_app_env set, from perf_app_dir)")
    with pytest.raises(ResetError, match=r"(?s)noisy:quiet failed \(exit 4\).*\nonly stdout\n"):
        reset_app(AppTarget.parse("noisy:quiet"), tmp_path, {})


def test_a_missing_interpreter_or_folder_is_a_reset_error_naming_it(tmp_path):
    """No interpreter at the given path, or no app folder, is a ResetError naming the path, not a bare OSError."""
    (tmp_path / "state.py").write_text("def reset():\n    pass\n")
    missing = tmp_path / "no-venv" / "bin" / "python"
    with pytest.raises(ResetError, match=f"state:reset could not start: .*{missing}") as info:
        reset_app(AppTarget.parse("state:reset"), tmp_path, {}, python=str(missing))
    assert "must exist" in str(info.value)
    with pytest.raises(ResetError, match=f"the app's folder \\({tmp_path / 'gone'}\\) must exist"):
        reset_app(AppTarget.parse("state:reset"), tmp_path / "gone", {})
