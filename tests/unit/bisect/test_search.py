"""bisect.search: the loop between counting and judging, the ends' check and the bisection file's fields.

The counts are canned (each commit's count given by position, as in judge/test_bisect.py): what is tested is
which commits the loop counts and what it hands on, not a count (measure/counting/bisect.py's, tested with valgrind
in tests/integration/gate/test_bisect.py).
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverbench.bisect import search
from serverbench.bisect.plan import BisectPlan
from serverbench.catalog.matrix import Cell
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.errors import ConfigError
from serverbench.judge.bisect import Bisection, Step, bisection, next_commit
from serverbench.measure.counting.bisect import Attempt
from serverbench.measure.trees.commits import Commit
from serverbench.records import bisects
from tests.unit.fuzzing import fuzz
from tests.unit.records.test_cost import ENV, make

REQUESTS = 100


@functools.lru_cache
def make_plan(commits: int, threshold: float = 0.02) -> BisectPlan:
    """(Kept: a plan checks its Python's packages in a subprocess.) A bisection of waitress-t4/flask json over ``commits`` commits after the good end (c0 .. cN)."""
    variant = registry()["waitress-t4"]
    shas = tuple(Commit(f"{i:x}" * 40, f"c{i}", f"lock{i}") for i in range(commits + 1))
    return BisectPlan(Path("/repo"), shas, Cell(variant, variant.default_app), WORKLOADS["json"], threshold)


def attempt(index: int, count: float | None, seconds: float = 9.876, python: str = "/venv/bin/python") -> Attempt:
    """Commit ``index`` tried: counted ``count`` instructions a request, or (None) not counted."""
    if count is None:
        return Attempt(index, None, f"c{index} did not start: SyntaxError", seconds, python)
    record = replace(make(instructions=round(count * REQUESTS), requests=REQUESTS), environment={**ENV, "index": index})
    return Attempt(index, record, "", seconds, python)


@pytest.fixture
def plan() -> BisectPlan:
    return make_plan(8)


def canned(monkeypatch, levels, calls: list | None = None) -> None:
    """search's two counting calls give ``levels[i]`` for commit i (None: it could not be counted)."""

    def count_both(plan, indexes, envs, env):
        if calls is not None:
            calls.append(("both", indexes, envs, env, plan))
        return [attempt(i, levels[i]) for i in indexes]

    def count_commit(plan, index, envs, env):
        if calls is not None:
            calls.append(("one", index, envs, env, plan))
        return attempt(index, levels[index])

    monkeypatch.setattr(search, "count_both", count_both)
    monkeypatch.setattr(search, "count_commit", count_commit)


def one_step(commits: int, at: int, size: float = 0.04) -> list[float]:
    return [300_000.0 * (1 + size if i >= at else 1) for i in range(commits + 1)]


def test_run_counts_both_ends_together_then_each_commit_the_judge_asks_for(monkeypatch, plan):
    """The ends in one call, with the caller's environments, then one count per commit next_commit names, until it
    names none; the bisection is the judge's of those counts."""
    calls: list = []
    envs, env = object(), {"REDIS_URL": "redis://x"}
    canned(monkeypatch, one_step(8, 5), calls)
    heard: list[int] = []
    attempts, result = search.run(plan, envs, env, on_attempt=lambda a: heard.append(a.index))
    assert calls[0] == ("both", (0, 8), envs, env, plan)
    asked = [c[1] for c in calls[1:]]
    assert all(c[0] == "one" and c[2] is envs and c[3] is env and c[4] is plan for c in calls[1:])
    assert asked == [4, 6, 5]
    assert heard == list(attempts) == [0, 8, *asked]
    assert [(s.before, s.after) for s in result.steps] == [(4, 5)]
    assert result.counted == (0, 4, 5, 6, 8)


def test_run_is_heard_of_nothing_without_a_listener(monkeypatch, plan):
    """on_attempt may be left out: the default listener takes each attempt and does nothing."""
    canned(monkeypatch, one_step(8, 1))
    attempts, result = search.run(plan, None, {})
    assert list(attempts) == [0, 8, 4, 2, 1] and result.verdict == "regression"


@fuzz(60)
@given(
    st.integers(1, 8).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(1_000, 2_000).map(float), min_size=n + 1, max_size=n + 1),
            st.sets(st.integers(1, max(n - 1, 1)), max_size=n),
        )
    ),
    st.sampled_from([0.02, 0.1]),
)
def test_run_gives_what_the_judge_gives_for_the_same_counts(levels_skipped, threshold):
    """For any counts (whole numbers: a canned count is instructions over requests) and any commits that cannot be
    counted (not the ends), run counts exactly the commits the judge's own search counts, in the same order, and hands back the judge's bisection of them."""
    levels, skipped = levels_skipped
    last = len(levels) - 1
    levels = [None if 0 < i < last and i in skipped else v for i, v in enumerate(levels)]
    expected: dict[int, float | None] = {0: levels[0], last: levels[last]}
    while (i := next_commit(expected, last, threshold)) is not None:
        expected[i] = levels[i]
    with pytest.MonkeyPatch.context() as mp:
        canned(mp, levels)
        attempts, result = search.run(make_plan(last, threshold), None, {})
    assert list(attempts) == list(expected)
    assert {i: a.per_request for i, a in attempts.items()} == expected
    assert result == bisection({i: a.per_request for i, a in attempts.items()}, last, threshold)


