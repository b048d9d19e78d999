"""measure.serving.servers: why a variant cannot run here (the skip reason and its fix), the running server's record of what
it served, and the pool's memory of a cell that failed (no server starts: servers are started by
tests/integration/servers)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from serverbench.catalog.apps import APPS
from serverbench.catalog.contract import ENDPOINTS
from serverbench.catalog.matrix import Cell
from serverbench.catalog.variants import registry
from serverbench.errors import VerificationError
from serverbench.measure.serving.servers import RunningServer, ServerPool, unavailable_reason
from serverbench.processes.executors import free_port
from tests.unit.sample_variants import variant

APPS_DIR = Path(__file__).resolve().parents[3] / "apps"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
PLAY = registry()["play-pekko"]


def test_missing_package_gives_a_skip_reason_with_the_install_command():
    """A variant whose module cannot be imported is skipped with the pip command, never an ImportError."""
    from serverbench.measure.serving.servers import unavailable_reason

    reason = unavailable_reason(variant(requires=("no_such_server_xyz",), install="pip install no-such-server"))
    assert "no_such_server_xyz" in reason and "-m pip install no_such_server_xyz" in reason
    assert "pip install no-such-server" in reason


def test_unsupported_interpreter_gives_a_skip_reason():
    """A variant that does not declare the running interpreter is skipped, saying which it supports."""
    from serverbench.measure.serving.servers import interpreter, unavailable_reason

    other = "pypy" if interpreter() == "cpython" else "cpython"
    assert f"does not run on {interpreter()}" in unavailable_reason(variant(interpreters=(other,)))


def test_a_cpython_the_variant_does_not_run_on_gives_a_skip_reason_with_why():
    """python_below "3.13: why": skipped from that CPython on (the reason and what to do), run before it."""
    import sys

    from serverbench.measure.serving.servers import interpreter

    if interpreter() != "cpython":
        pytest.skip("the limit is of CPython versions")
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    reason = unavailable_reason(variant(python_below=f"{here}: its C module calls an API {here} removed"))
    assert reason.endswith(
        f"does not run on CPython {here} or later (its C module calls an API {here} removed): "
        "measure it on an earlier one"
    )
    later = f"{sys.version_info.major}.{sys.version_info.minor + 1}"
    assert "or later" not in (unavailable_reason(variant(python_below=f"{later}: x")) or "")


def test_a_missing_node_program_skips_with_the_install_command():
    """A variant whose program is not on PATH is unavailable, and the reason says how to install it."""
    variant = dataclasses.replace(registry()["node-http"], programs=("no-such-node-xyz",))
    reason = unavailable_reason(variant, APPS["node"], APPS_DIR)
    assert "needs no-such-node-xyz on PATH" in reason
    assert "npm ci --prefix apps/node" in reason and "apt-get install nodejs npm" in reason


@needs_node
def test_missing_node_modules_skip_with_npm_ci(tmp_path):
    """With node present but no node_modules under the apps folder, the row skips naming `npm ci`."""
    reason = unavailable_reason(registry()["node-http"], APPS["node"], tmp_path)
    assert reason == (
        f"node-http/node is not installed (node/node_modules/.package-lock.json missing under "
        f"{tmp_path}): run `npm ci --prefix apps/node` in the project folder"
    )
    installed = tmp_path / "node" / "node_modules" / ".package-lock.json"
    installed.parent.mkdir(parents=True)
    installed.write_text("{}")
    assert unavailable_reason(registry()["node-cluster-w2"], APPS["node"], tmp_path) is None


def test_an_unbuilt_play_app_skips_with_the_maven_command(tmp_path):
    """Without the compiled classes under the apps folder the row skips naming the Maven build; java missing too."""
    reason = unavailable_reason(PLAY, APPS["play"], tmp_path)
    if reason.startswith("play-pekko needs java"):
        assert "apt-get install openjdk-17-jdk-headless maven" in reason
    else:
        assert "play/target/classes/serverbench/PlayLoader.class" in reason
        assert "run `mvn -q -f apps/play/pom.xml package`" in reason
    no_java = dataclasses.replace(PLAY, programs=("no-such-java-xyz",))
    assert "needs no-such-java-xyz on PATH" in unavailable_reason(no_java, APPS["play"], tmp_path)


def test_an_unsupported_variant_says_why_before_anything_else_is_checked():
    """A row kept for the record gives its own reason, even when its interpreter and packages are missing too."""
    v = variant(unsupported="bjoern does not build on Python 3.12", interpreters=(), requires=("no_such_xyz",))
    assert unavailable_reason(v) == "x-server is not supported: bjoern does not build on Python 3.12"


def test_installed_files_are_checked_only_under_an_apps_folder(tmp_path):
    """Without apps_dir the node app's node_modules is not looked for; under an empty folder it is, naming the install."""
    node = dataclasses.replace(registry()["node-http"], programs=())
    assert unavailable_reason(node, APPS["node"]) is None
    reason = unavailable_reason(node, APPS["node"], tmp_path)
    assert reason.startswith("node-http/node is not installed (node/node_modules/.package-lock.json missing under")
    assert reason.endswith("run `npm ci --prefix apps/node` in the project folder")


