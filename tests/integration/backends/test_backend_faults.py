"""Backend faults in a real session: a killed Redis and a toxiproxy fault fail their trial, naming the backend
and the moment; the session goes on (Redis restarted) and leaves nothing running."""

import json

import pytest

from serverbench.errors import MissingBinaryError
from serverbench.measure.faults import TOXIPROXY_INSTALL, toxiproxy_binary

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

FAST = [
    "-m",
    "perf",
    "--perf-variants=gunicorn-sync-w2",
    "--perf-workloads=redis",
    "--perf-duration=3",
    "--perf-warmup=0",
    "--perf-connections=8",
    "--perf-threads=1",
    "--perf-json=out.json",
    "-p",
    "no:cacheprovider",
]


@pytest.fixture
def project(pytester, apps_dir):
    pytester.makeini(f"[pytest]\nperf_apps_dir = {apps_dir}\n")
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
