"""`./run tests --collect-only` (pytest under xdist) must end cleanly: pytest-benchmark's xdist notice is not an error."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_collect_only_under_xdist_exits_cleanly():
    """Collecting the handler benchmarks under `-n 2`, as `./run tests --collect-only` does, exits 0 with no traceback."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/handlers"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "Traceback" not in out.stdout + out.stderr
