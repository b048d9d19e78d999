"""A real perf session's end products: the HTML report (--perf-html), the pytest-benchmark file
(--perf-benchmark-json, read back by `pytest-benchmark compare`), and the live progress line, which is
shown only on a terminal."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("no_leaks")

PERF_TEST = '''
import pytest

@pytest.mark.perf
def test_throughput(perf_trial):
    """The variant holds its baseline."""
    perf_trial()
'''
FAST = [
    "-m",
    "perf",
    "--perf-variants=gunicorn-sync-w2",
    "--perf-workloads=json",
    "--perf-duration=1",
    "--perf-connections=2,8",
    "--perf-threads=1",
    "-p",
    "no:cacheprovider",
]
COMPARE = Path(sys.executable).with_name("pytest-benchmark")


@pytest.fixture
def suite(pytester, apps_dir):
    """A pytester project with one perf test and the repository's apps."""
    pytester.makeini(f"[pytest]\nperf_apps_dir = {apps_dir}\n")
    pytester.makepyfile(test_perf=PERF_TEST)
    return pytester


def test_session_writes_the_report_and_pytest_benchmark_json(suite):
    """--perf-html writes a self-contained report with the sweep's charts; --perf-benchmark-json is read by
    `pytest-benchmark compare`; piped output carries no progress line and no terminal codes."""
    pytest.importorskip("pytest_benchmark", reason="pip install pytest-benchmark")
    report, bench = suite.path / "report.html", suite.path / "bench.json"
    result = suite.runpytest_subprocess(
        *FAST, "--perf-warmup=0", f"--perf-html={report}", f"--perf-benchmark-json={bench}"
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*HTML report written to*report.html*", "*pytest-benchmark JSON (2 benchmarks)*"])
    page = report.read_text()
    assert 'id="summary"' in page and 'id="connections"' in page and "<script src" not in page
    assert "serverbench  cell" not in result.stdout.str() and "\x1b[" not in result.stdout.str()
    compare = subprocess.run(
        [str(COMPARE), "compare", str(bench), "--columns=min,mean,ops,rounds"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert compare.returncode == 0, compare.stderr
    assert "test_throughput[gunicorn-sync-w2-flask-json-c2]" in compare.stdout and "json c8" in compare.stdout


def test_benchmark_json_without_pytest_benchmark_is_refused_before_any_server_starts(suite):
    """Without pytest-benchmark importable, --perf-benchmark-json is a usage error naming the install."""
    suite.makeconftest("import sys\nsys.modules['pytest_benchmark.stats'] = None\n")
    result = suite.runpytest_subprocess(*FAST, "-p", "no:benchmark", f"--perf-benchmark-json={suite.path / 'b.json'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--perf-benchmark-json*install it (`pip install pytest-benchmark`*"])


@pytest.mark.oha
@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux `script` for a pseudo-terminal")
def test_progress_line_on_a_terminal(suite):
    """On a terminal, one line shows the cell (i of N), its phase and the time left; pytest's output stays."""
    command = [sys.executable, "-m", "pytest", *FAST, "--perf-warmup=1", "--color=no"]
    typescript = subprocess.run(
        ["script", "-qfec", " ".join(command), "/dev/null"],
        cwd=suite.path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "160", "LINES": "40"},
    ).stdout
    for text in (
        "cell 1/2",
        "cell 2/2",
        "gunicorn-sync-w2/flask json c8",
        "start",
        "verify",
        "lead-in",  # oha's closed model warms up in the lead-in of its measured run
        "measure",
        "left",
        "2 passed",
    ):
        assert text in typescript, text
