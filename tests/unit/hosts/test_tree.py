"""The project's files handed to the server host (hosts.tree): what git lists, and one digest taken alike on both
sides."""

from __future__ import annotations

import subprocess
import sys

import pytest

from serverbench.errors import ConfigError
from serverbench.hosts.tree import digest, listed


def _project(tmp_path):
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "main.py").write_text("print('hi')\n")
    (root / ".gitignore").write_text(".venv/\n*.log\n")
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / "run.log").write_text("ignored\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "app/main.py", ".gitignore"], check=True)
    (root / "new.py").write_text("x = 1\n")  # untracked, not ignored: the working tree's own
    return root


def test_listed_is_the_tracked_and_untracked_files_not_the_ignored(tmp_path):
    """Tracked and untracked-not-ignored files, sorted; the ignored .venv and log are left out."""
    assert listed(_project(tmp_path)) == [".gitignore", "app/main.py", "new.py"]


def test_a_deleted_tracked_file_is_not_listed(tmp_path):
    """A tracked file deleted in the working tree is not sent (tar would fail on it)."""
    root = _project(tmp_path)
    (root / "app" / "main.py").unlink()
    assert "app/main.py" not in listed(root)


def test_outside_git_the_error_names_the_fix(tmp_path):
    """A folder that is not a git checkout: a ConfigError saying to run in one or on the server host."""
    with pytest.raises(ConfigError, match="not a git checkout"):
        listed(tmp_path)


def test_the_digest_follows_content_and_names(tmp_path):
    """The same files give the same digest; a changed byte, a missing file or a renamed path change it."""
    root = _project(tmp_path)
    paths = listed(root)
    first = digest(root, paths)
    assert digest(root, list(reversed(paths))) == first
    (root / "new.py").write_text("x = 2\n")
    changed = digest(root, paths)
    assert changed != first
    assert digest(root, [*paths, "gone.py"]) != changed
    assert digest(root, ["new2.py" if p == "new.py" else p for p in paths]) != changed


def test_the_module_prints_the_same_digest_as_the_function(tmp_path):
    """`python -m serverbench.hosts.tree FOLDER` (what the server host runs) agrees with digest() here."""
    root = _project(tmp_path)
    paths = listed(root)
    done = subprocess.run(
        [sys.executable, "-m", "serverbench.hosts.tree", str(root)],
        input="\0".join(paths).encode(),
        capture_output=True,
        check=True,
    )
    assert done.stdout.decode().strip() == digest(root, paths)
