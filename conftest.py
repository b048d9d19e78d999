"""Project-wide test fixtures: where the reference apps are, a guard against leaked processes, and (with
CI=true) no silent skip for want of a tool ./run installs."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import psutil
import pytest

APPS_DIR = Path(__file__).parent / "apps"

# With PYTHONDONTWRITEBYTECODE set (some shells and containers set it), every process this suite starts (each xdist
# worker, each pytester session, each server, each counted run under valgrind) compiles its imports from source again
# (collecting tests/unit took 13 s instead of 3 on the project's 2-core machine).  So the bytecode is written, out of
# the tree as that setting wants: in .tools/pycache (where ./run keeps its tools), by this process and all it starts.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(Path(__file__).parent / ".tools" / "pycache"))
    sys.dont_write_bytecode = False
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]


@pytest.fixture
def apps_dir() -> Path:
    """The repository's reference apps folder."""
    return APPS_DIR


@pytest.fixture
def no_leaks():
    """Fail the test if it leaves any child process of this pytest running."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    yield
    leaked = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.pid not in before and proc.status() != psutil.STATUS_ZOMBIE:
                leaked.append(f"{proc.pid} {' '.join(proc.cmdline())[:120]}")
        except psutil.NoSuchProcess:
            continue
    assert not leaked, f"processes left running: {leaked}"


# The tools ./run installs, and how.  With CI=true (set by GitHub Actions and most CI services), a test that
# skips for want of one fails instead: a green CI that never counted an instruction (no valgrind) or never
# linted a workflow (no actionlint) proves nothing.  A skip is "for want of" a tool when its reason names it.
RUN_INSTALLS = {
    "valgrind": "./run installs it (apt-get install valgrind)",
    "oha": "./run builds it when cargo is on PATH (cargo install oha --locked)",
    "toxiproxy-server": "./run tests builds it when go is on PATH "
    "(go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0, renamed toxiproxy-server)",
    "actionlint": "./run tests builds it when go is on PATH (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)",
    "act": "./run tests -m example_ci builds it when go is on PATH (go install github.com/nektos/act@v0.2.89)",
    "chromium": "./run tests installs it (apt-get install chromium)",
    "shellcheck": "./run tests installs it (apt-get install shellcheck)",
    "redis-server": "./run installs it (apt-get install redis-server)",
    "nginx": "./run installs it (apt-get install nginx-light libnginx-mod-http-echo)",
    "sshd": "./run tests installs it (apt-get install openssh-server)",
    "uv": "./run installs it (pip install uv==0.13.9, into .tools/bin/uv; tox-uv puts one in .venv/bin too)",
}
_TOOL = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, RUN_INSTALLS)) + r")(?![\w-])")


def missing_tool(reason: str) -> str | None:
    """The ./run-installed tool a skip reason names, if any."""
    found = _TOOL.search(reason)
    return found.group(1) if found else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail") or os.environ.get("CI", "").lower() not in ("true", "1"):
        return
    reason = (report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)).removeprefix(
        "Skipped: "
    )
    tool = missing_tool(reason)
    if tool is not None:
        report.outcome = "failed"
        report.longrepr = (
            f"CI=true: this test would skip for want of {tool} ({reason}); in CI that is a failure. "
            f"{RUN_INSTALLS[tool]}; run the tests through ./run (./run tests)."
        )


# ./run tests builds oha (minutes of Rust on a fresh machine) beside the tests, at idle priority, and runs the tests in
# two sessions: --oha-phase without (during the build) deselects the tests marked `oha` (they need oha itself: its open
# model, its lead-in, its split across load hosts), --oha-phase with (after it) keeps only those.  The others drive with
# wrk: the closed model falls back to it.  An option, not an environment variable: the pytest sessions the tests start
# themselves must not inherit it.
OHA_PHASES = ("without", "with")


def pytest_addoption(parser):
    parser.addoption(
        "--oha-phase",
        choices=OHA_PHASES,
        help="./run tests while oha builds: only the tests not marked oha (without), or only those (with)",
    )


def _needs_oha(item: pytest.Item) -> bool:
    return item.get_closest_marker("oha") is not None


def _slow(item: pytest.Item) -> bool:
    """Integration tests and counts under valgrind (tests/cost) take seconds to minutes each; the rest milliseconds."""
    parts = Path(str(item.fspath)).parts
    return "integration" in parts or "cost" in parts


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which makes -n's default --dist load
def pytest_cmdline_main(config):
    """Under -n with no --dist, a worker that runs out of tests takes the other's pending ones (xdist's worksteal).
    With --dist load a worker keeps the block of tests it was dealt first: in a run of the whole suite one worker held
    minutes of integration tests while the other, done with its share, had nothing to do."""
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", "no") == "no":
        config.option.dist = "worksteal"


def pytest_collection_modifyitems(config, items):
    """Under --oha-phase (./run tests while oha builds) only the phase's tests: those not marked `oha`, or only
    those.  Then the tests marked ``alone`` first, then the other slow ones, so that the tests the xdist workers share
    out last are short; stable otherwise.  An alone test waits for the test on the other worker to end: first, it
    waits for milliseconds (the other worker's first tests are unit tests), later it could wait a minute of a bisect
    beside it."""
    phase = config.getoption("oha_phase")
    if phase:
        keep, drop = [], []
        for item in items:
            (keep if _needs_oha(item) == (phase == "with") else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    items.sort(key=lambda i: 0 if i.get_closest_marker("alone") else 1 if _slow(i) else 2)  # stable


def pytest_runtest_logreport(report):
    """With SERVERBENCH_TIMELINE=FILE, one JSON line per test phase (worker, start, stop): where a run's wall time went,
    read by benchmarks/timeline.py (idle workers, tests that waited for an alone test's turn)."""
    path = os.environ.get("SERVERBENCH_TIMELINE")
    if not path or os.environ.get("PYTEST_XDIST_WORKER"):  # written once, by the process that gathers the reports
        return
    row = {
        "test": report.nodeid,
        "when": report.when,
        "worker": report.node.gateway.id if hasattr(report, "node") else "main",
        "start": report.start,
        "stop": report.stop,
        "outcome": report.outcome,
        "alone": "alone" in report.keywords,
    }
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")
