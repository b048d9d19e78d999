"""The MongoDB backend's pure parts (backends.mongo): the fix it names when no server is found, the cores
it counts and its cleanup."""

import os
import sys
import tempfile

from serverbench.backends.environment import SERVICES_PYTHON
from serverbench.backends.mongo import MongoService, missing_mongo_fix


def test_the_mongo_fix_installs_into_the_services_environment(tmp_path, monkeypatch):
    """With SERVERBENCH_SERVICES_PYTHON set, the fix installs secantusdb with that python, never the session's."""
    services = str(tmp_path / "venv" / "bin" / "python")
    monkeypatch.setenv(SERVICES_PYTHON, services)
    fix = missing_mongo_fix()
    assert f"`{services} -m pip install secantusdb`" in fix and SERVICES_PYTHON in fix and "--mongo-url" in fix


def test_the_mongo_fix_on_an_old_interpreter_points_at_the_variable(monkeypatch):
    """On an interpreter that cannot install SecantusDB (PyPy 3.9), the fix is the variable, not a pip install there."""
    monkeypatch.delenv(SERVICES_PYTHON, raising=False)
    monkeypatch.setattr(sys, "version_info", (3, 9, 16, "final", 0))
    fix = missing_mongo_fix()
    assert f"set {SERVICES_PYTHON}" in fix and "cannot install secantusdb" in fix
    assert f"{sys.executable} -m pip install" not in fix


def test_the_mongo_fix_on_a_recent_cpython_without_the_variable_installs_here_or_sets_it(monkeypatch):
    """With no SERVERBENCH_SERVICES_PYTHON on CPython >= 3.10, the fix installs secantusdb with this interpreter or
    sets the variable (./run sets it), and still offers mongod and --mongo-url."""
    monkeypatch.delenv(SERVICES_PYTHON, raising=False)
    monkeypatch.setattr(sys, "version_info", (3, 12, 0, "final", 0))
    monkeypatch.setattr(sys.implementation, "name", "cpython")
    fix = missing_mongo_fix()
    assert f"`{sys.executable} -m pip install secantusdb`, or set {SERVICES_PYTHON}" in fix
    assert "`./run` sets it to .venv/bin/python" in fix
    assert fix.endswith("or put a mongod on PATH, or give a running one with --mongo-url mongodb://127.0.0.1:27017/")


def test_secantusdb_counts_one_core_and_a_mongod_every_core():
    """SecantusDB serves from one Python process (one core under the GIL); a mongod or an external server may use
    every core of the machine."""
    assert MongoService("mongodb://x", "secantusdb").cores == 1
    assert MongoService("mongodb://x", "mongod").cores == MongoService("mongodb://x", "external").cores
    assert MongoService("mongodb://x", "mongod").cores == (os.cpu_count() or 1)


def test_stopping_a_service_removes_its_temporary_folder_once():
    """stop() on a service with no process of its own still removes its temporary folder, and a second stop is
    harmless."""
    tmp = tempfile.TemporaryDirectory(prefix="serverbench-test-")
    service = MongoService("mongodb://x", "external", None, tmp)
    service.stop()
    assert not os.path.exists(tmp.name) and service.pid is None
    service.stop()
