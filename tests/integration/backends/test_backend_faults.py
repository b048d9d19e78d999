"""Backend faults in a real session: a killed Redis and a toxiproxy fault fail their trial, naming the backend
and the moment; the session goes on (Redis restarted) and leaves nothing running."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from serverbench.errors import MissingBinaryError
from serverbench.measure.trials.faults import TOXIPROXY_INSTALL, toxiproxy_binary

pytestmark = [
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.alone(reason="the fault's moment and the time to fail are judged in seconds"),
]

KILL_THEN_RUN = '''
import pytest
from serverbench.catalog.faults import Fault

@pytest.fixture
def perf_fault(request):
    """Only the first test's window loses Redis."""
    return Fault.parse("kill-redis@1s") if request.node.originalname == "test_redis_killed" else None

@pytest.mark.perf
def test_redis_killed(perf_trial):
    """Redis is killed 1 s into the window."""
    perf_trial()

@pytest.mark.perf
def test_redis_back(perf_trial):
    """The next test runs on a restarted Redis."""
    perf_trial()
'''

ONE_TEST = '''
import pytest

@pytest.mark.perf
def test_redis(perf_trial):
    """The session's --perf-fault strikes this trial."""
    perf_trial()
'''

ROOT = Path(__file__).resolve().parents[3]
# The examples of docs/backend-faults.md, one per line of its first code block.
DOCUMENTED = re.findall(r"^pytest -m perf .*--perf-fault=.*$", (ROOT / "docs" / "backend-faults.md").read_text(), re.M)
NARROW = [  # one server, a short window; the documented lines name the workload and the fault
    "--perf-variants=gunicorn-sync-w2",
    "--perf-duration=3",
    "--perf-warmup=0",
    "--perf-connections=8",
    "--perf-threads=1",
    "--perf-json=out.json",
    "-p",
    "no:cacheprovider",
]
FAST = ["-m", "perf", *NARROW, "--perf-workloads=redis"]


def _toxiproxy() -> str | None:
    try:
        return toxiproxy_binary()
    except MissingBinaryError:
        return None


# Found before pytester points HOME at its folder: ./run builds it into the real ~/go/bin, which need not be on PATH.
TOXIPROXY = _toxiproxy()


@pytest.fixture
def project(pytester, apps_dir, monkeypatch):
    pytester.makeini(f"[pytest]\nperf_apps_dir = {apps_dir}\n")
    if TOXIPROXY is not None:  # the session's serverbench and the tests below find it on PATH
        monkeypatch.setenv("PATH", f"{Path(TOXIPROXY).parent}{os.pathsep}{os.environ['PATH']}")
    return pytester


def test_killed_redis_fails_its_trial_and_the_next_test_passes(project):
    """kill-redis@1s: that trial fails naming redis and the moment; the next test passes on a restarted Redis."""
    project.makepyfile(test_perf=KILL_THEN_RUN)
    result = project.runpytest_subprocess(*FAST, timeout=60)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_redis_killed*",
            "backend fault: redis was killed (SIGKILL) 1.* s into the "
            "3.* window (kill-redis@1s)*request errors*first failed request*after the fault*",
        ]
    )
    assert "test_redis_back" not in "".join(line for line in result.stdout.lines if "FAILED" in line)
    records = json.loads((project.path / "out.json").read_text())
    assert [r["test"] for r in records["results"]] == ["test_redis_back"]  # the faulted trial is no result
    assert sum(records["results"][0]["errors"].values()) == 0
    assert [f["nodeid"].split("::")[1].split("[")[0] for f in records["failures"]] == ["test_redis_killed"]


def test_toxiproxy_reset_fails_the_trial_with_classified_errors(project):
    """reset-redis@1s through a real toxiproxy: the trial fails naming redis, the moment and the error classes."""
    try:
        toxiproxy_binary()
    except MissingBinaryError:
        pytest.skip(f"toxiproxy-server is not installed: {TOXIPROXY_INSTALL}")
    project.makepyfile(test_perf=ONE_TEST)
    result = project.runpytest_subprocess(*FAST, "--perf-fault=reset-redis@1s", timeout=60)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "backend fault: redis reset every connection 1.* s into the 3.* window "
            "(reset-redis@1s)*request errors*status*"
        ]
    )


@pytest.mark.documented
@pytest.mark.parametrize("line", DOCUMENTED, ids=lambda line: line.rsplit("=", 1)[1])
def test_each_documented_fault_fails_its_trial_naming_the_backend(project, line):
    """Each example of docs/backend-faults.md as written (on one server, a 3 s window): the trial fails naming the
    backend, the moment and the fault, and nothing is recorded as a result (a drop stretches the window: its
    requests wait out their timeouts)."""
    args = shlex.split(line)
    assert args[:3] == ["pytest", "-m", "perf"], line
    spec = args[-1].split("=", 1)[1]
    backend = spec.split("-", 1)[1].split(":")[0].split("@")[0]
    if not spec.startswith("kill-"):
        try:
            toxiproxy_binary()
        except MissingBinaryError:
            pytest.skip(f"toxiproxy-server is not installed: {TOXIPROXY_INSTALL}")
    project.makepyfile(test_perf=ONE_TEST)
    result = project.runpytest_subprocess(*args[1:], *NARROW, timeout=120)
    result.assert_outcomes(failed=1)
    at = spec.split("@")[1].rstrip("s") if "@" in spec else "1"
    result.stdout.fnmatch_lines([f"backend fault: {backend} * {at}.* s into the * s window ({spec}*)*"])
    assert json.loads((project.path / "out.json").read_text())["results"] == []
