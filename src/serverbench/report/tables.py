"""Tables printed whole at any width: a number is never cut, and outside a terminal the table is as wide as it needs.

rich shrinks a table that does not fit its console by narrowing every column alike, cutting a number to "4,6…"
and a header to "p50 …". Here each column's width is set before rich sees it: a column that does not wrap (numbers,
names) is as wide as its widest cell, a text column that wraps gets at least its longest word, and the table is
never narrower than that, however narrow the terminal; a log (width None) gets every column at its full width.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text


@dataclass(frozen=True)
class Column:
    """A column: its header, how its cells are justified, and whether its text may wrap between words when the
    width is short (a column that does not wrap keeps every cell on one line, whole)."""

    header: str
    justify: JustifyMethod = "left"
    wraps: bool = False


def _longest(texts: Sequence[str], words: bool) -> int:
    """The widest line of ``texts`` in terminal cells, or its widest word when ``words``."""
    pieces = [p for t in texts for p in (t.split() if words else t.splitlines())]
    return max((cell_len(p) for p in pieces), default=1)


def column_widths(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int | None) -> list[int]:
    """Each column's text width: every column at its widest cell when the table fits ``width`` (or width is None:
    not a terminal); else the text columns that wrap share what is left, each at least its longest word."""
    cells = [[c.header, *(row[i] for row in rows)] for i, c in enumerate(columns)]
    full = [_longest(texts, words=False) for texts in cells]
    if width is None or sum(full) + frame_width(len(columns)) <= width:
        return full
    least = [_longest(texts, words=True) if c.wraps else w for c, texts, w in zip(columns, cells, full)]
    slack = [w - m for w, m in zip(full, least)]
    spare = max(0, width - frame_width(len(columns)) - sum(least))
    return [m + s * spare // (sum(slack) or 1) for m, s in zip(least, slack)]


def frame_width(count: int) -> int:
    """The cells a table of ``count`` columns adds to its text: a space either side of each, and count + 1 rules."""
    return 3 * count + 1


def render_table(title: str, columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int | None) -> str:
    """``rows`` as a rich table at the widths of :func:`column_widths`, as plain text."""
    widths = column_widths(columns, rows, width)
    table = Table(title=title, title_justify="left")
    for column, w in zip(columns, widths):
        table.add_column(column.header, justify=column.justify, width=w, no_wrap=not column.wraps, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    out = io.StringIO()
    console = Console(file=out, width=sum(widths) + frame_width(len(widths)), color_system=None, force_terminal=False)
    console.print(table)
    return out.getvalue()
