"""The tree is ruff-clean: lint and format, under the configuration in pyproject.toml ([tool.ruff])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RUFF = Path(sys.executable).with_name("ruff")


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(RUFF), *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_check_passes():
    """`ruff check .` finds nothing (lint rules: pyproject.toml; the lowest Python: target-version)."""
    run = _ruff("check", "--output-format", "concise", ".")
    assert run.returncode == 0, (
        f"ruff check found problems; fix them or run `ruff check --fix .`:\n{run.stdout[-3000:]}"
    )


def test_ruff_format_is_applied():
    """`ruff format --check .` has nothing to reformat."""
    run = _ruff("format", "--check", ".")
    assert run.returncode == 0, f"files ruff would reformat; run `ruff format .`:\n{run.stdout[-3000:]}"
