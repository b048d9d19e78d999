"""docs/bisect.md's four `serverbench bisect` lines run exactly as written, from the folder they are typed in: the
first three in a user's project of six commits (the gate inline with its shipped settings; the counts alone; the
gate later on the stored file), the last in a checkout of the reference apps.  tests/integration/gate/test_bisect.py
checks what the search finds with quicker gate settings; these check that the lines, as a user types them, give
the documented exits and files.  Timed (the gate) and minutes long: marked documented (tests.yml's `documented`
job)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from serverbench.records import bisects
from tests.integration.gate.test_bisect import (
    APPS,
    DEBUG_LOG,
    JSON_LINE,
    _commit,
    _new_repo,
    project,  # noqa: F401  (the fixture: the user's six commits)
)

ROOT = Path(__file__).resolve().parents[3]
SERVERBENCH = Path(sys.executable).parent / "serverbench"
LINES = re.findall(r"^serverbench bisect .*$", (ROOT / "docs" / "bisect.md").read_text().split("```sh", 1)[1], re.M)

pytestmark = [
    pytest.mark.documented,
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed"),
]


def run_line(line: str, cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """The doc's line in bash, in ``cwd``, with serverbench's command first on PATH and a step summary file."""
    env = {**os.environ, "PATH": f"{SERVERBENCH.parent}:{os.environ['PATH']}"}
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
    command = line.split("  #")[0]
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=540)


def test_the_documented_lines_are_four():
    """The block holds the four lines these tests run (inline gate, counts alone, --confirm, reference apps)."""
    assert len(LINES) == 4, LINES
    assert "--markdown" in LINES[0] and "--no-confirm" in LINES[1] and LINES[2].split()[2] == "--confirm"
    assert "--variant waitress-t4" in LINES[3]


def test_the_inline_gate_line_confirms_the_regression(request, tmp_path):
    """Line 1 (--good HEAD~2 --bad HEAD~1, the gate inline): exit 1, the step c3 -> c4 confirmed by the gate in
    bisect.json, and the step summary written."""
    repo = request.getfixturevalue("project")
    done = run_line(LINES[0], repo, tmp_path)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    step = bisects.read(repo / "bisect.json")["steps"][0]
    assert step["gate"]["verdict"] == "regression", step["gate"]
    assert "serverbench bisect" in (tmp_path / "summary.md").read_text()


def test_the_counts_alone_then_confirm_lines_find_and_confirm_it(request, tmp_path):
    """Lines 2 and 3: the counts over HEAD~5.. skip the broken commit and find c3 -> c4 (exit 1, no gate); --confirm
    on that file runs the gate on it (exit 1, confirmed.json with the gate's regression)."""
    repo = request.getfixturevalue("project")
    done = run_line(LINES[1], repo, tmp_path)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    record = bisects.read(repo / "bisect.json")
    assert [(s["before"], s["after"]) for s in record["steps"]] == [(3, 4)] and record["skipped"] == 1
    done = run_line(LINES[2], repo, tmp_path)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert bisects.read(repo / "confirmed.json")["steps"][0]["gate"]["verdict"] == "regression"


def test_the_reference_apps_line_finds_the_commit(tmp_path):
    """Line 4 in a checkout of the reference apps: c1 -> c2 (/json logs pretty-printed answers), exit 1."""
    repo = _new_repo(tmp_path / "serverbench")
    shutil.copytree(APPS, repo / "apps", ignore=lambda folder, names: [n for n in names if not n.endswith(".py")])
    flask_app = (repo / "apps" / "flask_app.py").read_text()
    _commit(
        repo,
        [
            ("apps/flask_app.py", flask_app, "c0 the reference apps"),
            ("NOTES.md", "one\n", "c1 note"),
            ("apps/flask_app.py", flask_app.replace(JSON_LINE, DEBUG_LOG + JSON_LINE), "c2 log the answer"),
        ],
    )
    done = run_line(LINES[3], repo, tmp_path)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "c2 log the answer" in done.stdout, done.stdout[-2000:]
