"""benchmarks/timeline.py and the suite's SERVERBENCH_TIMELINE lines: where a parallel run's wall time went."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _timeline():
    spec = importlib.util.spec_from_file_location("timeline", ROOT / "benchmarks" / "timeline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(test, when, worker, start, stop, alone=False):
    return {
        "test": test,
        "when": when,
        "worker": worker,
        "start": start,
        "stop": stop,
        "outcome": "passed",
        "alone": alone,
    }


def test_busy_idle_and_alone_seconds_per_worker(tmp_path):
    """Two workers over 10 s: gw1 waits 6 s for gw0's alone test; a test spans its setup to its teardown."""
    rows = [
        _row("tests/integration/gate/test_a.py::t", "setup", "gw0", 0.0, 1.0, alone=True),
        _row("tests/integration/gate/test_a.py::t", "call", "gw0", 1.0, 6.0, alone=True),
        _row("tests/integration/gate/test_a.py::t", "teardown", "gw0", 6.0, 6.0, alone=True),
        _row("tests/unit/x/test_b.py::u", "call", "gw1", 0.0, 0.0),
        _row("tests/unit/x/test_b.py::v", "call", "gw1", 6.0, 10.0),
        _row("tests/integration/gate/test_a.py::w", "call", "gw0", 6.0, 10.0),
    ]
    path = tmp_path / "tl.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    timeline = _timeline()
    result = timeline.summary(timeline.tests_of(path))
    assert result["wall_s"] == 10 and result["alone_s"] == 6
    assert result["workers"]["gw0"] == {"busy_s": 10, "idle_s": 0, "tests": 2}
    assert result["workers"]["gw1"] == {"busy_s": 4, "idle_s": 6, "tests": 2}
    assert result["busy_by_folder_s"] == {"tests/integration/gate": 10, "tests/unit": 4}
    assert result["longest_waits"][0] == {
        "s": 6.0,
        "worker": "gw1",
        "then": "tests/unit/x/test_b.py::v",
        "alone": False,
    }


def test_the_suite_writes_the_timeline_the_script_reads(tmp_path):
    """SERVERBENCH_TIMELINE=FILE on a run of one test file gives a line per test phase, and the script sums them."""
    path = tmp_path / "tl.jsonl"
    env = {**os.environ, "SERVERBENCH_TIMELINE": str(path)}
    env.pop("PYTEST_XDIST_WORKER", None)
    test = "tests/unit/measure/serving/test_bytecode.py"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", test],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert {r["when"] for r in rows} == {"setup", "call", "teardown"} and {r["worker"] for r in rows} == {"main"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "timeline.py"), str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["workers"]["main"]["tests"] == len({r["test"] for r in rows}) > 1
    missing = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "timeline.py"), str(tmp_path / "none")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "SERVERBENCH_TIMELINE=" in missing.stderr
