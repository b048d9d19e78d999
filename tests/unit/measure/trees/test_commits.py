"""measure.trees.commits on a real git repository in tmp_path: the range between two refs, each commit's lock id, the
errors that name the fix (a ref that does not exist, a good end that is not an ancestor, an empty range, a
side branch), and the commit a results file records."""

import subprocess

import pytest

from serverbench.errors import ConfigError
from serverbench.measure.trees import commits as git


def _git(repo, *argv):
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@localhost", *argv],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _commit(repo, name, text, lock=None, file="app.py"):
    (repo / file).write_text(text)
    if lock is not None:
        (repo / "uv.lock").write_text(lock)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", name)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    """Five commits c0..c4; uv.lock appears at c1 and changes at c3."""
    path = tmp_path / "repo"
    path.mkdir()
    _git(tmp_path, "init", "-q", "-b", "main", str(path))
    locks = [None, "a", None, "b", None]
    for i, lock in enumerate(locks):
        _commit(path, f"c{i}", f"X = {i}\n", lock)
    return path


def test_the_range_runs_from_the_good_end_to_the_bad_end_with_subjects(repo):
    """Index 0 is the good end, the last the bad end, oldest first, each with its subject."""
    found = git.commit_range(repo, "HEAD~4", "HEAD")
    assert [c.subject for c in found] == ["c0", "c1", "c2", "c3", "c4"]
    assert found[-1].sha == _git(repo, "rev-parse", "HEAD")
    assert found[0].name == f"{found[0].sha[:10]} (c0)"


def test_each_commit_carries_its_lock_files_blob_id(repo):
    """Commits sharing a lock file share its id; a commit without one has None."""
    locks = [c.lock for c in git.commit_range(repo, "HEAD~4", "HEAD", "uv.lock")]
    assert locks[0] is None and locks[1] == locks[2] != locks[3] == locks[4]
    assert git.working_lock(repo, "uv.lock") == locks[4]
    assert git.working_lock(repo, "nope.lock") is None


@pytest.mark.parametrize(
    "good, bad, said",
    [
        ("nope", "HEAD", "--good 'nope' does not exist"),
        ("HEAD~1", "v9", "--bad 'v9' does not exist"),
        ("HEAD", "HEAD~2", "is not an ancestor of --bad HEAD~2"),
        ("HEAD", "main", "are the same commit"),
    ],
)
def test_bad_ranges_are_one_line_errors_naming_the_fix(repo, good, bad, said):
    """A missing ref, a reversed range and an empty one are refused before anything starts."""
    with pytest.raises(ConfigError, match=said) as raised:
        git.commit_range(repo, good, bad)
    assert "\n" not in str(raised.value)


def test_a_good_end_merged_in_from_a_side_branch_is_refused(repo):
    """The range follows the bad end's first parents: a good end only on a merged side branch is named."""
    _git(repo, "checkout", "-q", "-b", "side", "HEAD~2")
    side = _commit(repo, "side", "Y = 'side'\n", file="side.py")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    with pytest.raises(ConfigError, match="not on the first-parent line"):
        git.commit_range(repo, side, "HEAD")
    assert [c.subject for c in git.commit_range(repo, "HEAD~1", "HEAD")] == ["c4", "merge side"]


def test_head_is_the_commit_of_a_clean_checkout_only(repo, tmp_path):
    """A clean checkout records its HEAD; changed tracked files or no git at all record none."""
    assert git.head(repo) == _git(repo, "rev-parse", "HEAD")
    (repo / "untracked.txt").write_text("results")
    assert git.head(repo) is not None
    (repo / "app.py").write_text("X = 'changed'\n")
    assert git.head(repo) is None
    outside = tmp_path / "plain"
    outside.mkdir()
    assert git.head(outside) is None


def test_top_names_a_folder_outside_git(tmp_path):
    """bisect outside a git checkout says to run it in one."""
    with pytest.raises(ConfigError, match="is not in a git checkout"):
        git.top(tmp_path)
