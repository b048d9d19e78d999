"""Backend programs come from serverbench's own environment first (SERVERBENCH_SERVICES_PYTHON), whatever the session's interpreter."""

import os
import sys

import pytest

from serverbench.backends.environment import SERVICES_PYTHON, find_program, require_program, where_looked
from serverbench.errors import MissingBinaryError


def program(folder, name):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_the_services_environment_comes_first(tmp_path, monkeypatch):
    """A program next to SERVERBENCH_SERVICES_PYTHON wins over this interpreter's folder and PATH."""
    services = program(tmp_path / "services" / "bin", "secantusd-py")
    program(tmp_path / "path", "secantusd-py")
    monkeypatch.setenv(SERVICES_PYTHON, str(tmp_path / "services" / "bin" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    assert find_program("secantusd-py") == str(services)


def test_path_is_the_last_resort(tmp_path, monkeypatch):
    """Without the services environment (or the program in it) PATH is searched."""
    on_path = program(tmp_path / "path", "serverbench-test-program")
    monkeypatch.setenv(SERVICES_PYTHON, str(tmp_path / "empty" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    assert find_program("serverbench-test-program") == str(on_path)


def test_the_venv_folder_is_not_resolved(tmp_path, monkeypatch):
    """A venv's python is a symlink to the base interpreter: the venv's own bin folder is searched, not the target's."""
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    os.symlink(sys.executable, venv_bin / "python")
    script = program(venv_bin, "secantusd-py")
    monkeypatch.setenv(SERVICES_PYTHON, str(venv_bin / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert find_program("secantusd-py") == str(script)


def test_a_missing_program_names_the_places_and_the_variable(tmp_path, monkeypatch):
    """The error lists where it looked and whether SERVERBENCH_SERVICES_PYTHON is set."""
    monkeypatch.delenv(SERVICES_PYTHON, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingBinaryError, match=f"{SERVICES_PYTHON} is not set.*apt-get install redis-server"):
        require_program("serverbench-no-such-redis", "redis-server")
    assert "serverbench-no-such-redis" in where_looked("serverbench-no-such-redis")
