"""The git commands the docs give for the `results` branch (raw run files, an orphan branch) work as written in a
fresh clone, a full one and a single-branch depth-1 one (as CI checks out): fetch it, show a file, add a worktree
of it to read or to commit on."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# Where the docs, help texts and messages give the commands.
SOURCES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "benchmarks" / "results" / "INDEX.md",
    ROOT / "src" / "serverbench" / "cli" / "report.py",
    ROOT / "benchmarks" / "memory.py",
]
COMMAND = re.compile(r"`+(git (?:fetch|show|worktree)[^`]*results[^`]*)`+|^ {4}(git .*results.*)$", re.M)
FILE = "benchmarks/results/memory.json"
RAW = '{"variants": {}}\n'


def documented() -> list[str]:
    """Every `results` branch git command of the docs, placeholders (FILE, <file>, {OUT...}) made one file."""
    found = []
    for source in SOURCES:
        for match in COMMAND.finditer(source.read_text(encoding="utf-8")):
            command = " ".join((match.group(1) or match.group(2)).split())  # a code span may wrap
            command = re.sub(r"\{OUT[^}]*\}", FILE, command)
            command = command.replace("benchmarks/results/FILE", FILE).replace("benchmarks/results/<file>", FILE)
            found.append(command.replace("> FILE", "> memory.json"))
    return sorted(set(found))


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    """A repository shaped as this one is: `main` with the code, an orphan `results` with the raw files."""
    repo = tmp_path_factory.mktemp("origin") / "serverbench"
    repo.mkdir()
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    git("init", "-q", "-b", "main", cwd=repo)
    (repo / FILE).parent.mkdir(parents=True)
    (repo / FILE).parent.joinpath("INDEX.md").write_text("the list\n")
    git("add", "-A", cwd=repo)
    git(*ident, "commit", "-qm", "code", cwd=repo)
    git("switch", "-q", "--orphan", "results", cwd=repo)
    (repo / FILE).parent.mkdir(parents=True, exist_ok=True)
    (repo / FILE).write_text(RAW)
    git("add", FILE, cwd=repo)
    git(*ident, "commit", "-qm", "raw", cwd=repo)
    git("switch", "-q", "main", cwd=repo)
    return repo


@pytest.mark.parametrize("depth", [[], ["--depth", "1"]], ids=["full-clone", "depth-1-clone"])
@pytest.mark.parametrize("command", documented())
def test_each_documented_results_command_works_in_a_fresh_clone(origin, tmp_path, depth, command):
    """The command, after the docs' fetch line where it does not fetch itself, exits 0 in a fresh clone and gives
    the branch's file (shown, written, or in the worktree)."""
    clone = tmp_path / "clone"
    git("clone", "-q", *depth, f"file://{origin}", str(clone), cwd=tmp_path)
    fetches = {c.split(" && ")[0] for c in documented() if c.startswith("git fetch")}
    assert len(fetches) == 1, f"the docs fetch the results branch in more than one way: {sorted(fetches)}"
    if not command.startswith("git fetch"):
        subprocess.run(shlex.split(next(iter(fetches))), cwd=clone, check=True, capture_output=True)
    done = subprocess.run(["bash", "-c", command], cwd=clone, capture_output=True, text=True)
    assert done.returncode == 0, f"{command}\nexited {done.returncode}: {done.stderr}"
    if "git show" in command:
        written = re.search(r"> (\S+)$", command)
        shown = (clone / written.group(1)).read_text() if written else done.stdout
        assert shown == RAW, shown
    if "worktree add" in command:
        assert (tmp_path / "serverbench-results" / FILE).is_file()


def test_the_docs_give_the_results_branch_commands():
    """The pattern still finds the fetch, show and worktree commands (an empty list would test nothing)."""
    kinds = {command.split()[1] for command in documented()}
    assert kinds >= {"fetch", "worktree"}, documented()
