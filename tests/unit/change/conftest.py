"""A user's project in a git repository of its own, committed as a user would (no server starts)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SETTINGS = """
[tool.pytest.ini_options]
perf_app = "shop:app"
perf_app_interface = "wsgi"
perf_variants = "wsgiref,waitress-t4"
perf_endpoints = ["home GET / contains=Welcome", "create POST /items status=201"]
"""


def git(repo: Path, *argv: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=ci@example.org", "-c", "user.name=ci", *argv],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    """Write ``files`` (path: text) into ``repo``, commit them, and return the commit's sha."""
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path) -> Path:
    """An empty git repository (branch main)."""
    folder = tmp_path / "repo"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    return folder
