"""The GitHub event a run answers: its name (``GITHUB_EVENT_NAME``) and its payload (the JSON file at
``GITHUB_EVENT_PATH``), read once; what ``serverbench ci`` takes from it: the mode ``auto`` picks, a pull
request's number, base commit and whether it comes from a fork, a push's ``before``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError

PULL_REQUESTS = ("pull_request", "pull_request_target")
PUSH = "push"
MODES = ("auto", "gate", "cost")
NO_COMMIT = "0" * 40  # a push's ``before`` when the push made the branch


@dataclass(frozen=True)
class Event:
    """The event's name (None: not run by GitHub Actions) and its payload ({}: no event file)."""

    name: str | None = None
    payload: Mapping[str, Any] = field(default_factory=dict)

    @property
    def _pull_request(self) -> Mapping[str, Any]:
        found = self.payload.get("pull_request")
        return found if isinstance(found, Mapping) else {}

    @property
    def pull_request(self) -> int | None:
        """The pull request's number (None: not a pull request's event)."""
        number = self._pull_request.get("number", self.payload.get("number") if self._pull_request else None)
        return number if isinstance(number, int) else None

    @property
    def base(self) -> str | None:
        """The commit the pull request merges into (``pull_request.base.sha``)."""
        return _text(self._pull_request, "base", "sha")

    @property
    def fork(self) -> bool:
        """Whether the pull request's head is another repository's (its token cannot write a comment)."""
        head, base = (
            _text(self._pull_request, "head", "repo", "full_name"),
            _text(self._pull_request, "base", "repo", "full_name"),
        )
        return head is not None and base is not None and head != base

    @property
    def before(self) -> str | None:
        """A push's ``before`` (all zeros: the push made the branch)."""
        before = self.payload.get("before")
        return before if isinstance(before, str) and before else None


def _text(data: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        data = data.get(key) if isinstance(data, Mapping) else None
    return data if isinstance(data, str) and data else None


def read(environ: Mapping[str, str]) -> Event:
    """The event of this run; an event file that cannot be read or is not a JSON object is bad input."""
    name, path = environ.get("GITHUB_EVENT_NAME") or None, environ.get("GITHUB_EVENT_PATH") or None
    if path is None:
        return Event(name)
    try:
        with open(path, encoding="utf-8") as f:
            payload = json.load(f)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"GITHUB_EVENT_PATH {path}: not a readable JSON event file ({exc}); run in a GitHub Actions job, "
            "or unset GITHUB_EVENT_PATH and give --base (gate) or --before (cost)"
        ) from None
    if not isinstance(payload, dict):
        raise ConfigError(f"GITHUB_EVENT_PATH {path}: the event is not a JSON object; give --base or --before")
    return Event(name, payload)


def mode_of(requested: str, event: Event) -> str:
    """``gate`` or ``cost``: as given, or (``auto``) by the event: a pull request's gate, a push's cost."""
    if requested not in MODES:
        raise ConfigError(f"--mode {requested!r} is not a mode: give --mode auto, gate or cost")
    if requested != "auto":
        return requested
    if event.name in PULL_REQUESTS:
        return "gate"
    if event.name == PUSH:
        return "cost"
    said = f"the event {event.name!r}" if event.name else "no GitHub event (GITHUB_EVENT_NAME is not set)"
    raise ConfigError(
        f"--mode auto gates a pull_request and counts a push, and this run has {said}: give --mode gate or --mode cost"
    )
