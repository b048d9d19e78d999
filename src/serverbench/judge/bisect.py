"""Which commit moved the counted cost: bisection on instructions per request.  Pure: counts in, the next
commit to count and the steps found out.

A range is a list of commits, index 0 the good end and the last index the bad end; each commit is counted
at most once (a count repeats within a fraction of a percent, so one count per commit is the measurement)
or could not be counted (``None``: it does not build or does not serve the endpoint, ``git bisect run``'s
exit 125).  Two counted commits with no counted commit between them bound an *interval*; an interval
whose count moved by more than the threshold (either way) while it still holds commits not yet tried is
split at the middle one of its untried commits.  When no interval needs a count the search is over, and
every interval that moved is a *step*: exact when its two commits are parent and child, else spread over
the commits between that could not be counted.  Several steps in one range are all found, as long as no
interval's moves cancel between its ends (bisection sees what moved between two counted commits).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

Counts = Mapping[int, Optional[float]]  # commit index -> instructions per request (None: could not be counted)

REGRESSION, IMPROVEMENT = "regression", "improvement"
# The verdicts of a whole search, each with its exit status (as the gate's: 1 regression, 3 no one commit to blame).
NONE, SPREAD = "none", "spread"
EXIT = {REGRESSION: 1, IMPROVEMENT: 0, NONE: 0, SPREAD: 3}


def moved(base: float, count: float, threshold: float) -> bool:
    """Whether ``count`` differs from ``base`` by more than ``threshold`` (a fraction), either way."""
    ratio = count / base
    return ratio > 1 + threshold or ratio < 1 - threshold


def intervals(counts: Counts) -> list[tuple[int, int]]:
    """Consecutive counted commits, (earlier, later), oldest first."""
    counted = sorted(i for i, v in counts.items() if v is not None)
    return list(zip(counted, counted[1:]))


def next_commit(counts: Counts, last: int, threshold: float) -> int | None:
    """The index of the next commit to count, or None when the search is over.

    The ends first (the good end, then the bad end), and nothing more when either could not be counted (the
    caller says why: that is bad input, not a skip).  Then, in the oldest interval that moved and still
    holds untried commits, the middle one of those (the older of two middles).  The middle of the *untried*
    commits, not of the interval: a commit that could not be counted is no candidate any more, so after one
    is skipped the search still halves what is left and needs no extra count for it."""
    for end in (0, last):
        if end not in counts:
            return end
    if counts[0] is None or counts[last] is None:
        return None
    for a, b in intervals(counts):
        if moved(counts[a], counts[b], threshold):  # type: ignore[arg-type]
            untried = [i for i in range(a + 1, b) if i not in counts]
            if untried:
                return untried[(len(untried) - 1) // 2]
    return None


@dataclass(frozen=True)
class Step:
    """An interval whose count moved beyond the threshold: ``before`` the last commit at the old level,
    ``after`` the first counted at the new one; ``skipped`` the commits between that could not be counted
    (empty: ``after`` is the culprit, ``before`` its parent)."""

    before: int
    after: int
    base: float
    count: float
    skipped: tuple[int, ...] = ()

    @property
    def change(self) -> float:
        return self.count / self.base - 1

    @property
    def kind(self) -> str:
        return REGRESSION if self.change > 0 else IMPROVEMENT

    @property
    def exact(self) -> bool:
        return not self.skipped

    def to_record(self) -> dict[str, Any]:
        return {
            "before": self.before,
            "after": self.after,
            "base": round(self.base, 1),
            "count": round(self.count, 1),
            "change": round(self.change, 6),
            "kind": self.kind,
            "skipped": list(self.skipped),
        }


@dataclass(frozen=True)
class Bisection:
    """The outcome of a finished search: every step, the range's whole change, what was counted and skipped."""

    steps: tuple[Step, ...]
    change: float  # bad end against good end
    threshold: float
    counted: tuple[int, ...]
    skipped: tuple[int, ...]

    @property
    def regressions(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.kind == REGRESSION)

    @property
    def verdict(self) -> str:
        """``regression`` (a step up), ``improvement`` (only steps down), ``spread`` (the range moved beyond
        the threshold, no single interval did: it moved in smaller steps) or ``none``."""
        if self.regressions:
            return REGRESSION
        if self.steps:
            return IMPROVEMENT
        return SPREAD if abs(self.change) > self.threshold else NONE

    @property
    def exit_status(self) -> int:
        return EXIT[self.verdict]


def bisection(counts: Counts, last: int, threshold: float) -> Bisection:
    """The steps of a finished search (``next_commit`` returned None with both ends counted)."""
    if next_commit(counts, last, threshold) is not None or counts.get(0) is None or counts.get(last) is None:
        raise ValueError("the search is not over, or an end was not counted: no bisection to report")
    steps = tuple(
        Step(a, b, counts[a], counts[b], tuple(range(a + 1, b)))  # type: ignore[arg-type]
        for a, b in intervals(counts)
        if moved(counts[a], counts[b], threshold)  # type: ignore[arg-type]
    )
    return Bisection(
        steps,
        counts[last] / counts[0] - 1,  # type: ignore[operator]
        threshold,
        tuple(sorted(i for i, v in counts.items() if v is not None)),
        tuple(sorted(i for i, v in counts.items() if v is None)),
    )


def most_counts(commits: int) -> int:
    """The counts a search of ``commits`` commits (the good end excluded) needs for one step and no skipped
    commit: both ends, then one per halving of the range."""
    return 2 + max(commits - 1, 0).bit_length()


def summary(result: Bisection, names: Sequence[str]) -> str:
    """One line: the verdict with each step's size, commits named by ``names`` (one per index)."""
    t = f"{result.threshold:.1%}"
    if result.steps:
        said = "; ".join(
            f"{s.change:+.2%} at {names[s.after]}"
            if s.exact
            else f"{s.change:+.2%} between {names[s.before]} and {names[s.after]} "
            f"({len(s.skipped)} commit(s) between could not be counted)"
            for s in result.steps
        )
        return f"{len(result.steps)} step(s) above {t}: {said}"
    if result.verdict == SPREAD:
        return (
            f"the range moved {result.change:+.2%} but no single counted interval by more than {t}: "
            "it moved in smaller steps (a lower --threshold finds them)"
        )
    return f"none above {t}: the range moved {result.change:+.2%}"