@pytest.mark.parametrize("good, bad", [(None, 1000.0), (1000.0, None), (None, None)])
def test_run_stops_before_the_middle_when_an_end_cannot_be_counted(monkeypatch, plan, good, bad):
    """An end that cannot be counted stops the bisection after the ends: no commit between is counted."""
    calls: list = []
    canned(monkeypatch, [good, *[1000.0] * 7, bad], calls)
    with pytest.raises(search.EndNotCounted):
        search.run(plan, None, {})
    assert [c[0] for c in calls] == ["both"]


def test_ends_both_counted_pass(plan):
    """Both ends counted: nothing to say."""
    assert search.check_ends(plan, attempt(0, 1000.0), attempt(8, 1100.0)) is None


def test_neither_end_counted_names_the_cell_both_reasons_and_the_cost_test_to_run(plan):
    """Both ends failing names the cell, each end's reason, and the cost test of the variant to check it with."""
    with pytest.raises(search.EndNotCounted) as raised:
        search.check_ends(plan, attempt(0, None), attempt(8, None))
    said = str(raised.value)
    assert said.startswith("neither end of the range can be counted (waitress-t4/flask json): ")
    assert "good end c0 did not start: SyntaxError; bad end c8 did not start: SyntaxError" in said
    assert "`pytest -m cost --perf-variants waitress-t4`" in said


def test_a_good_end_not_counted_names_that_commit_and_asks_for_an_older_good(plan):
    """Only the good end failing names it (not the bad one), its reason, the endpoint and the variant."""
    with pytest.raises(search.EndNotCounted) as raised:
        search.check_ends(plan, attempt(0, None), attempt(8, 1000.0))
    said = str(raised.value)
    assert said.startswith(f"the good end {plan.commits[0].name} already fails: c0 did not start: SyntaxError; ")
    assert said.endswith("pick an older --good that serves GET /json under waitress-t4")


def test_a_bad_end_not_counted_names_that_commit_and_asks_for_another_bad(plan):
    """Only the bad end failing names it, its reason, and asks for the last commit that serves the endpoint."""
    with pytest.raises(search.EndNotCounted) as raised:
        search.check_ends(plan, attempt(0, 1000.0), attempt(8, None))
    said = str(raised.value)
    assert said.startswith(f"the bad end {plan.commits[-1].name} cannot be counted: c8 did not start: SyntaxError; ")
    assert "pick as --bad the last commit that serves GET /json (" in said


def test_an_end_not_counted_is_bad_input():
    """EndNotCounted is a ConfigError: the command prints it as one line and exits 2."""
    assert issubclass(search.EndNotCounted, ConfigError)


def _searched(plan, levels):
    attempts = {0: attempt(0, levels[0]), plan.last: attempt(plan.last, levels[plan.last])}
    while (i := next_commit({k: a.per_request for k, a in attempts.items()}, plan.last, plan.threshold)) is not None:
        attempts[i] = attempt(i, levels[i])
    return attempts, bisection({k: a.per_request for k, a in attempts.items()}, plan.last, plan.threshold)


