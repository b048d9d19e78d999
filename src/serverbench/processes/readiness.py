"""When a starting server's answers to its readiness check say it is ready, still starting, or broken.

A server is ready when its ready path answers 2xx.  No answer (not listening yet), and 502/503/504 (a proxy
whose upstream is not up yet, a server still loading its app), mean "still starting": the executor waits
up to the start timeout.  Any other status (a 500 from an app whose database table is missing, a 404
from a wrong ready path) answered again and again for ``grace_s`` means the server is up and broken: it
is reported at once, with that status, instead of after the whole start timeout (a gate's base arm once
waited 180 s on a 500).  The grace lets a server that blips once while its workers boot still pass.

Pure: the executor (:mod:`.executors`) asks the server and hands each answer here.
"""

from __future__ import annotations

from dataclasses import dataclass

STARTING_STATUSES = frozenset({502, 503, 504})  # the answers of something still starting, waited for
GRACE_S = 2.0  # a broken answer must persist this long (and be seen MIN_ANSWERS times) to end the wait
MIN_ANSWERS = 3


@dataclass
class ReadinessWatch:
    """The answers to a server's readiness check so far; :meth:`see` says what the latest one means."""

    grace_s: float = GRACE_S
    min_answers: int = MIN_ANSWERS
    last_status: int | None = None  # the last status it answered (None: it never answered)
    _broken_since: float | None = None
    _broken_answers: int = 0

    def see(self, status: int | None, now: float) -> str:
        """``status`` answered at ``now`` (None: no answer): "ready", "starting" or "broken"."""
        if status is None:
            return "starting"
        self.last_status = status
        if 200 <= status < 300:
            return "ready"
        if status in STARTING_STATUSES:
            self._broken_since, self._broken_answers = None, 0
            return "starting"
        if self._broken_since is None:
            self._broken_since = now
        self._broken_answers += 1
        if self._broken_answers >= self.min_answers and now - self._broken_since >= self.grace_s:
            return "broken"
        return "starting"
