"""The project's files as a controller hands them to the server host (hosts.handover): the files git lists (tracked
ones, and untracked ones it does not ignore) and one digest of their contents, computed the same way on both sides:
``python -m serverbench.hosts.tree FOLDER`` reads the paths (NUL-separated) on its input and prints the digest of
those files in FOLDER.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import ConfigError


def listed(root: Path) -> list[str]:
    """The paths, relative to ``root``, of the project's files that exist: git's tracked and untracked-not-ignored
    files (what a clone plus the working tree's changes holds; ignored folders such as .venv are left out)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(f"cannot list the project's files with git ({exc}); install git") from None
    if done.returncode != 0:
        raise ConfigError(
            f"{root} is not a git checkout ({done.stderr.decode(errors='replace').strip()[-200:]}): a session handed "
            "to the server host takes the project's files git lists; run it in a git checkout, or run it on the "
            "server host itself"
        )
    paths = {p for p in done.stdout.decode(errors="surrogateescape").split("\0") if p}
    return sorted(p for p in paths if os.path.lexists(root / p) and not os.path.isdir(root / p))


def digest(root: Path, paths: Sequence[str]) -> str:
    """One digest of ``paths`` under ``root``: each path with its content (a link's target, not followed), or
    with ``missing`` when it is not there."""
    total = hashlib.sha256()
    for path in sorted(paths):
        total.update(path.encode(errors="surrogateescape") + b"\0")
        file = root / path
        try:
            if file.is_symlink():
                total.update(b"link:" + os.readlink(file).encode(errors="surrogateescape"))
            else:
                total.update(hashlib.sha256(file.read_bytes()).digest())
        except OSError:
            total.update(b"missing")
    return total.hexdigest()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m serverbench.hosts.tree FOLDER < NUL-separated paths", file=sys.stderr)
        return 2
    paths = [p for p in sys.stdin.buffer.read().decode(errors="surrogateescape").split("\0") if p]
    print(digest(Path(argv[0]), paths))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