def test_a_running_server_counts_the_trials_it_served_and_an_external_one_is_never_stopped():
    """served() numbers each trial and names the pid; an external server's pid is the one given, and stop() is a no-op."""
    server = RunningServer("external", "http://127.0.0.1:9", external_pid=4321, started="2026-11-27T00:00:00+00:00")
    assert server.pid == 4321
    assert server.served() == {"pid": 4321, "started": "2026-11-27T00:00:00+00:00", "trial": 1}
    assert server.served()["trial"] == 2 and server.trials == 2
    server.stop()
    server.stop(at_once=True)
    assert RunningServer("none", "http://127.0.0.1:9").pid is None


def test_a_cell_that_failed_to_start_fails_again_without_a_second_start():
    """The start's exception is remembered per cell and raised again at once; the pool reported one start."""
    variant = registry()["gunicorn-sync-w2"]
    cell, phases, starts = Cell(variant, variant.default_app), [], []

    def start(c):
        starts.append(c.name)
        raise RuntimeError(f"{c.name} would not start")

    pool = ServerPool(start, [ENDPOINTS["json"]], lambda phase, _round: phases.append(phase))
    for _ in range(2):
        with pytest.raises(RuntimeError, match="gunicorn-sync-w2/flask would not start"):
            pool.get(cell)
    assert starts == ["gunicorn-sync-w2/flask"] and phases == ["start"]


def test_a_server_that_fails_verification_is_stopped_and_its_cell_remembered():
    """Nothing answers on its port: the error names the cell, the pool stops it, and get() raises it again unstarted."""
    variant = registry()["gunicorn-sync-w2"]
    cell, phases, starts = Cell(variant, variant.default_app), [], []
    url = f"http://127.0.0.1:{free_port()}"

    def start(c):
        starts.append(c.name)
        return RunningServer(c.variant.name, url)

    pool = ServerPool(start, [ENDPOINTS["json"]], lambda phase, _round: phases.append(phase))
    with pytest.raises(VerificationError, match=f"gunicorn-sync-w2/flask \\({url}\\) does not honour") as first:
        pool.get(cell)
    with pytest.raises(VerificationError) as second:
        pool.get(cell)
    assert second.value is first.value
    assert starts == ["gunicorn-sync-w2/flask"] and phases == ["start", "verify", "stop"]


class _Printed:
    """A started server's process as the pool sees it: what it printed, and whether it was killed."""

    killed = False

    def log_tail(self) -> str:
        return "Traceback (most recent call last):\nRuntimeError: the app is broken"

    def alive(self) -> bool:
        return not self.killed

    def kill(self) -> None:
        self.killed = True


def test_a_server_that_answers_wrongly_fails_with_what_it_printed():
    """A started server that fails the contract: the error keeps its one line, then the server's log tail (read
    before the pool kills it); get() raises that same error again."""
    variant = registry()["gunicorn-sync-w2"]
    cell, process = Cell(variant, variant.default_app), _Printed()
    url = f"http://127.0.0.1:{free_port()}"
    pool = ServerPool(lambda c: RunningServer(c.variant.name, url, process), [ENDPOINTS["json"]])
    with pytest.raises(VerificationError) as first:
        pool.get(cell)
    said = str(first.value)
    assert said.splitlines()[0].startswith(
        f"gunicorn-sync-w2/flask ({url}) does not honour the endpoint contract: /json"
    )
    assert said.endswith(
        "  last lines of its output:\n    Traceback (most recent call last):\n    RuntimeError: the app is broken"
    )
    assert process.killed
    with pytest.raises(VerificationError) as second:
        pool.get(cell)
    assert second.value is first.value


def test_a_free_threaded_server_gets_the_gil_probe_and_a_gil_build_does_not(monkeypatch, tmp_path):
    """On a free-threaded interpreter (faked) the probe's folder goes first on PYTHONPATH with a folder to write to;
    on any other the environment has neither."""
    import os

    from serverbench.measure.host.gil import PROBE_DIR, VAR
    from serverbench.measure.serving import servers

    monkeypatch.setattr(servers, "free_threaded", lambda python: python == "/ft/bin/python3.13t")
    env, gil_dir = servers.server_env(variant(), "/usr/bin/python3", tmp_path, {"X": "1"})
    assert gil_dir is None and VAR not in env and env["PYTHONPATH"].split(os.pathsep)[0] == str(tmp_path)
    env, gil_dir = servers.server_env(variant(), "/ft/bin/python3.13t", tmp_path, {"X": "1"})
    assert env[VAR] == gil_dir and os.path.isdir(gil_dir) and env["X"] == "1"
    assert env["PYTHONPATH"].split(os.pathsep)[:2] == [str(PROBE_DIR), str(tmp_path)]
    os.rmdir(gil_dir)
