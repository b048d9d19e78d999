"""Where a perf session's time goes: a clock of the phases each test passes through.

The measuring code already says when each phase begins (``PerfSession.progress``: the server pool's start, verify
and stop, the trial's warm-up, lead-in, window, trail and analysis); this clock turns those instants into seconds
per test and phase.  The time from a phase's start to the next one's (or to the test's end) is that phase's; what a
test spends before its first phase (fixtures, seeding the backends) is ``other``.  The summary is
``report.phases``; the results file keeps every test's phases (``records.results``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

# The phases, in the order a test passes through them.  "again": a window measured once more in a longer window
# (catalog.windows); "analysis": reading the driver's report and building the record after the load ended.
PHASES = ("start", "verify", "warm-up", "lead-in", "window", "trail", "analysis", "again", "stop", "other")
# The names the measuring code reports (progress) that are not phase names themselves.
ALIASES = {"measure": "window", "setup": "other"}


def phase_name(reported: str) -> str:
    """The phase a reported name counts under (an unknown name counts as ``other``)."""
    name = ALIASES.get(reported, reported)
    return name if name in PHASES else "other"


class PhaseClock:
    """Seconds per phase of each test: ``begin(test)``, then ``phase(name)`` as each phase begins, then ``end()``.

    Inside ``again`` (the window measured once more), the phases the second measurement reports count as ``again``
    until the test ends."""

    def __init__(self, now: Callable[[], float] = time.monotonic):
        self._now = now
        self.tests: dict[str, dict[str, float]] = {}
        self._test: str | None = None
        self._phase = "other"
        self._since = 0.0

    def begin(self, test: str) -> None:
        """A test begins (a test already running ends first)."""
        self.end()
        self._test, self._phase, self._since = test, "other", self._now()
        self.tests.setdefault(test, {})

    def phase(self, reported: str) -> None:
        """Phase ``reported`` begins now (outside a test: ignored)."""
        if self._test is None:
            return
        name = phase_name(reported)
        if self._phase == "again" and name != "stop":
            return  # the second window's own phases are the "again" phase's
        self._close()
        self._phase = name

    def end(self) -> None:
        """The running test ends now."""
        if self._test is None:
            return
        self._close()
        self._test = None

    def _close(self) -> None:
        now = self._now()
        if now > self._since:  # a phase that took no time is not one the test went through
            spent = self.tests[self._test]
            spent[self._phase] = spent.get(self._phase, 0.0) + now - self._since
        self._since = now

    def of(self, test: str) -> Mapping[str, float]:
        """The seconds per phase of ``test`` so far (empty for a test that never began)."""
        return dict(self.tests.get(test, {}))
