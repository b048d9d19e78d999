"""The `results` branch's raw run files where docs/report.md puts them: ../serverbench-results beside the folder the
documented commands are typed in."""

from __future__ import annotations

import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from tests.results_branch import FETCH, ROOT, results_ref


@pytest.fixture(scope="session")
def results_branch(tmp_path_factory) -> Path:
    """A work folder with the `results` branch beside it as ../serverbench-results (fetched first with the docs'
    line where this clone lacks it, as CI's depth-1 checkout does)."""
    if results_ref() is None:
        fetched = subprocess.run(FETCH, cwd=ROOT, capture_output=True, text=True)
        if fetched.returncode != 0:
            pytest.skip(f"no `results` branch here and `{' '.join(FETCH)}` failed: {fetched.stderr.strip()}")
    base = tmp_path_factory.mktemp("results-branch")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", results_ref(), "benchmarks/results"], capture_output=True
    )
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(base / "serverbench-results", filter="data")
    (base / "work").mkdir()
    return base / "work"
