"""The perf fixtures end to end through the plugin (pytester; no server is started): @pytest.mark.perf(min_rps=...,
max_p99_ms=...) with a canned measurement in place of the load, each limit just inside passing and just outside
failing; and a cell skipped for a workload its app does not serve, listed under the summary."""

# Each case: the marker's limit, the measurement the test gets instead of a load run (rps, p50 ms, p99 ms),
# and the outcome the limit must give.
CASES = {
    "test_just_above_min_rps": ("min_rps=1000", (1001.0, 1.0, 1.0), "PASSED"),
    "test_just_below_min_rps": ("min_rps=1000", (999.0, 1.0, 1.0), "FAILED"),
    "test_p99_at_max": ("max_p99_ms=5", (5000.0, 1.0, 5.0), "PASSED"),
    "test_p99_just_over_max": ("max_p99_ms=5", (5000.0, 1.0, 5.1), "FAILED"),
    "test_p50_over_max_p99_alone": ("max_p99_ms=5", (5000.0, 6.0, 4.0), "PASSED"),
}

CONFTEST = """
import pytest
from serverbench.catalog.shapes import LoadShape
from serverbench.pytest_plugin import fixtures
from serverbench.records.schema import Generator, LoadReport, Result

CANNED = %r


@pytest.fixture(autouse=True)
def canned(request, monkeypatch):
    rps, p50, p99 = CANNED[request.node.originalname]
    latency = {"p50": p50, "p75": p50, "p90": p50, "p99": p99, "p999": p99, "max": p99, "mean": p50, "stdev": 0.1}
    errors = {"connect": 0, "read": 0, "write": 0, "timeout": 0, "status": 0}

    def run_trial(plan, warmup, longer=None, policy=None):
        load = LoadReport("wrk", requests=int(rps * 5), duration_s=5.0, bytes=0, latency_ms=latency, errors=errors)
        return Result(nodeid=plan.nodeid, test=plan.test, variant="target", workload="json", shape=LoadShape(8),
                      warmup_s=0, url="http://127.0.0.1:9/json", load=load,
                      generator=Generator("wrk", "4.1.0", 2, cpu_s=1.0, wall_s=5.0, cores=2),
                      server_cpu_s=1.0, server_rss_mb=10.0, machine={"id": "m"},
                      python={"implementation": "cpython"}, timestamp="2026-01-01T00:00:00+00:00")

    monkeypatch.setattr(fixtures, "run_trial", run_trial)
""" % {name: measured for name, (_, measured, _) in CASES.items()}

# One perf test per case, named after it, with the case's marker.
TESTS = "import pytest\n" + "".join(
    f"\n@pytest.mark.perf({marker})\ndef {name}(perf_trial):\n    perf_trial()\n"
    for name, (marker, _, _) in CASES.items()
)


def test_marker_min_rps_and_max_p99_ms_are_applied_at_their_boundaries(pytester):
    """999 rps fails min_rps=1000 and 1001 passes; p99 5.0 ms passes max_p99_ms=5, 5.1 fails; p50 is not p99."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_limits=TESTS)
    result = pytester.runpytest(
        "-m",
        "perf",
        "--perf-target",
        "http://127.0.0.1:9",
        "--perf-workloads",
        "json",
        "--perf-connections",
        "8",
        "-p",
        "no:cacheprovider",
        "-rA",
    )
    outcomes = {
        name: outcome
        for outcome, name in (
            line.split()[:2] for line in result.stdout.lines if line.startswith(("PASSED ", "FAILED ", "ERROR "))
        )
    }
    outcomes = {name.split("::")[1].split("[")[0]: o for name, o in outcomes.items()}
    assert outcomes == {name: outcome for name, (_, _, outcome) in CASES.items()}, result.stdout.str()
    result.stdout.fnmatch_lines(["*999 rps < required 1,000*", "*p99 5.1 ms > allowed 5.0 ms*"])


INSTALLED = """
import pytest
from serverbench.pytest_plugin import fixtures


@pytest.fixture(autouse=True)
def installed(monkeypatch):
    monkeypatch.setattr(fixtures, "unavailable_reason", lambda *args: None)
"""


def test_a_cell_whose_app_lacks_the_workload_is_listed_under_the_summary_with_why(pytester):
    """play-pekko's app serves no /redis: its test is skipped before any server starts, and the summary (outside a
    terminal, as wide as it needs) lists the cell below its table with the reason."""
    pytester.makeconftest(INSTALLED)
    pytester.makepyfile(test_cells="import pytest\n\n@pytest.mark.perf\ndef test_it(perf_trial):\n    perf_trial()\n")
    result = pytester.runpytest(
        "-m", "perf", "--perf-variants", "play-pekko", "--perf-workloads", "redis", "-p", "no:cacheprovider"
    )
    assert result.ret == 0
    out = result.stdout.str()  # (not fnmatch: its "[1]" is a character class)
    assert any("play-pekko/play" in line and "skipped [1]" in line for line in result.stdout.lines)
    assert "skipped [1] play-pekko/play: play serves part of the contract, not redis" in out
    # pytester's output is no terminal: the table is as wide as it needs, not wrapped to pytester's 80 columns
    assert any("backend cpu, ops/req" in line for line in result.stdout.lines)
