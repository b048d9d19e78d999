"""The package's floors hold: import-linter's layers contract ([tool.importlinter] in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def test_no_import_climbs_a_floor():
    """`lint-imports` keeps every contract: no package imports one on a floor above it (docs/architecture.md)."""
    run = subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (
        f"an import climbs a floor:\n{run.stdout}{run.stderr}\n"
        "Move the shared piece down to the floor both sides may import, or name what the lower floor reads as a "
        "Protocol of its own there (docs/architecture.md#floors)."
    )
