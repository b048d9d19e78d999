"""The gate's base worktree: a git ref checked out beside the working tree, locked with its gate's pid and
removed on every exit path; one left by a gate that was killed outright is removed by the next gate.

This module runs git (a process), so it lives with the executors; the gate's workflow
(:mod:`serverbench.gate.workflow`) and bisect only ask it for a folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from ...errors import ConfigError

LOCK_REASON = "serverbench gate pid"  # the base worktree is locked with the owner's pid and start time


@contextmanager
def worktree(ref: str, repo: Path) -> Iterator[Path]:
    """Check ``ref`` out into a temporary git worktree, removed on every exit path (an exception, Ctrl-C,
    SIGTERM); one left by a gate that was killed outright is removed by the next run, which names it.
    A ref that does not exist is a ConfigError."""
    check = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if check.returncode != 0:
        raise ConfigError(
            f"base ref {ref!r} does not exist in {repo}; name a branch, tag or commit "
            "(`git fetch` it first if it lives on a remote)"
        )
    for line in prune_stale_worktrees(repo):
        print(f"note: {line}", file=sys.stderr)
    me = psutil.Process()
    path = Path(tempfile.mkdtemp(prefix="serverbench-base-", dir=beside(repo)))
    try:
        subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "worktree",
                "add",
                "--detach",
                "--force",
                "--lock",
                "--reason",
                f"{LOCK_REASON} {me.pid} started {me.create_time():.2f}",
                str(path),
                ref,
            ],
            check=True,
            capture_output=True,
        )
        yield path
    finally:
        _remove_worktree(repo, path)


def beside(repo: Path) -> Path | None:
    """Where the base worktree goes: beside the checkout (in the folder holding its top), so that both arms' paths
    are equally deep; None (the temporary folder) where that folder cannot be written.  An app that stats every
    folder of a relative path (SQLite does, on each connect) makes one system call per folder: a base at another
    depth was counted as a change in system calls per request on a change that touched nothing."""
    top = subprocess.run(["git", "-C", str(repo), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    folder = Path(top.stdout.strip() or repo).resolve().parent
    return folder if os.access(folder, os.W_OK) else None


def prune_stale_worktrees(repo: Path) -> list[str]:
    """Remove the base worktrees of gates that are no longer running (killed before they could clean up);
    one line per worktree removed, naming it and its gate."""
    listing = subprocess.run(
        ["git", "-C", str(repo), "worktree", "list", "--porcelain"], capture_output=True, text=True
    )
    said = []
    for block in listing.stdout.split("\n\n"):
        fields = dict(line.partition(" ")[::2] for line in block.splitlines())
        owner = fields.get("locked", "").removeprefix(LOCK_REASON).split()
        if not fields.get("locked", "").startswith(LOCK_REASON) or len(owner) != 3 or _running(owner[0], owner[2]):
            continue
        _remove_worktree(repo, Path(fields["worktree"]))
        said.append(
            f"removed the stale base worktree {fields['worktree']} of a gate (pid {owner[0]}) that was "
            "killed before it could remove it"
        )
    return said


def _running(pid: str, started: str) -> bool:
    """Whether the process that locked a worktree still runs (the same pid with the same start time)."""
    try:
        return abs(psutil.Process(int(pid)).create_time() - float(started)) < 0.01
    except (psutil.Error, ValueError):
        return False


def _remove_worktree(repo: Path, path: Path) -> None:
    for argv in (["worktree", "unlock", str(path)], ["worktree", "remove", "--force", str(path)]):
        subprocess.run(["git", "-C", str(repo), *argv], capture_output=True)
    shutil.rmtree(path, ignore_errors=True)  # git left it (never registered, or removal failed half-way)
    subprocess.run(["git", "-C", str(repo), "worktree", "prune"], capture_output=True)
