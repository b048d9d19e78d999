"""docs/report.md's folder line, `serverbench report ../serverbench-results/benchmarks/results/ -o report.html`, run
exactly as written beside the `results` branch (marked documented: a depth-1 clone fetches the branch first)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SERVERBENCH = Path(sys.executable).parent / "serverbench"
LINE = re.search(r"^serverbench report \.\./serverbench-results/.*$", (ROOT / "docs" / "report.md").read_text(), re.M)


@pytest.mark.documented
def test_the_documented_folder_line_writes_the_report_of_the_results_branch(results_branch):
    """Exit 0; report.html written from the branch's results and decision files (some of each), the files that
    are neither named as skipped."""
    assert LINE is not None, "docs/report.md no longer shows the folder line"
    args = shlex.split(LINE.group(0).split("#")[0])
    done = subprocess.run([str(SERVERBENCH), *args[1:]], cwd=results_branch, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    counts = re.search(r"from (\d+) results file\(s\) and (\d+) decision file\(s\)", done.stdout + done.stderr)
    assert counts and int(counts[1]) > 0 and int(counts[2]) > 0, done.stdout + done.stderr
    assert (results_branch / "report.html").read_text().startswith("<!doctype html>")
