"""The gate's base worktree (measure.trees.worktree) on a real git repository in tmp_path: checked out, locked with its
gate's pid, removed on every exit path; a stale one of a dead gate pruned, a live one kept."""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest

from serverbench.errors import ConfigError
from serverbench.measure.trees import worktree as wt


def _git(repo, *argv):
    return subprocess.run(["git", "-C", str(repo), *argv], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path):
    """A repository with one commit (apps/app.py), tagged v1."""
    path = tmp_path / "repo"
    (path / "apps").mkdir(parents=True)
    (path / "apps" / "app.py").write_text("VERSION = 1\n")
    _git(tmp_path, "init", "-q", str(path))
    _git(path, "add", "apps")
    _git(path, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "one")
    _git(path, "tag", "v1")
    return path


def _worktrees(repo):
    """(path, locked reason) of each worktree besides the main one."""
    out, found = _git(repo, "worktree", "list", "--porcelain"), []
    for block in out.strip().split("\n\n")[1:]:
        fields = dict(line.partition(" ")[::2] for line in block.splitlines())
        found.append((fields["worktree"], fields.get("locked")))
    return found


def _locked(repo, tmp_path, name, pid, started):
    """A worktree locked as a gate with ``pid`` started at ``started`` locks it."""
    path = tmp_path / name
    _git(
        repo,
        "worktree",
        "add",
        "--detach",
        "--lock",
        "--reason",
        f"{wt.LOCK_REASON} {pid} started {started}",
        str(path),
        "v1",
    )
    return path


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_ref_is_checked_out_locked_with_this_gates_pid_and_removed(repo):
    """Inside the block: the ref's files, locked with this process's pid and start time; after it, no worktree."""
    (repo / "apps" / "app.py").write_text("VERSION = 2\n")  # the working tree differs from the ref
    me = psutil.Process()
    with wt.worktree("v1", repo) as path:
        assert (path / "apps" / "app.py").read_text() == "VERSION = 1\n"
        assert _worktrees(repo) == [(str(path), f"serverbench gate pid {me.pid} started {me.create_time():.2f}")]
    assert _worktrees(repo) == [] and not path.exists()


def test_the_base_is_as_deep_as_the_checkout_beside_it_and_in_the_temporary_folder_when_that_is_read_only(
    repo, monkeypatch
):
    """The worktree is made in the folder holding the checkout's top, so both arms' paths have as many folders (an
    app that stats each one per request counts the same calls); a folder that cannot be written: the temporary one."""
    with wt.worktree("v1", repo / "apps") as path:
        assert path.parent == repo.parent and len(path.parts) == len(repo.parts)
    real_access = wt.os.access
    monkeypatch.setattr(wt.os, "access", lambda p, mode: False if p == repo.parent else real_access(p, mode))
    with wt.worktree("v1", repo) as path:
        assert path.parent == Path(tempfile.gettempdir()).resolve() or path.parent == Path(tempfile.gettempdir())


def test_the_worktree_is_removed_when_the_block_fails(repo):
    """An exception inside the block still removes the worktree (and its folder)."""
    with pytest.raises(RuntimeError), wt.worktree("HEAD", repo) as path:
        raise RuntimeError("the gate failed")
    assert _worktrees(repo) == [] and not path.exists()


def test_a_ref_that_does_not_exist_is_a_config_error(repo):
    """A missing ref is refused by name, with the fix, before anything is checked out."""
    with pytest.raises(ConfigError, match=r"base ref 'nope' does not exist in .*repo; name a branch, tag or commit"):
        with wt.worktree("nope", repo):
            pass
    assert _worktrees(repo) == []


def test_a_stale_worktree_of_a_dead_gate_is_pruned_and_named(repo, tmp_path, capsys):
    """A worktree locked by a gate that no longer runs is removed, one line naming it and the pid; the next
    gate prints that line as a note."""
    pid = _dead_pid()
    stale = _locked(repo, tmp_path, "stale", pid, "1.00")
    assert wt.prune_stale_worktrees(repo) == [
        f"removed the stale base worktree {stale} of a gate (pid {pid}) that was killed before it could remove it"
    ]
    assert _worktrees(repo) == [] and not stale.exists()
    stale = _locked(repo, tmp_path, "stale", pid, "1.00")
    with wt.worktree("v1", repo) as path:
        assert [p for p, _ in _worktrees(repo)] == [str(path)]
    assert f"note: removed the stale base worktree {stale} of a gate (pid {pid})" in capsys.readouterr().err


def test_a_worktree_of_a_live_gate_is_kept(repo, tmp_path):
    """A worktree locked by a running gate (same pid, same start time) is not touched."""
    me = psutil.Process()
    live = _locked(repo, tmp_path, "live", me.pid, f"{me.create_time():.2f}")
    assert wt.prune_stale_worktrees(repo) == []
    assert [p for p, _ in _worktrees(repo)] == [str(live)] and live.is_dir()


def test_a_reused_pid_does_not_keep_a_worktree(repo, tmp_path):
    """The pid alive but started at another time (the pid was reused): the worktree is stale and removed."""
    me = psutil.Process()
    stale = _locked(repo, tmp_path, "reused", me.pid, f"{me.create_time() - 5:.2f}")
    assert len(wt.prune_stale_worktrees(repo)) == 1 and not stale.exists()


@pytest.mark.parametrize(
    "reason", ["someone else's lock", f"{wt.LOCK_REASON} 1 started", f"x {wt.LOCK_REASON} 1 started 1"]
)
def test_worktrees_not_locked_by_a_gate_are_left_alone(repo, tmp_path, reason):
    """Another lock reason, a gate's reason without all three fields, an unlocked worktree: all kept."""
    other = tmp_path / "other"
    _git(repo, "worktree", "add", "--detach", "--lock", "--reason", reason, str(other), "v1")
    plain = tmp_path / "plain"
    _git(repo, "worktree", "add", "--detach", str(plain), "v1")
    assert wt.prune_stale_worktrees(repo) == []
    assert sorted(p for p, _ in _worktrees(repo)) == sorted([str(other), str(plain)])


def test_running_compares_the_pid_and_its_start_time():
    """Running: this pid at its start time, within 0.01 s; not: another start time, a dead pid, text that is no pid."""
    me = psutil.Process()
    started = me.create_time()
    assert wt._running(str(me.pid), f"{started:.2f}")
    assert wt._running(str(me.pid), str(started + 0.009))
    assert not wt._running(str(me.pid), str(started + 0.011))
    assert not wt._running(str(me.pid), str(started - 0.011))
    assert not wt._running(str(_dead_pid()), f"{started:.2f}")
    assert not wt._running("x", "1.0") and not wt._running(str(me.pid), "y")


def test_remove_worktree_unlocks_removes_and_prunes(repo, tmp_path):
    """A locked worktree is removed with its folder; a folder git never registered is deleted too."""
    locked = _locked(repo, tmp_path, "locked", 1, "1.00")
    wt._remove_worktree(repo, locked)
    assert _worktrees(repo) == [] and not locked.exists()
    loose = tmp_path / "loose"
    (loose / "x").mkdir(parents=True)
    wt._remove_worktree(repo, loose)
    assert not loose.exists()


def test_a_worktree_whose_folder_vanished_is_pruned(repo, tmp_path):
    """A registered worktree whose folder is gone (deleted by hand) is pruned from git's list."""
    gone = _locked(repo, tmp_path, "gone", 1, "1.00")
    _git(repo, "worktree", "unlock", str(gone))
    shutil.rmtree(gone)
    wt._remove_worktree(repo, gone)
    assert _worktrees(repo) == []
