"""The commits a change is measured against (change.commits), in real git repositories: the project's folder, a
commit's serverbench settings, the first commit's missing parent, and a commit a clone cannot fetch."""

import pytest

from serverbench.change.commits import checkout
from serverbench.errors import ConfigError
from tests.unit.change.conftest import SETTINGS, commit


def test_the_project_is_named_by_its_folder_in_the_repository(repo):
    """A project at the top is ``.``; one in a sub-folder is that folder."""
    commit(repo, {"shop/pyproject.toml": SETTINGS}, "shop")
    assert checkout(repo).project == "." and checkout(repo).top == repo.resolve()
    assert checkout(repo / "shop").project == "shop" and checkout(repo / "shop").prefix == "shop/"


def test_a_commit_has_settings_when_its_project_names_perf_app(repo):
    """perf_app in the project folder's pyproject.toml (or pytest.ini, tox.ini, setup.cfg) at that commit."""
    before = commit(repo, {"shop/pyproject.toml": "[project]\nname = 'shop'\n", "shop/x": "perf_app_dir = 'x'\n"}, "no")
    after = commit(repo, {"shop/tox.ini": "[pytest]\nperf_app = shop:app\n"}, "adds them")
    shop = checkout(repo / "shop")
    assert not shop.configured(before) and shop.configured(after)
    assert not checkout(repo).configured(after)  # the top's own files name none


def test_the_first_commit_has_no_parent(repo):
    """The pushed commit's parent: None for a repository's first commit."""
    first = commit(repo, {"a": "1"}, "first")
    second = commit(repo, {"a": "2"}, "second")
    assert checkout(repo).parent("HEAD") == first
    assert checkout(repo).parent(first) is None and second != first


def test_a_commit_the_clone_lacks_and_cannot_fetch_names_fetch_depth(repo):
    """A base not in the clone, and no origin to send it: bad input naming fetch-depth: 0."""
    commit(repo, {"a": "1"}, "first")
    with pytest.raises(ConfigError, match="is not in this clone and origin would not send it.*fetch-depth: 0"):
        checkout(repo).fetched("1" * 40)


def test_a_folder_outside_git_is_bad_input(tmp_path):
    """--project outside any git checkout: refused, naming actions/checkout."""
    with pytest.raises(ConfigError, match="not in a git checkout.*actions/checkout"):
        checkout(tmp_path)
