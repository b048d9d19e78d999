"""Project-wide test fixtures: where the reference apps are, and a guard against leaked processes."""
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
