"""judge.bisect: which commit to count next and what the counts say, on counts given by position (pure)."""

import pytest

from serverbench.judge.bisect import (
    IMPROVEMENT,
    NONE,
    REGRESSION,
    SPREAD,
    Step,
    bisection,
    most_counts,
    moved,
    next_commit,
    summary,
)

BASE = 300_000.0


def search(levels, threshold=0.02, skip=()):
    """Run the search over ``levels`` (a count per commit index), ``skip`` the indexes that cannot be counted."""
    counts = {}
    while (i := next_commit(counts, len(levels) - 1, threshold)) is not None:
        counts[i] = None if i in skip else levels[i]
    return counts, bisection(counts, len(levels) - 1, threshold)


def one_step(commits, at, size=0.04):
    """A range of ``commits`` commits after the good end whose count rises by ``size`` at commit ``at``."""
    return [BASE * (1 + size if i >= at else 1) for i in range(commits + 1)]


@pytest.mark.parametrize("at", range(1, 17))
def test_one_step_in_sixteen_commits_is_found_in_at_most_six_counts(at):
    """A step at any of 16 commits is found exactly, with log2(16) + 2 = 6 counts at most."""
    counts, result = search(one_step(16, at))
    assert [(s.before, s.after) for s in result.steps] == [(at - 1, at)]
    assert len(counts) <= most_counts(16) == 6
    assert result.verdict == REGRESSION and result.exit_status == 1


@pytest.mark.parametrize("commits", [1, 2, 3, 5, 17, 31, 100])
def test_the_count_budget_is_two_ends_and_one_per_halving(commits):
    """Every position of ranges of other lengths is found within 2 + ceil(log2 N) counts."""
    for at in range(1, commits + 1):
        counts, result = search(one_step(commits, at))
        assert [s.after for s in result.steps] == [at]
        assert len(counts) <= most_counts(commits)


def test_the_ends_are_counted_first_and_a_failed_end_stops_the_search():
    """Good end, then bad end; no further commit when either could not be counted."""
    assert next_commit({}, 8, 0.02) == 0
    assert next_commit({0: BASE}, 8, 0.02) == 8
    assert next_commit({0: None, 8: BASE}, 8, 0.02) is None
    assert next_commit({0: BASE, 8: None}, 8, 0.02) is None


def test_no_move_between_the_ends_is_none_above_the_threshold_after_two_counts():
    """A flat range costs two counts and says 'none above 2.0%'."""
    counts, result = search([BASE * (1 + 0.001 * (i % 3)) for i in range(17)])
    assert len(counts) == 2
    assert result.steps == () and result.verdict == NONE and result.exit_status == 0
    assert summary(result, [str(i) for i in range(17)]) == "none above 2.0%: the range moved +0.10%"


def test_two_steps_in_one_range_are_both_reported_with_their_size():
    """+4% at commit 5 and +6% at commit 12: both steps, each with its own size."""
    levels = [BASE * (1.04 if i >= 5 else 1) * (1.06 if i >= 12 else 1) for i in range(17)]
    _, result = search(levels)
    assert [(s.after, round(s.change, 4)) for s in result.steps] == [(5, 0.04), (12, 0.06)]
    assert "2 step(s) above 2.0%: +4.00% at c5; +6.00% at c12" in summary(result, [f"c{i}" for i in range(17)])


def test_an_improvement_is_a_step_of_its_own_kind_and_no_failure():
    """A drop beyond the threshold is found as an improvement; the exit status stays 0."""
    _, result = search(one_step(16, 9, size=-0.05))
    assert [(s.after, s.kind) for s in result.steps] == [(9, IMPROVEMENT)]
    assert result.verdict == IMPROVEMENT and result.exit_status == 0


def test_a_skipped_midpoint_is_replaced_by_its_older_neighbour():
    """The middle commit cannot be counted: the older neighbour is counted next, and the step is still exact."""
    counts, result = search(one_step(16, 11), skip={8})
    assert list(counts)[:4] == [0, 16, 8, 7] and counts[8] is None
    assert [(s.before, s.after, s.exact) for s in result.steps] == [(10, 11, True)]
    assert result.skipped == (8,)


