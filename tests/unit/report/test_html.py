"""The report page as HTML: tables, legends, folds and sections drawn from plain values, and the file written."""

import os

from serverbench.report import html, svg
from serverbench.report.charts import (
    Axis,
    Bar,
    BarChart,
    Cell,
    CellRow,
    Column,
    Fold,
    LineChart,
    Note,
    Section,
    Series,
    Table,
    ThroughputChart,
)
from serverbench.report.inputs import Inputs


def line(*names: str) -> LineChart:
    """A line chart with one single-point series per name."""
    return LineChart("t", Axis("x"), Axis("y"), tuple(Series(n, ((1.0, 1.0),)) for n in names))


def test_a_table_marks_numeric_cells_their_sort_keys_and_flags_and_escapes_text():
    """A numeric column's cells get class num, their sort key as data-sort and their flag as a class; text is escaped."""
    block = Table(
        (Column("cell"), Column("rps", numeric=True)),
        ((Cell("a<b>"), Cell("1,000", 1000.0, "sat")), (Cell("c"), Cell("-", None))),
        sortable=True,
    )
    out = html.table(block)
    assert out.startswith(
        '<div class="frame"><table class="sortable"><thead><tr><th>cell</th><th class="num">rps</th></tr></thead>'
    )
    assert '<td>a&lt;b&gt;</td><td class="num sat" data-sort="1000.0">1,000</td>' in out
    assert '<td>c</td><td class="num">-</td>' in out
    assert html.table(Table((Column("x"),), ())).startswith('<div class="frame"><table><thead>')


def test_every_table_scrolls_inside_its_own_frame():
    """A table is wrapped in a frame that scrolls (CSS overflow), so a wide one never widens the page."""
    assert html.table(Table((Column("x"),), ())).endswith("</table></div>")
    assert ".frame{overflow:auto;max-width:100%" in html.asset("report.css")


def test_a_throughput_chart_has_a_key_and_no_legend():
    """Its figure is wide, with a key of what its styles mean and no clickable legend (no series to hide)."""
    out = html.figure(ThroughputChart("json", (CellRow("a", 1.0, 1.0, 2.0),)))
    assert out.startswith('<figure class="plot wide" data-kind="ThroughputChart"><svg class="chart cells"')
    assert '<ul class="key">' in out and 'class="legend"' not in out and "no-baseline: not judged" in out


def test_a_legend_swatch_past_the_palette_is_dashed_like_its_line():
    """The first ten entries are their colour; the eleventh repeats the first colour as a dashed gradient."""
    n = len(svg.PALETTE)
    out = html.legend([f"s{i}" for i in range(n + 1)] + ["<x>"])
    assert f'<li data-series="0"><span class="swatch" style="background:{svg.PALETTE[0]}"></span>s0</li>' in out
    assert f"background:repeating-linear-gradient(90deg,{svg.PALETTE[0]} 0 4px" in out
    assert out.count("repeating-linear-gradient") == 2 and "&lt;x&gt;" in out


def test_a_figure_has_a_legend_only_for_several_series():
    """One series needs no legend; two get one; a bar chart's legend names its groups once each."""
    assert 'class="legend"' not in html.figure(line("a"))
    assert html.figure(line("a", "b")).count("<li ") == 2
    bars = BarChart("cpu", Axis("us"), (Bar("c1", "cpython", 1.0), Bar("c2", "cpython", 2.0), Bar("c1", "pypy", 1.0)))
    out = html.figure(bars)
    assert out.startswith('<figure class="plot" data-kind="BarChart">') and out.count("<li ") == 2


def test_a_fold_is_a_details_element_holding_its_blocks():
    """A fold opens with its summary and holds its blocks, notes escaped."""
    out = html.render_block(Fold("3 more", (Note("a & b"), Note("c"))))
    assert out == '<details><summary>3 more</summary><p class="note">a &amp; b</p><p class="note">c</p></details>'


def test_a_section_counts_its_charts_folded_ones_included():
    """data-charts is the number of charts in the section, also those inside folds (not of its blocks)."""
    s = Section("sweep", "Sweep", "intro <1>", (Note("n"), line("a"), Fold("more", (line("b"), Note("n")))))
    out = html.section(s)
    assert out.startswith('<section id="sweep" data-charts="2"><h2>Sweep</h2><p class="intro">intro &lt;1&gt;</p>')
    assert out.endswith("</section>")


def test_a_page_of_no_results_says_so_and_fetches_nothing():
    """No files: the page says they hold no results; it forbids the network by CSP and escapes its title."""
    out = html.page(Inputs((), ()), title="a <b> report")
    assert out.startswith("<!doctype html>") and f'content="{html.CSP}"' in out
    assert "default-src 'none'" in html.CSP
    assert "<title>a &lt;b&gt; report</title>" in out and "<h1>a &lt;b&gt; report</h1>" in out
    assert "from 0 results file(s) and 0 A/B decision file(s)" in out
    assert '<p class="note">These files hold no results to show.</p>' in out


def test_write_creates_the_folder_and_a_readable_file_of_the_size_returned(tmp_path):
    """The report lands at the path (folders made) readable as the umask allows, no temporary file left beside it."""
    path = tmp_path / "out" / "report.html"
    size = html.write(path, Inputs((), ()), title="t")
    assert size == path.stat().st_size and path.read_text().startswith("<!doctype html>")
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    assert [p.name for p in path.parent.iterdir()] == ["report.html"]
