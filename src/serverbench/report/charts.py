"""What a report page is made of, as plain data: sections holding charts, tables and notes.

The section builders (:mod:`serverbench.report.sections`) turn records into these; :mod:`.svg` and
:mod:`.html` draw them.  Nothing here knows about records or about HTML, so the shaping of every
section is unit-tested by comparing these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Axis:
    label: str
    log: bool = False


@dataclass(frozen=True)
class Series:
    """One line: ``(x, y)`` points in x order."""

    name: str
    points: tuple[tuple[float, float], ...]
    dashed: bool = False
    muted: bool = False  # a reference line (drawn grey), not a measured cell


@dataclass(frozen=True)
class Mark:
    """A vertical line at ``x`` (a knee, a change point), with its label."""

    x: float
    label: str


@dataclass(frozen=True)
class LineChart:
    title: str
    x: Axis
    y: Axis
    series: tuple[Series, ...]
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class Bar:
    label: str  # the category (one row of bars)
    group: str  # the series within the category (its colour)
    value: float
    note: str = ""  # shown after the value (a flag such as SAT)


@dataclass(frozen=True)
class BarChart:
    """Horizontal bars: one row per category, one bar per group within it."""

    title: str
    axis: Axis
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class CellRow:
    """One cell of a throughput chart: its throughput (None: the cell failed), its p50 and p99 (None: not measured,
    or known not to be the server's) and how the terminal table marks it (SAT, BND, flags, the verdict)."""

    label: str
    rps: float | None
    p50: float | None = None
    p99: float | None = None
    marks: tuple[str, ...] = ()  # written after the row, in the terminal table's words
    saturated: bool = False  # the load generator or a backend, not the server, may have set the numbers
    flagged: bool = False  # a consistency flag, a failed verdict or an error
    unjudged: bool = False  # no verdict against a stored baseline (no-baseline)
    latency_note: str = ""  # shown instead of the latency ("?", "SYN") when it is not the server's
    tooltip: str = ""


@dataclass(frozen=True)
class ThroughputChart:
    """Throughput bars beside each cell's p50-p99 latency (log), one row per cell, fastest first."""

    title: str
    rows: tuple[CellRow, ...]


@dataclass(frozen=True)
class Interval:
    """One row of an interval chart: an estimate, its interval, the verdict and the raw points behind it."""

    label: str
    estimate: float
    low: float
    high: float
    verdict: str
    points: tuple[float, ...] = ()
    threshold: float | None = None  # drawn as ticks at +/- threshold on this row


@dataclass(frozen=True)
class IntervalChart:
    """Estimates with intervals on one axis (changes in percent), with reference lines (0, thresholds)."""

    title: str
    axis: Axis
    rows: tuple[Interval, ...]
    references: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class Column:
    name: str
    numeric: bool = False


@dataclass(frozen=True)
class Cell:
    """A table cell: what is shown, what it sorts by, and an optional flag class (sat, bnd, fail)."""

    text: str
    sort: float | str | None = None
    flag: str = ""


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    sortable: bool = False


@dataclass(frozen=True)
class Note:
    text: str


@dataclass(frozen=True)
class Fold:
    """Blocks shown folded under a one-line summary (opened with a click)."""

    summary: str
    blocks: tuple[Block, ...]


Block = Union[LineChart, BarChart, IntervalChart, ThroughputChart, Table, Note, Fold]


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    intro: str
    blocks: tuple[Block, ...]

    @property
    def charts(self) -> tuple[Block, ...]:
        """Every chart of the section, folded ones included."""

        def walk(blocks):
            for b in blocks:
                if isinstance(b, Fold):
                    yield from walk(b.blocks)
                elif isinstance(b, (LineChart, BarChart, IntervalChart, ThroughputChart)):
                    yield b

        return tuple(walk(self.blocks))


def optional(value: float | None, digits: int = 1) -> Cell:
    """A numeric table cell that may be missing (shown as a dash, sorted last)."""
    if value is None:
        return Cell("-", None)
    return Cell(f"{value:,.{digits}f}", float(value))