@pytest.mark.parametrize("at", [p for p in range(1, 17) if p not in (8, 9)])
def test_a_commit_that_cannot_be_counted_costs_no_extra_count(at):
    """With commit 8 of 16 skipped, every step but those at 8 and 9 is found exactly in 6 counts."""
    counts, result = search(one_step(16, at), skip={8})
    assert [(s.before, s.after) for s in result.steps] == [(at - 1, at)]
    assert len([v for v in counts.values() if v is not None]) <= 6


@pytest.mark.parametrize("at", [8, 9])
def test_a_step_at_or_right_after_a_skipped_commit_names_both(at):
    """A step at commit 8 or 9 with 8 skipped: either made it; the step spans 7..9 and names 8."""
    _, result = search(one_step(16, at), skip={8})
    assert [(s.before, s.after, s.skipped) for s in result.steps] == [(7, 9, (8,))]


def test_a_step_behind_skipped_commits_names_them_and_is_not_exact():
    """When every commit between two counts could not be counted, the step spans them."""
    counts, result = search(one_step(8, 5), skip={4, 5})
    (step,) = result.steps
    assert (step.before, step.after, step.skipped, step.exact) == (3, 6, (4, 5), False)
    assert "between c3 and c6 (2 commit(s) between could not be counted)" in summary(
        result, [f"c{i}" for i in range(9)]
    )


def test_a_range_that_moved_only_in_small_steps_is_a_spread_with_exit_3():
    """Eight +0.5% steps move the range +4% while no counted interval moves 2%: no culprit is named."""
    levels = [BASE * 1.005 ** (i // 2) for i in range(17)]
    _, result = search(levels)
    assert result.steps == () and result.verdict == SPREAD and result.exit_status == 3
    assert "no single counted interval by more than 2.0%" in summary(result, [str(i) for i in range(17)])


def test_moved_is_strictly_beyond_the_threshold_either_way():
    """Exactly the threshold is not a move; beyond it, up or down, is."""
    assert not moved(100.0, 102.0, 0.02)
    assert moved(100.0, 102.01, 0.02)
    assert moved(100.0, 97.99, 0.02)


def test_exactly_the_threshold_down_is_not_a_move():
    """A count exactly the threshold below the base (75 of 100 at 25%, exact in floating point) did not move."""
    assert not moved(100.0, 75.0, 0.25)
    assert moved(100.0, 74.99, 0.25)


def test_an_end_that_could_not_be_counted_stops_the_search_whatever_else_was_counted():
    """Either end not counted: no commit is asked for, even when counted commits between moved."""
    assert next_commit({0: None, 4: BASE, 8: BASE * 1.1}, 8, 0.02) is None
    assert next_commit({0: BASE, 4: BASE * 1.1, 8: None}, 8, 0.02) is None
    assert next_commit({0: BASE, 4: BASE * 1.1, 8: BASE * 1.1}, 8, 0.02) == 2


def test_a_search_that_is_not_over_has_no_bisection():
    """bisection() refuses counts that still ask for a commit, or an end that was not counted."""
    with pytest.raises(ValueError, match="not over"):
        bisection({0: BASE, 8: BASE * 1.1}, 8, 0.02)
    with pytest.raises(ValueError, match="not over"):
        bisection({0: None, 8: BASE}, 8, 0.02)


def test_a_step_records_its_ends_size_and_kind():
    """Step.to_record keeps the indexes, both counts, the change, the kind and the skipped commits."""
    assert Step(3, 6, 100.0, 104.0, (4, 5)).to_record() == {
        "before": 3,
        "after": 6,
        "base": 100.0,
        "count": 104.0,
        "change": 0.04,
        "kind": REGRESSION,
        "skipped": [4, 5],
    }


def test_most_counts_is_two_plus_the_halvings():
    """1 commit: the two ends; 16: 2 + 4; 17: 2 + 5."""
    assert [most_counts(n) for n in (1, 2, 16, 17, 32)] == [2, 3, 6, 7, 7]
