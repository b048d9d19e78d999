"""Charts drawn as inline SVG from Python: no plotting library, no script needed to see them.

Why not a JavaScript library: the report must open from disk with no network, so a library would be
inlined into every file (uPlot 51 KB minified, Chart.js 210 KB, Plotly 3.5 MB), while the charts
here are lines, bars and intervals that take a few hundred lines to draw.  Values show on hover
through SVG ``<title>`` elements (the browser's own tooltip); the page's small script only sorts
the table and hides a series when its legend entry is clicked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Callable

from .charts import Axis, BarChart, CellRow, IntervalChart, LineChart, ThroughputChart

WIDTH = 760
CELLS_WIDTH = 960  # the throughput chart: labels, bars, latencies and marks side by side
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
VERDICT_COLOURS = {
    "pass": "#59a14f",
    "regression": "#e15759",
    "improvement": "#4e79a7",
    "inconclusive": "#f28e2b",
    "rerun": "#f28e2b",
}


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def dashes(index: int) -> str:
    """Series past the palette repeat its colours dashed, so twenty lines stay tell-apart."""
    return "" if index < len(PALETTE) else ' stroke-dasharray="6 3"'


def number(value: float) -> str:
    """A compact axis or tooltip number: 1.5k, 12, 0.25, 3.2M."""
    a = abs(value)
    if a >= 1e6:
        return f"{value / 1e6:.3g}M"
    if a >= 1e4:
        return f"{value / 1e3:.3g}k"
    if a >= 100 or a == 0:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def ticks(lo: float, hi: float, log: bool) -> list[float]:
    """Tick values covering [lo, hi]: 1-2-5 steps (linear) or 1-2-5 per decade (log, fewer over wide ranges)."""
    if log:
        first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        steps = (1, 2, 5) if last - first <= 3 else (1,)
        out = [m * 10.0**e for e in range(first, last + 1) for m in steps]
        return [t for t in out if lo * 0.999 <= t <= hi * 1.001]
    span = hi - lo or abs(hi) or 1.0
    raw = span / 5
    base = 10 ** math.floor(math.log10(raw))
    step = next(m * base for m in (1, 2, 5, 10) if m * base >= raw)
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step + 1e-9) + 1)]


def domain(values: Sequence[float], axis: Axis, zero: bool) -> tuple[float, float]:
    """The drawn range of an axis: the data padded a little (log: positive values only); 0 included
    on a linear axis that measures amounts (``zero``)."""
    vals = [v for v in values if (v > 0 if axis.log else math.isfinite(v))]
    if not vals:
        return (1.0, 10.0) if axis.log else (0.0, 1.0)
    lo, hi = min(vals), max(vals)
    if axis.log:
        return (lo / 1.25, hi * 1.25) if lo != hi else (lo / 2, hi * 2)
    if zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    pad = (hi - lo) * 0.05 or abs(hi) * 0.1 or 1.0
    return (lo if zero and lo == 0 else lo - pad, hi if zero and hi == 0 else hi + pad)


def scale(lo: float, hi: float, a: float, b: float, log: bool) -> Callable[[float], float]:
    """Map data [lo, hi] onto pixels [a, b]."""
    if log:
        llo, lhi = math.log10(lo), math.log10(hi)
        return lambda v: a + (math.log10(max(v, lo)) - llo) / (lhi - llo) * (b - a)
    return lambda v: a + (v - lo) / (hi - lo) * (b - a)


def _open(height: int, kind: str, title: str, width: int = WIDTH) -> list[str]:
    return [
        f'<svg class="chart {kind}" viewBox="0 0 {width} {height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
        f'<text class="title" x="{width / 2:.0f}" y="16" text-anchor="middle">{escape(title)}</text>',
    ]


def _x_axis(
    parts: list[str],
    lo,
    hi,
    sx,
    axis: Axis,
    top: float,
    bottom: float,
    left: float,
    right: float,
    fmt: Callable[[float], str] = number,
) -> None:
    for t in ticks(lo, hi, axis.log):
        x = sx(t)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{top:.1f}" y2="{bottom:.1f}"/>'
            f'<text class="tick" x="{x:.1f}" y="{bottom + 14:.1f}" text-anchor="middle">{fmt(t)}</text>'
        )
    parts.append(
        f'<text class="label" x="{(left + right) / 2:.1f}" y="{bottom + 32:.1f}" '
        f'text-anchor="middle">{escape(axis.label)}</text>'
    )


def _y_axis(parts: list[str], lo, hi, sy, axis: Axis, top: float, bottom: float, left: float, right: float) -> None:
    for t in ticks(lo, hi, axis.log):
        y = sy(t)
        parts.append(
            f'<line class="grid" x1="{left:.1f}" x2="{right:.1f}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end">{number(t)}</text>'
        )
    parts.append(
        f'<text class="label" transform="translate(14 {(top + bottom) / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{escape(axis.label)}</text>'
    )


def line_chart(chart: LineChart, height: int = 320) -> str:
    """Lines with a dot per point (value on hover), vertical marks with their labels."""
    left, right, top, bottom = 64.0, WIDTH - 16.0, 30.0, height - 46.0
    xs = [x for s in chart.series for x, _ in s.points] + [m.x for m in chart.marks]
    ys = [y for s in chart.series for _, y in s.points]
    xlo, xhi = domain(xs, chart.x, zero=False)
    ylo, yhi = domain(ys, chart.y, zero=not chart.y.log)
    sx, sy = scale(xlo, xhi, left, right, chart.x.log), scale(ylo, yhi, bottom, top, chart.y.log)
    parts = _open(height, "line", chart.title)
    _x_axis(parts, xlo, xhi, sx, chart.x, top, bottom, left, right)
    _y_axis(parts, ylo, yhi, sy, chart.y, top, bottom, left, right)
    for mark in chart.marks:
        x = sx(mark.x)
        parts.append(
            f'<g class="mark"><line x1="{x:.1f}" x2="{x:.1f}" y1="{top:.1f}" y2="{bottom:.1f}"/>'
            f'<text x="{x + 3:.1f}" y="{top + 10:.1f}">{escape(mark.label)}</text></g>'
        )
    for i, series in enumerate(chart.series):
        pts = [(sx(x), sy(y)) for x, y in series.points if (y > 0 or not chart.y.log) and (x > 0 or not chart.x.log)]
        dash = ' stroke-dasharray="6 3"' if series.dashed else dashes(i)
        c = "#999" if series.muted else colour(i)
        parts.append(f'<g class="series" data-series="{i}" stroke="{c}" fill="{c}">')
        if len(pts) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            parts.append(f'<polyline fill="none" stroke-width="2"{dash} points="{path}"/>')
        for (px, py), (x, y) in zip(pts, series.points):
            parts.append(
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3"><title>{escape(series.name)}: '
                f"{escape(chart.x.label)} {number(x)}, {escape(chart.y.label)} {number(y)}</title></circle>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _label_width(labels: Sequence[str]) -> float:
    return min(340.0, 12.0 + 6.4 * max((len(t) for t in labels), default=0))


def bar_chart(chart: BarChart) -> str:
    """Horizontal bars, one row per category and one bar per group in it, value written after each bar."""
    categories = list(dict.fromkeys(b.label for b in chart.bars))
    groups = list(dict.fromkeys(b.group for b in chart.bars))
    bar_h, gap = 12.0, 8.0
    row_h = bar_h * len(groups) + gap
    left, right, top = _label_width(categories), WIDTH - 80.0, 30.0
    bottom = top + row_h * len(categories)
    height = int(bottom + 46)
    lo, hi = domain([b.value for b in chart.bars], chart.axis, zero=True)
    sx = scale(lo, hi, left, right, chart.axis.log)
    parts = _open(height, "bar", chart.title)
    _x_axis(parts, lo, hi, sx, chart.axis, top, bottom, left, right)
    for r, category in enumerate(categories):
        y0 = top + r * row_h + gap / 2
        parts.append(
            f'<text class="tick" x="{left - 6:.1f}" y="{y0 + row_h / 2:.1f}" text-anchor="end">'
            f"{escape(category)}</text>"
        )
        for bar in (b for b in chart.bars if b.label == category):
            g = groups.index(bar.group)
            y, x1 = y0 + g * bar_h, sx(bar.value)
            parts.append(
                f'<g class="series" data-series="{g}"><rect class="bar" x="{left:.1f}" y="{y:.1f}" '
                f'width="{max(x1 - left, 1.0):.1f}" height="{bar_h - 2:.1f}" fill="{colour(g)}">'
                f"<title>{escape(category)} {escape(bar.group)}: {number(bar.value)}</title></rect>"
                f'<text class="value" x="{x1 + 4:.1f}" y="{y + bar_h - 3:.1f}">{number(bar.value)}'
                f"{(' ' + escape(bar.note)) if bar.note else ''}</text></g>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _percent(value: float) -> str:
    return f"{value * 100:+.0f}%" if value else "0"


def interval_chart(chart: IntervalChart) -> str:
    """One row per estimate: its raw points (faint), its interval and its estimate, coloured by verdict;
    vertical reference lines (no change, the thresholds)."""
    row_h = 22.0 if len(chart.rows) <= 12 else 15.0
    left, right, top = _label_width([r.label for r in chart.rows]), WIDTH - 16.0, 30.0
    bottom = top + row_h * len(chart.rows)
    height = int(bottom + 46)
    values = [v for r in chart.rows for v in (r.low, r.high, r.estimate, *r.points)] + [m.x for m in chart.references]
    values += [t for r in chart.rows if r.threshold for t in (-r.threshold, r.threshold)]
    lo, hi = domain(values, chart.axis, zero=True)
    sx = scale(lo, hi, left, right, False)
    parts = _open(height, "interval", chart.title)
    _x_axis(parts, lo, hi, sx, chart.axis, top, bottom, left, right, fmt=_percent)
    for mark in chart.references:
        x = sx(mark.x)
        parts.append(
            f'<g class="mark"><line x1="{x:.1f}" x2="{x:.1f}" y1="{top:.1f}" y2="{bottom:.1f}"/>'
            f'<text x="{x + 3:.1f}" y="{top - 2:.1f}">{escape(mark.label)}</text></g>'
        )
    for i, row in enumerate(chart.rows):
        y = top + (i + 0.5) * row_h
        c = VERDICT_COLOURS.get(row.verdict, "#888")
        parts.append(
            f'<g class="row" fill="{c}" stroke="{c}"><text class="tick" x="{left - 6:.1f}" y="{y + 4:.1f}" '
            f'text-anchor="end" stroke="none" fill="currentColor">{escape(row.label)}</text>'
        )
        if row.threshold:
            for t in (-row.threshold, row.threshold):
                parts.append(
                    f'<line class="threshold" x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{y - 8:.1f}" '
                    f'y2="{y + 8:.1f}"><title>minimum effect {t * 100:+.0f}%</title></line>'
                )
        for p in row.points:
            parts.append(
                f'<circle class="pair" cx="{sx(p):.1f}" cy="{y:.1f}" r="2.5" opacity="0.35">'
                f"<title>{_percent(p)}</title></circle>"
            )
        parts.append(
            f'<line x1="{sx(row.low):.1f}" x2="{sx(row.high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke-width="3"/><rect x="{sx(row.estimate) - 4:.1f}" y="{y - 4:.1f}" width="8" height="8">'
            f"<title>{escape(row.label)}: {row.estimate * 100:+.1f}% [{row.low * 100:+.1f}%, "
            f"{row.high * 100:+.1f}%] {escape(row.verdict)}</title></rect></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


BAR, SATURATED, FLAGGED = "#4e79a7", "#f28e2b", "#c62828"  # SAT and flagged as the HTML table colours them


def throughput_chart(chart: ThroughputChart) -> str:
    """One row per cell: its throughput as a bar with the value after it, its latency on a log scale from p50 (dot)
    to p99 (tick), and its marks in the terminal table's words.  A saturated cell's bar is orange, a flagged one is
    outlined red, an unjudged one is pale; a failed cell has no bar."""
    row_h = 16.0
    left, top = _label_width([r.label for r in chart.rows]), 30.0
    marks_w = min(220.0, 8.0 + 6.0 * max((len(" ".join(r.marks)) for r in chart.rows), default=0))
    right = CELLS_WIDTH - 8.0 - marks_w
    middle = left + (right - left) * 0.5
    bar_right, lat_left = middle - 44.0, middle + 16.0
    bottom = top + row_h * len(chart.rows)
    lo, hi = domain([r.rps for r in chart.rows if r.rps is not None], Axis("rps"), zero=True)
    sx = scale(lo, hi, left, bar_right, False)
    latencies = [v for r in chart.rows if not r.latency_note for v in (r.p50, r.p99) if v is not None and v > 0]
    lat_axis = Axis("latency ms: p50 (dot) to p99 (tick)", log=True)
    llo, lhi = domain(latencies, lat_axis, zero=False)
    sl = scale(llo, lhi, lat_left, right, True)
    parts = _open(int(bottom + 46), "cells", chart.title, CELLS_WIDTH)
    _x_axis(parts, lo, hi, sx, Axis("requests per second"), top, bottom, left, bar_right)
    if latencies:
        _x_axis(parts, llo, lhi, sl, lat_axis, top, bottom, lat_left, right)
    for i, row in enumerate(chart.rows):
        y = top + i * row_h
        mid = y + row_h / 2
        states = (
            ("sat", row.saturated),
            ("flagged", row.flagged),
            ("unjudged", row.unjudged),
            ("failed", row.rps is None),
        )
        classes = "".join(f" {name}" for name, on in states if on)
        parts.append(
            f'<g class="cell{classes}"><title>{escape(row.tooltip or row.label)}</title>'
            f'<text class="tick" x="{left - 6:.1f}" y="{mid + 4:.1f}" text-anchor="end">{escape(row.label)}</text>'
        )
        if row.rps is not None:
            x1 = sx(row.rps)
            fill = SATURATED if row.saturated else BAR
            outline = f' stroke="{FLAGGED}" stroke-width="1.5"' if row.flagged else ""
            parts.append(
                f'<rect class="bar" x="{left:.1f}" y="{y + 2:.1f}" width="{max(x1 - left, 1.0):.1f}" '
                f'height="{row_h - 4:.1f}" fill="{fill}" fill-opacity="{0.45 if row.unjudged else 1}"{outline}/>'
                f'<text class="value" x="{x1 + 4:.1f}" y="{mid + 3.5:.1f}">{row.rps:,.0f}</text>'
            )
        parts.append(_latency(row, sl, lat_left, mid))
        if row.marks:
            colour_ = FLAGGED if row.flagged else "#b35900" if row.saturated else "#555"
            parts.append(
                f'<text class="marks" x="{right + 8:.1f}" y="{mid + 4:.1f}" fill="{colour_}">'
                f"{escape(' '.join(row.marks))}</text>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _latency(row: CellRow, sl: Callable[[float], float], left: float, mid: float) -> str:
    """A row's latency marks: a line from p50 to p99 with a dot and a tick, or why none ("?", "SYN")."""
    if row.latency_note:
        return f'<text class="value" x="{left:.1f}" y="{mid + 4:.1f}">{escape(row.latency_note)}</text>'
    p50, p99 = (v if v is not None and v > 0 else None for v in (row.p50, row.p99))
    out = ""
    if p50 is not None and p99 is not None:
        out += (
            f'<line class="spread" x1="{sl(p50):.1f}" x2="{sl(p99):.1f}" y1="{mid:.1f}" y2="{mid:.1f}" stroke="#555"/>'
        )
    if p50 is not None:
        out += f'<circle class="p50" cx="{sl(p50):.1f}" cy="{mid:.1f}" r="3" fill="#333"/>'
    if p99 is not None:
        out += f'<rect class="p99" x="{sl(p99) - 1:.1f}" y="{mid - 5:.1f}" width="2" height="10" fill="#333"/>'
    return out
