"""Project-wide test fixtures: where the reference apps are, a guard against leaked processes, and (with
CI=true) no silent skip for want of a tool ./run installs."""

from __future__ import annotations

import os
import re
from pathlib import Path

import psutil
import pytest

APPS_DIR = Path(__file__).parent / "apps"


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
    "chromium": "./run tests installs it (apt-get install chromium)",
    "redis-server": "./run installs it (apt-get install redis-server)",
    "nginx": "./run installs it (apt-get install nginx-light libnginx-mod-http-echo)",
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
