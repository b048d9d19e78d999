"""The commits a change is measured against, in the user's git checkout: the project's folder in it, a commit a
shallow clone lacks (fetched alone), the pushed commit's parent, and whether a commit has serverbench's settings.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

CONFIG_FILES = ("pyproject.toml", "pytest.ini", "tox.ini", "setup.cfg")  # where pytest finds perf_app
NAMES_APP = re.compile(r"^\s*perf_app\s*=", re.MULTILINE)


@dataclass(frozen=True)
class Checkout:
    """The git checkout holding the project: its top, and the project's folder inside it (``""``: the top)."""

    top: Path
    prefix: str

    @property
    def project(self) -> str:
        """The project's folder relative to the repository, ``.`` at its top (the comment's marker names it)."""
        return self.prefix.rstrip("/") or "."

    def git(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "-C", str(self.top), *argv], capture_output=True, text=True)

    def has(self, sha: str) -> bool:
        return self.git("rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}").returncode == 0

    def fetched(self, sha: str) -> None:
        """``sha`` in this clone, fetched alone from origin when a shallow clone lacks it."""
        if self.has(sha):
            return
        print(f"serverbench: fetching {sha} (not in this shallow clone)", file=sys.stderr)
        fetch = self.git("fetch", "--quiet", "--no-tags", "--depth=1", "origin", sha)
        if fetch.returncode != 0 or not self.has(sha):
            said = (fetch.stderr.strip().splitlines() or ["not found"])[0]  # one line: the error goes into the comment
            raise ConfigError(
                f"commit {sha} is not in this clone and origin would not send it ({said}); "
                "check the repository out with fetch-depth: 0 (actions/checkout) or fetch it before this step"
            )

    def parent(self, sha: str = "HEAD") -> str | None:
        """The first parent of ``sha`` (known even in a shallow clone); None: the repository's first commit."""
        shown = self.git("cat-file", "-p", sha)
        return next((line.split()[1] for line in shown.stdout.splitlines() if line.startswith("parent ")), None)

    def configured(self, sha: str) -> bool:
        """Whether ``sha``'s tree names perf_app in one of the project folder's pytest configuration files."""
        for name in CONFIG_FILES:
            shown = self.git("show", f"{sha}:{self.prefix}{name}")
            if shown.returncode == 0 and NAMES_APP.search(shown.stdout):
                return True
        return False


def checkout(project: Path) -> Checkout:
    """The checkout around ``project``; a folder outside git is bad input."""
    done = subprocess.run(
        ["git", "-C", str(project), "rev-parse", "--show-toplevel", "--show-prefix"], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise ConfigError(
            f"--project {project} is not in a git checkout ({done.stderr.strip()}): check the repository out first "
            "(actions/checkout)"
        )
    top, prefix = (done.stdout.splitlines() + ["", ""])[:2]
    return Checkout(Path(top).resolve(), prefix)
