"""The documented upgrade gate's environments (docs/interpreters.md: `serverbench gate --base-python 3.11
--cand-python 3.13`), made for real from this repository's uv.lock with uv: no server starts, but the first run
installs the lock's packages for CPython 3.13 (minutes, the package index), so it is a `documented` test."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from serverbench.errors import ConfigError
from serverbench.measure.serving.interpreters import Maker, lock_of

ROOT = Path(__file__).resolve().parents[3]
COMMAND = "serverbench gate --base-python 3.11 --cand-python 3.13"


@pytest.mark.documented
def test_the_upgrade_gates_candidate_environment_is_made_from_the_lock_and_reused(tmp_path):
    """CPython 3.13's environment from uv.lock: it runs 3.13 with the servers and serverbench importable, and the
    next gate reuses it (found and checked, nothing installed) in seconds."""
    assert f"```sh\n{COMMAND}\n```" in (ROOT / "docs" / "interpreters.md").read_text()
    maker = Maker(ROOT, root=tmp_path / "envs")
    try:
        python = maker.environment("3.13", "--cand-python", lock_of(ROOT))
    except ConfigError as exc:
        if "no such interpreter is installed here" in str(exc):
            pytest.skip(str(exc))
        raise
    ran = subprocess.run(
        [
            python,
            "-c",
            "import sys, flask, gunicorn, waitress, serverbench.serverside.launch; print(sys.version_info[:2])",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.stdout.strip() == "(3, 13)", ran.stderr
    started = time.monotonic()
    assert maker.environment("3.13", "--cand-python", lock_of(ROOT)) == python
    assert time.monotonic() - started < 30