def test_the_record_holds_the_cell_the_range_and_the_verdict(plan):
    """Every field of the file, from the plan, the attempts and the bisection; the file writes and reads back."""
    levels = [1000.04, 1000.0, 1000.0, None, 1100.0, 1100.0, 1100.0, 1100.0, 1100.06]
    attempts, result = _searched(plan, levels)
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    rec = search.to_record(plan, attempts, result, 123.456, "9.9.9")
    created = dt.datetime.fromisoformat(rec.pop("created"))
    assert before <= created <= dt.datetime.now(dt.timezone.utc) and created.utcoffset() == dt.timedelta(0)
    rows = rec.pop("commits")
    steps = rec.pop("steps")
    assert rec == {
        "kind": bisects.KIND,
        "schema": bisects.SCHEMA,
        "serverbench": "9.9.9",
        "repo": "/repo",
        "project": ".",
        "user": False,
        "cell": "waitress-t4/flask json",
        "variant": "waitress-t4",
        "app": "flask",
        "workload": "json",
        "endpoint": "GET /json",
        "threshold": 0.02,
        "requests": plan.requests,
        "lock_path": "uv.lock",
        "environment": {**ENV, "index": 0},
        "order": list(attempts),
        "change": round(1100.06 / 1000.04 - 1, 6),
        "verdict": "regression",
        "exit_status": 1,
        "counted": len(result.counted),
        "skipped": 1,
        "seconds": 123.5,
    }
    assert steps == [s.to_record() for s in result.steps] and steps[0]["skipped"] == [3]
    assert rows[0] == {
        "sha": "0" * 40,
        "subject": "c0",
        "lock": "lock0",
        "per_request": 1000.0,
        "tried": True,
        "skipped": None,
        "seconds": 9.88,
        "python": "/venv/bin/python",
    }
    skipped = "c3 did not start: SyntaxError"
    assert rows[3] == {
        **rows[0],
        "sha": "3" * 40,
        "subject": "c3",
        "lock": "lock3",
        "per_request": None,
        "skipped": skipped,
    }
    untried = next(i for i in range(9) if i not in attempts)
    assert rows[untried] == {
        "sha": f"{untried:x}" * 40,
        "subject": f"c{untried}",
        "lock": f"lock{untried}",
        "per_request": None,
        "tried": False,
        "skipped": None,
        "seconds": None,
        "python": None,
    }


def test_the_record_is_a_readable_bisection_file(plan, tmp_path):
    """What to_record makes, records.bisects writes and reads back unchanged."""
    attempts, result = _searched(plan, one_step(8, 3))
    rec = search.to_record(plan, attempts, result, 1.0, "9.9.9")
    bisects.write(tmp_path / "b.json", rec)
    assert bisects.read(tmp_path / "b.json") == rec


def test_each_step_carries_what_was_added_to_it_and_steps_without_any_are_left_as_they_are(plan):
    """``steps`` adds its fields to the step of the same place; steps past its end keep only their own fields."""
    levels = [1000.0, 1000.0, 1100.0, 1100.0, 1100.0, 1210.0, 1210.0, 1210.0, 1210.0]
    attempts, result = _searched(plan, levels)
    assert len(result.steps) == 2
    rec = search.to_record(plan, attempts, result, 1.0, "9.9.9", steps=[{"gate": "fail", "kind": "said"}])
    assert rec["steps"] == [
        {**result.steps[0].to_record(), "gate": "fail", "kind": "said"},
        result.steps[1].to_record(),
    ]


def test_a_good_end_without_a_count_gives_no_environment(plan):
    """The environment is the good end's record's; an attempts map whose good end was not counted gives {}."""
    attempts = {0: attempt(0, None), 8: attempt(8, 1000.0)}
    result = Bisection((), 0.0, 0.02, (8,), (0,))
    assert search.to_record(plan, attempts, result, 1.0, "9.9.9")["environment"] == {}


@fuzz(60)
@given(
    st.one_of(st.none(), st.floats(1.0, 1e7)),
    st.dictionaries(st.integers(1, 8), st.one_of(st.none(), st.floats(1.0, 1e7))),
    st.floats(0.0, 1e4),
)
def test_every_commit_has_one_row_and_only_tried_ones_say_how_they_went(good, later, seconds):
    """For any commits tried, in any order: one row per commit of the range in range order; a row says tried,
    seconds and python exactly when it was tried, a count exactly when it was counted (to 0.1), a reason exactly
    when it was tried and not counted; ``order`` is the order tried (the good end first, as run tries it)."""
    plan = make_plan(8)
    tried = {0: good, **later}
    attempts = {i: attempt(i, count, seconds=seconds) for i, count in tried.items()}
    result = Bisection((Step(0, 8, 1.0, 2.0),), 1.0, 0.02, (), ())
    rec = search.to_record(plan, attempts, result, seconds, "9.9.9")
    assert [r["subject"] for r in rec["commits"]] == [f"c{i}" for i in range(9)]
    assert rec["order"] == list(tried)
    for i, row in enumerate(rec["commits"]):
        count = tried.get(i, "untried")
        counted = i in tried and count is not None
        assert row["tried"] is (i in tried)
        assert (row["seconds"], row["python"]) == (
            (round(seconds, 2), "/venv/bin/python") if i in tried else (None, None)
        )
        assert row["per_request"] == (round(attempts[i].per_request, 1) if counted else None)
        assert (row["skipped"] is not None) is (i in tried and count is None)
