"""What a ``serverbench ci`` run concluded: its :class:`Outcome`, the exit status of its verdict, whether the comment
is posted (``--comment``), and the ``result.json`` record the action reads all that from.

The exit status is faithful to the verdict; whether could-not-decide fails the job is the action's choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..judge.cost import Shift
from ..records.decisions import ABDecision
from ..report.verdict import ERROR, IMPROVEMENT, NOT_MEASURED, PASS, REGRESSION, UNDECIDED
from .event import Event

STATUS = {PASS: 0, IMPROVEMENT: 0, NOT_MEASURED: 0, REGRESSION: 1, ERROR: 2, UNDECIDED: 3}
# --comment: on which verdicts the comment is posted.
POSTED = {
    "on-change": (REGRESSION, IMPROVEMENT, UNDECIDED, ERROR),
    "always": tuple(STATUS),
    "never": (),
}
DEFAULT_COMMENT = "on-change"


@dataclass(frozen=True)
class Outcome:
    """One run's conclusion: the mode (None: not known, a bad --mode), the verdict, its lines, the comment's
    body, and what was measured (the gate's decisions with their functions, or the head's cost results file)."""

    mode: str | None
    verdict: str
    lines: tuple[str, ...]
    comment: str
    decisions: tuple[tuple[ABDecision, tuple[Shift, ...]], ...] = ()
    cost_results: Path | None = None

    @property
    def status(self) -> int:
        return STATUS[self.verdict]


def check_comment(policy: str) -> str:
    if policy not in POSTED:
        raise ConfigError(f"--comment {policy!r} is not a choice: give --comment on-change, always or never")
    return policy


def posted(policy: str, verdict: str) -> bool:
    """Whether --comment ``policy`` posts the comment on ``verdict`` (an unknown policy: on-change's)."""
    return verdict in POSTED.get(policy, POSTED[DEFAULT_COMMENT])


def record(outcome: Outcome, policy: str, event: Event) -> dict[str, Any]:
    """result.json: the mode, exit status, verdict, whether to post, the pull request, whether from a fork, the lines."""
    return {
        "mode": outcome.mode,
        "status": outcome.status,
        "verdict": outcome.verdict,
        "post": posted(policy, outcome.verdict),
        "pull_request": event.pull_request,
        "fork": event.fork,
        "lines": list(outcome.lines),
    }
