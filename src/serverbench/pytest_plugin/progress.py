"""The live progress line, wired into pytest: registered only when the session's output is a terminal.

The line sits just below pytest's own output (its dots or verbose lines).  Before pytest writes a
result the line is erased, after it the line is drawn again, and the cursor is put back where pytest
left it, so pytest's output is unchanged.  The line is written to a duplicate of the terminal's file
descriptor taken at start-up, which output capture does not redirect, so the measuring code can
report phases from inside a running test.  Phases come from :class:`PerfSession.progress`, which the
servers and the trial call (start, verify, warm-up round k, measure).
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO

import pytest
from rich.control import Control
from rich.segment import ControlType

from ..catalog.shapes import LoadShape
from ..errors import ServerbenchError
from ..report.progress import Status, phase_text, planned_seconds, render, time_left
from ..session.perf import PerfSession

ERASE_LINE = str(Control((ControlType.ERASE_IN_LINE, 2)))


def terminal_stream() -> IO[str] | None:
    """A private handle on the terminal pytest writes to, or None when that output is not a terminal."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    if not os.isatty(fd):
        return None
    return os.fdopen(os.dup(fd), "w", buffering=1, encoding="utf-8", errors="replace")


def is_perf(item: pytest.Item) -> bool:
    return "perf_trial" in getattr(item, "fixturenames", ())


def describe(item: pytest.Item) -> str:
    """The cell of a perf test: variant/app workload shape."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "perf_variant" not in params:
        return item.name
    cell = f"{params['perf_variant']}/{params['perf_app']}" if params.get("perf_app") else params["perf_variant"]
    shape = params.get("perf_shape")
    return " ".join(str(p) for p in (cell, params.get("perf_workload", ""), getattr(shape, "label", "")) if p)


class ProgressLine:
    """A pytest plugin object showing, while perf tests run, the cell (i of N), its phase and the time left."""

    def __init__(self, config: pytest.Config, session: PerfSession, stream: IO[str]):
        self._config = config
        self._session = session
        self._out = stream
        self._items: dict[str, int] = {}
        self._names: dict[str, str] = {}
        self._planned: list[float] = []
        self._finished = 0
        self._spent = 0.0
        self._started = 0.0
        self._current: str | None = None
        self._phase = ""
        self._drawn = False

    # --- what pytest tells us -------------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        perf = [i for i in session.items if is_perf(i)]
        config = self._session.config
        self._items = {item.nodeid: n for n, item in enumerate(perf)}
        self._names = {item.nodeid: describe(item) for item in perf}
        self._planned = []
        for item in perf:
            window, around = self._load(item)
            # A run with a lead-in (oha's closed model) warms up in it: no warm-up rounds unless more than one.
            rounds = self._session.warmup_rounds if not around or self._session.warmup_rounds > 1 else 0
            self._planned.append(planned_seconds(config.warmup, rounds, window, around, config.replicates))

    def _load(self, item: pytest.Item) -> tuple[int, int]:
        """A cell's window and the load its driver runs around it (oha's lead-in and trail), sized to the cell as
        the perf fixture sizes them (catalog.windows); the configured duration where the item names no cell."""
        params = getattr(getattr(item, "callspec", None), "params", {})
        shape, workload, variant = params.get("perf_shape"), params.get("perf_workload"), params.get("perf_variant")
        if not isinstance(shape, LoadShape) or not isinstance(workload, str) or not isinstance(variant, str):
            return self._session.config.duration, 0
        try:
            sized = self._session.cell_shape(shape, workload, variant)
            driver = self._session.driver_for(sized, workload, variant)
        except (ServerbenchError, KeyError):
            return shape.duration, 0
        around = (
            0
            if sized.rate is not None or sized.workers is not None
            else getattr(driver, "lead_s", 0) + getattr(driver, "trail_s", 0)
        )
        return sized.duration, around

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_logstart(self, nodeid: str, location):
        self.clear()
        yield
        if nodeid in self._items:
            self._current, self._started, self._phase = nodeid, time.monotonic(), "setup"
        self.draw()

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport):
        self.clear()
        yield
        self.draw()

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_logfinish(self, nodeid: str, location):
        self.clear()
        yield
        if nodeid == self._current:
            self._finished += 1
            self._spent += time.monotonic() - self._started
            self._current = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self.close()

    def pytest_keyboard_interrupt(self) -> None:
        self.close()

    def pytest_unconfigure(self) -> None:
        self.close()

    # --- what the measuring code tells us ---------------------------------------------------
    def phase(self, phase: str, round: int = 0) -> None:
        """The session's progress listener: a phase of the running cell began.  Called inside a test, where
        pytest's own output is captured, so pytest's writer is not flushed here (the hooks did that)."""
        self._phase = phase_text(phase, round)
        self.clear(flush=False)
        self.draw(flush=False)

    # --- drawing ------------------------------------------------------------------------------
    def status(self) -> Status | None:
        if self._current is None:
            return None
        left = time_left(self._planned, self._finished, self._spent, time.monotonic() - self._started)
        return Status(self._items[self._current] + 1, len(self._items), self._names[self._current], self._phase, left)

    def _back(self) -> str:
        """Up to pytest's line, at the column where its output stopped."""
        column = self._config.get_terminal_writer().width_of_current_line
        return str(Control.move(0, -1)) + str(Control.move_to_column(column))

    def draw(self, flush: bool = True) -> None:
        status = self.status()
        if status is None or self._out is None:
            return
        writer = self._config.get_terminal_writer()
        if flush:
            writer.flush()
        self._write("\n\r" + ERASE_LINE + render(status, writer.fullwidth - 1) + self._back())
        self._drawn = True

    def clear(self, flush: bool = True) -> None:
        if not self._drawn or self._out is None:
            return
        if flush:
            self._config.get_terminal_writer().flush()
        self._write(str(Control.move(0, 1)) + "\r" + ERASE_LINE + self._back())
        self._drawn = False

    def _write(self, text: str) -> None:
        """Write to the terminal; a terminal that went away turns the line off, never fails a test."""
        try:
            self._out.write(text)
            self._out.flush()
        except (OSError, ValueError):
            self._out = None

    def close(self) -> None:
        self.clear()
        self._current = None
        if self._out is not None:
            try:
                self._out.close()
            except OSError:
                pass
            self._out = None
