"""`python -m serverbench`: the same entry as the installed `serverbench` script."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("entry", ["python -m serverbench", "serverbench"])
def test_python_dash_m_serverbench_and_the_script_are_one_entry(entry):
    """`python -m serverbench merge --help` and the installed script's `serverbench merge --help` reach merge."""
    script = Path(sys.executable).with_name("serverbench")
    argv = [sys.executable, "-m", "serverbench"] if entry.startswith("python") else [str(script)]
    done = subprocess.run([*argv, "merge", "--help"], capture_output=True, text=True, timeout=300)  # a loaded machine
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: serverbench merge ")


def test_python_dash_m_serverbench_exits_with_the_commands_status(tmp_path, monkeypatch, capsys):
    """The module passes the command line to serverbench's main and exits with its status (1: a stale page)."""
    (tmp_path / "p.md").write_text("<!-- BEGIN GENERATED: options old -->\nstale\n<!-- END GENERATED: options -->\n")
    monkeypatch.setattr(sys, "argv", ["serverbench", "reference", "--check", str(tmp_path)])
    monkeypatch.delitem(sys.modules, "serverbench.__main__", raising=False)
    with pytest.raises(SystemExit) as info:  # what `python -m` runs, imported here (a new process each time is slow)
        importlib.import_module("serverbench.__main__")
    assert info.value.code == 1
    assert capsys.readouterr().out == f"{tmp_path / 'p.md'}: stale\n"
