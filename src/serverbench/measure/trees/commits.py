"""A range of commits, read from git: the refs resolved, the good end checked to be an ancestor of the bad
one, and every commit between them with its subject and the id of its lock file.

The range is the bad end's first-parent line back to the good end (a merge is one commit of it, as a
pull request's merge is one change of main).  The lock file's id is git's blob id at each commit, read
without a checkout: two commits whose lock files are the same share one environment
(:mod:`.lockenv`).  This module runs git, so it lives with the executors.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from ...errors import ConfigError


@dataclass(frozen=True)
class Commit:
    """One commit of the range: its id, its subject line and the blob id of its lock file (None: none)."""

    sha: str
    subject: str
    lock: str | None = None

    @property
    def short(self) -> str:
        return self.sha[:10]

    @property
    def name(self) -> str:
        """``1a2b3c4d5e (subject)``, the subject cut to 60 characters."""
        subject = self.subject if len(self.subject) <= 60 else self.subject[:57] + "..."
        return f"{self.short} ({subject})"


def git(repo: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *argv], capture_output=True, text=True)


def top(folder: Path) -> Path:
    """The top of the git checkout holding ``folder``; ConfigError when it is not in one."""
    found = git(folder, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise ConfigError(
            f"{folder} is not in a git checkout ({found.stderr.strip()}): bisect counts commits of a git "
            "repository; run it in one, or pass --repo"
        )
    return Path(found.stdout.strip()).resolve()


def resolve(repo: Path, ref: str, flag: str) -> str:
    """The commit id ``ref`` names; a ref that does not exist is a ConfigError naming ``flag``."""
    found = git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if found.returncode != 0:
        raise ConfigError(
            f"{flag} {ref!r} does not exist in {repo}; name a branch, tag or commit "
            "(`git fetch` it first if it lives on a remote)"
        )
    return found.stdout.strip()


def commit_range(repo: Path, good: str, bad: str, lock_path: str | None = None) -> list[Commit]:
    """The good end, then every commit of the bad end's first-parent line after it, oldest first (the bad end
    last).  Errors name the fix: a ref that does not exist, a good end that is not an ancestor of the bad
    one, an empty range."""
    good_sha, bad_sha = resolve(repo, good, "--good"), resolve(repo, bad, "--bad")
    if good_sha == bad_sha:
        raise ConfigError(f"--good {good} and --bad {bad} are the same commit {good_sha[:10]}: nothing to bisect")
    if git(repo, "merge-base", "--is-ancestor", good_sha, bad_sha).returncode != 0:
        raise ConfigError(
            f"--good {good} ({good_sha[:10]}) is not an ancestor of --bad {bad} ({bad_sha[:10]}): the range must "
            f"run from an older commit to a newer one on the same line; swap them if they are the wrong way round, "
            f"or take the merge base (`git merge-base {good} {bad}`) as --good"
        )
    listed = git(repo, "log", "--first-parent", "--format=%H%x09%P%x09%s", f"{good_sha}..{bad_sha}")
    rows = [line.split("\t", 2) for line in reversed(listed.stdout.splitlines())]
    if not rows or rows[0][1].split(" ")[0] != good_sha:
        raise ConfigError(
            f"--good {good} is not on the first-parent line of --bad {bad} (it was merged in from a side branch): "
            f"take the merge commit's first parent as --good, or bisect the side branch on its own"
        )
    subject = git(repo, "log", "-1", "--format=%s", good_sha).stdout.strip()
    shas = [good_sha] + [row[0] for row in rows]
    subjects = [subject] + [row[2] for row in rows]
    locks = lock_ids(repo, shas, lock_path) if lock_path else [None] * len(shas)
    return [Commit(sha, s, lock) for sha, s, lock in zip(shas, subjects, locks)]


def lock_ids(repo: Path, shas: list[str], lock_path: str) -> list[str | None]:
    """The blob id of ``lock_path`` at each commit (None where the commit has no such file), in one git call."""
    found = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
        input="".join(f"{sha}:{lock_path}\n" for sha in shas),
        capture_output=True,
        text=True,
    )
    out: list[str | None] = []
    for line in found.stdout.splitlines():
        blob, _, kind = line.partition(" ")
        out.append(blob if kind == "blob" else None)
    return out


def working_lock(repo: Path, lock_path: str) -> str | None:
    """The blob id the working tree's lock file would have (None: there is none): the lock of the environment
    the command runs in."""
    path = Path(repo) / lock_path
    if not path.is_file():
        return None
    return git(repo, "hash-object", str(path)).stdout.strip() or None


def head(folder: Path) -> str | None:
    """The commit checked out in ``folder`` when its tracked files are unchanged; None when they are changed
    (the measurement is of no commit) or ``folder`` is not in a git checkout."""
    sha = git(folder, "rev-parse", "--verify", "--quiet", "HEAD")
    if sha.returncode != 0:
        return None
    changed = git(folder, "status", "--porcelain", "--untracked-files=no")
    return None if changed.returncode != 0 or changed.stdout.strip() else sha.stdout.strip()
