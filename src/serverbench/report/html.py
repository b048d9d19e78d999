"""The report page: one self-contained HTML file (styles, script and charts inline, nothing fetched).

A Content-Security-Policy of ``default-src 'none'`` is part of the page, so even a stray reference
could not make the browser reach the network.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from collections.abc import Sequence
from html import escape
from importlib.resources import files
from pathlib import Path

from .. import __version__
from . import svg
from .charts import BarChart, Block, Fold, IntervalChart, LineChart, Note, Section, Table, ThroughputChart
from .inputs import Inputs
from .sections import select

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def asset(name: str) -> str:
    return files("serverbench.report").joinpath("assets", name).read_text(encoding="utf-8")


def legend(names: Sequence[str]) -> str:
    def swatch(i: int) -> str:
        c = svg.colour(i)
        return c if i < len(svg.PALETTE) else f"repeating-linear-gradient(90deg,{c} 0 4px,transparent 4px 6px)"

    items = "".join(
        f'<li data-series="{i}"><span class="swatch" style="background:{swatch(i)}"></span>{escape(n)}</li>'
        for i, n in enumerate(names)
    )
    return f'<ul class="legend">{items}</ul>'


def key() -> str:
    """What a throughput chart's styles mean (a key, not a legend: nothing to hide)."""
    items = (
        f'<span class="swatch" style="background:{svg.BAR}"></span>requests per second',
        f'<span class="swatch" style="background:{svg.SATURATED}"></span>SAT or BND: the generator or a backend was busy',
        f'<span class="swatch" style="border:2px solid {svg.FLAGGED};box-sizing:border-box"></span>flagged, failed or an error',
        f'<span class="swatch" style="background:{svg.BAR};opacity:.45"></span>no-baseline: not judged',
        "● p50 to ▮ p99, ms (log)",
    )
    return '<ul class="key">' + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def figure(block: LineChart | BarChart | IntervalChart | ThroughputChart) -> str:
    if isinstance(block, ThroughputChart):
        return f'<figure class="plot wide" data-kind="ThroughputChart">{svg.throughput_chart(block)}{key()}</figure>'
    if isinstance(block, LineChart):
        body, names = svg.line_chart(block), [s.name for s in block.series]
    elif isinstance(block, BarChart):
        body, names = svg.bar_chart(block), list(dict.fromkeys(b.group for b in block.bars))
    else:
        body, names = svg.interval_chart(block), []
    kind = type(block).__name__
    return f'<figure class="plot" data-kind="{kind}">{body}{legend(names) if len(names) > 1 else ""}</figure>'


def table(block: Table) -> str:
    def attrs(numeric: bool, sort, flag: str = "") -> str:
        classes = " ".join(c for c in ("num" if numeric else "", flag) if c)
        out = f' class="{classes}"' if classes else ""
        return out + ("" if sort is None else f' data-sort="{escape(str(sort))}"')

    head = "".join(f"<th{attrs(c.numeric, None)}>{escape(c.name)}</th>" for c in block.columns)
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td{attrs(col.numeric, cell.sort, cell.flag)}>{escape(cell.text)}</td>"
            for col, cell in zip(block.columns, row)
        )
        + "</tr>"
        for row in block.rows
    )
    cls = ' class="sortable"' if block.sortable else ""
    # The frame scrolls (both ways, the header kept in view), so a wide or long table never widens the page.
    return f'<div class="frame"><table{cls}><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>'


def render_block(block: Block) -> str:
    if isinstance(block, Table):
        return table(block)
    if isinstance(block, Note):
        return f'<p class="note">{escape(block.text)}</p>'
    if isinstance(block, Fold):
        return (
            f"<details><summary>{escape(block.summary)}</summary>"
            f"{''.join(render_block(b) for b in block.blocks)}</details>"
        )
    return figure(block)


def section(s: Section) -> str:
    return (
        f'<section id="{s.id}" data-charts="{len(s.charts)}"><h2>{escape(s.title)}</h2>'
        f'<p class="intro">{escape(s.intro)}</p>{"".join(render_block(b) for b in s.blocks)}</section>'
    )


def page(inputs: Inputs, title: str = "serverbench report") -> str:
    """The whole report of ``inputs`` as one HTML document."""
    sections = select(inputs)
    files_given = [str(r.path) for r in inputs.results] + [str(d.path) for d in inputs.decisions]
    nav = "".join(f'<a href="#{s.id}">{escape(s.title)}</a>' for s in sections)
    made = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    body = "".join(section(s) for s in sections) or '<p class="note">These files hold no results to show.</p>'
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{asset('report.css')}</style></head><body>"
        f"<header><h1>{escape(title)}</h1><p>serverbench {__version__}, made {made} from "
        f"{len(inputs.results)} results file(s) and {len(inputs.decisions)} A/B decision file(s).</p>"
        f"<details><summary>Files</summary><p>{escape(', '.join(files_given))}</p></details>"
        f"<nav>{nav}</nav></header>"
        f"{body}<script>{asset('report.js')}</script></body></html>"
    )


def write(path: Path, inputs: Inputs, title: str = "serverbench report") -> int:
    """Write the report atomically (a temporary file renamed over ``path``); returns its size in bytes."""
    text = page(inputs, title).encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a report is for people to open
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return len(text)
