"""serverside/gilprobe/sitecustomize.py: the GIL probe a free-threaded server's processes load at start-up writes
the GIL's state and the module CPython names when it turns the GIL back on; here run in a child (a GIL build: the
warning is the one a free-threaded build gives, raised by hand)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from serverbench.measure.host.gil import PROBE_DIR, VAR, read

WARNING = (
    "The global interpreter lock (GIL) has been enabled to load module 'httptools.parser.parser', which has not "
    "declared that it can run safely without the GIL. To override this behavior and keep the GIL disabled (at your "
    "own risk), run with PYTHON_GIL=0 or -Xgil=0."
)


def _child(tmp_path, code: str, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, VAR: str(tmp_path), "PYTHONPATH": str(PROBE_DIR), **env}
    return subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=60)


def test_the_probe_names_the_module_that_turned_the_gil_on(tmp_path):
    """CPython's warning on importing a module without Py_mod_gil: the process's file names the module."""
    done = _child(tmp_path, f"import warnings; warnings.warn({WARNING!r}, RuntimeWarning)")
    assert done.returncode == 0, done.stderr
    state = json.loads((tmp_path / str(_pid(tmp_path))).read_text())
    assert state["enabled_by"] == ["httptools.parser.parser"] and state["enabled"] is True
    assert "has been enabled to load module" in done.stderr  # the warning is still shown in the server's log
    assert read(tmp_path) == {"enabled": True, "enabled_by": ["httptools.parser.parser"], "processes": 1}


def test_without_the_variable_the_probe_writes_nothing_and_the_shadowed_sitecustomize_still_runs(tmp_path):
    """No SERVERBENCH_GIL_DIR: nothing written; a sitecustomize later on the path is imported as Python would."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['SHADOWED'] = 'ran'\n")
    environ = {k: v for k, v in os.environ.items() if k != VAR}
    environ["PYTHONPATH"] = os.pathsep.join([str(PROBE_DIR), str(other)])
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ.get('SHADOWED'))"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "ran" and not list(tmp_path.glob("[0-9]*"))


def test_a_forked_worker_writes_a_file_of_its_own(tmp_path):
    """A pre-fork server's worker: its own <pid> file, beside its parent's."""
    code = "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(0.2); os._exit(0)\nos.waitpid(pid, 0)\n"
    assert _child(tmp_path, code).returncode == 0
    assert len(list(tmp_path.glob("[0-9]*"))) == 2 and read(tmp_path)["processes"] == 2


def _pid(folder) -> int:
    (name,) = [p.name for p in folder.glob("[0-9]*")]
    return int(name)
