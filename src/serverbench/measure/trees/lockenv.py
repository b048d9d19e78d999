"""One environment per lock file: the interpreter each commit of a range is counted with.

A commit whose lock file (``uv.lock``, or the user's) is the working tree's runs in the environment the
command runs in (``--python``: it was made from that lock); so does every commit when the repository has
no lock file.  Each other lock gets one environment, built the first time a commit needs it, with
``uv sync --frozen --no-editable`` from that commit's checkout into a folder of its own (the project
installed as a wheel: the environment outlives the checkout), for the same Python version; every later
commit with the same lock uses it.  A lock that cannot be built is remembered: its commits are skipped
with the same reason.  The folders are removed with the :class:`Environments`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from ...errors import ConfigError, ServerbenchError
from .commits import Commit

SYNC_TIMEOUT_S = 1800.0


class EnvironmentBuildError(ServerbenchError):
    """A commit's lock file could not be installed: its commits cannot be counted (skipped)."""


def uv_binary(repo: Path) -> str | None:
    """uv on PATH, beside the interpreter, or the one ./run keeps in the checkout (.tools/bin/uv)."""
    for candidate in (shutil.which("uv"), Path(sys.executable).parent / "uv", Path(repo) / ".tools" / "bin" / "uv"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    return None


class Environments:
    """The interpreter of each lock file met in a range; built environments live in one temporary folder."""

    def __init__(self, repo: Path, lock_path: str, python: str, current: str | None, sync_args: Sequence[str]):
        self.repo = Path(repo)
        self.lock_path = lock_path
        self.python = python
        self.current = current  # the working tree's lock id: --python was made from it
        self.sync_args = tuple(sync_args)
        self.folder: Path | None = None
        self.built: dict[str, str | EnvironmentBuildError] = {}
        self._building = threading.Lock()  # the two ends are counted at once: one build per lock

    def needs_build(self, commits: Sequence[Commit]) -> list[Commit]:
        """The commits whose lock is neither the working tree's nor absent: each needs an environment of its own."""
        return [c for c in commits if c.lock is not None and c.lock != self.current]

    def check(self, commits: Sequence[Commit]) -> None:
        """Before anything starts: uv must be at hand when a commit's lock differs from the working tree's."""
        other = self.needs_build(commits)
        if other and uv_binary(self.repo) is None:
            raise ConfigError(
                f"{len(other)} commit(s) of the range (first {other[0].name}) have another {self.lock_path} than "
                f"the working tree, and uv, which builds an environment from a lock, is not installed: "
                "`pip install uv` (or run ./run once), or pick a range whose lock file does not change"
            )

    def python_for(self, commit: Commit, checkout: Path) -> str:
        """The interpreter to count ``commit`` with; ``checkout`` is the commit's worktree (built from there)."""
        if commit.lock is None or commit.lock == self.current:
            return self.python
        with self._building:
            known = self.built.get(commit.lock)
            if known is None:
                known = self._build(commit, checkout)
                self.built[commit.lock] = known
        if isinstance(known, EnvironmentBuildError):
            raise known
        return known

    def _build(self, commit: Commit, checkout: Path) -> str | EnvironmentBuildError:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="serverbench-bisect-envs-"))
        target = self.folder / (commit.lock or "none")[:12]
        project = (Path(checkout) / self.lock_path).parent
        argv = [
            uv_binary(self.repo) or "uv",
            "sync",
            "--frozen",
            "--no-editable",
            "--quiet",
            "--python",
            self.python,  # the same interpreter: a count depends on its version
            *self.sync_args,
        ]
        print(f"building the environment of {self.lock_path} at {commit.name}: {' '.join(argv)}", file=sys.stderr)
        try:
            done = subprocess.run(
                argv,
                cwd=project,
                env={**_environ(), "UV_PROJECT_ENVIRONMENT": str(target)},
                capture_output=True,
                text=True,
                timeout=SYNC_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return EnvironmentBuildError(f"uv sync of {self.lock_path} did not finish in {SYNC_TIMEOUT_S:g} s")
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
            return EnvironmentBuildError(f"uv sync of its {self.lock_path} failed: {tail[0]}")
        return str(target / "bin" / "python")

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> Environments:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _environ() -> dict[str, str]:
    """The caller's environment without what points uv at the caller's own environment."""
    return {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")}
