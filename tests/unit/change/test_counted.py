"""A push's cost test (change.counted) with real ``pytest -m cost`` runs on both commits of a git repository, on
tests marked ``cost`` that count nothing (no valgrind needed): which outcome each pytest status gives."""

import sys

import pytest

from serverbench.change.commits import checkout
from serverbench.change.counted import CountError, count
from tests.unit.change.conftest import commit

PASSES = "import pytest\n\n\n@pytest.mark.cost\ndef test_cost():\n    pass\n"
FAILS = PASSES.replace("pass", "assert False, 'the server would not start'")
INI = "[pytest]\n"


def _count(repo, tmp_path, before):
    return count(checkout(repo), before, sys.executable, ["-q"], tmp_path / "cost.json")


def test_a_before_without_cost_tests_is_not_measured(repo, tmp_path):
    """pytest collected nothing at the commit before: nothing to compare with."""
    before = commit(repo, {"pytest.ini": INI}, "no cost tests")
    commit(repo, {"tests/test_cost.py": PASSES}, "adds them")
    assert "has no cost tests: nothing to compare with" in _count(repo, tmp_path, before).not_measured


def test_a_head_that_counts_no_cell_is_not_measured(repo, tmp_path):
    """Both runs pass but write no cost record: no cell was counted."""
    before = commit(repo, {"pytest.ini": INI, "tests/test_cost.py": PASSES}, "base")
    commit(repo, {"README": "x\n"}, "head")
    assert _count(repo, tmp_path, before).not_measured == "pytest -m cost counted no cell in this commit"


def test_a_head_that_fails_without_a_cells_verdict_is_an_error_with_its_output(repo, tmp_path):
    """The head's run fails, but no record failed its tolerance: not a regression, an error carrying pytest's tail."""
    before = commit(repo, {"pytest.ini": INI, "tests/test_cost.py": PASSES}, "base")
    commit(repo, {"tests/test_cost.py": FAILS}, "breaks")
    with pytest.raises(CountError, match=r"counting this commit failed \(pytest exit 1\)") as error:
        _count(repo, tmp_path, before)
    assert "the server would not start" in str(error.value)
