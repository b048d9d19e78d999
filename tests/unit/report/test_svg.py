"""The SVG drawing of the report's charts (pure: chart values in, SVG text out)."""

from serverbench.report import svg
from serverbench.report.charts import (
    Axis,
    Bar,
    BarChart,
    CellRow,
    Interval,
    IntervalChart,
    LineChart,
    Mark,
    Series,
    ThroughputChart,
)


def test_ticks_cover_the_range():
    """Linear ticks step 1-2-5; log ticks are 1-2-5 per decade over a few decades, decades over many."""
    assert svg.ticks(0, 1000, log=False) == [0, 200, 400, 600, 800, 1000]
    assert svg.ticks(2, 300, log=True) == [2, 5, 10, 20, 50, 100, 200]
    assert svg.ticks(1, 1e6, log=True) == [1, 10, 100, 1000, 1e4, 1e5, 1e6]


def test_line_chart_draws_a_dot_per_point_with_its_value():
    """Every point is a circle whose tooltip names the series and both values."""
    chart = LineChart("t", Axis("connections", log=True), Axis("rps"), (Series("a", ((2, 100.0), (64, 2500.0))),))
    out = svg.line_chart(chart)
    assert out.count("<circle") == 2 and "a: connections 64, rps 2,500" in out


def test_numbers_are_compact_with_three_significant_digits():
    """Millions as M, from ten thousand up as k, hundreds and zero whole with separators, the rest to three digits."""
    assert [svg.number(v) for v in (3_210_000, -25_000, 12_345, 10_000, 9_999, 150, 0, 12.34, 0.25)] == [
        "3.21M",
        "-25k",
        "12.3k",
        "10k",
        "9,999",
        "150",
        "0",
        "12.3",
        "0.25",
    ]


def test_ticks_of_a_flat_range_still_cover_it():
    """A range of one value (a flat line) still gets a tick at that value, not an error or an empty axis."""
    assert 5.0 in svg.ticks(5.0, 5.0, log=False)
    assert svg.ticks(0.0, 0.0, log=False) == [0.0]


def test_domain_pads_the_data_and_includes_zero_for_amounts():
    """A linear amount axis starts at 0 and ends 5% past the top; a log axis pads by 1.25x (2x when flat)."""
    assert svg.domain([100.0, 200.0], Axis("rps"), zero=True) == (0.0, 210.0)
    assert svg.domain([100.0, 200.0], Axis("rps"), zero=False) == (95.0, 205.0)
    assert svg.domain([0.0, 8.0, 64.0], Axis("connections", log=True), zero=False) == (8 / 1.25, 64 * 1.25)
    assert svg.domain([8.0], Axis("connections", log=True), zero=False) == (4.0, 16.0)


def test_domain_of_no_drawable_value_is_a_default_range():
    """No finite value (linear) or no positive one (log) gives 0..1 or 1..10, not an error."""
    assert svg.domain([float("nan")], Axis("y"), zero=True) == (0.0, 1.0)
    assert svg.domain([0.0, -1.0], Axis("y", log=True), zero=False) == (1.0, 10.0)


def test_scale_maps_the_range_onto_the_pixels():
    """Both ends land on the pixel ends; a log scale puts 100 halfway between 10 and 1000; below lo is clamped."""
    linear = svg.scale(0.0, 10.0, 100.0, 200.0, log=False)
    assert (linear(0.0), linear(5.0), linear(10.0)) == (100.0, 150.0, 200.0)
    log = svg.scale(10.0, 1000.0, 0.0, 100.0, log=True)
    assert (log(10.0), log(100.0), log(1000.0), log(1.0)) == (0.0, 50.0, 100.0, 0.0)


def test_series_past_the_palette_repeat_its_colours_dashed():
    """The eleventh series has the first one's colour, dashed; the first ten are solid."""
    n = len(svg.PALETTE)
    assert svg.colour(n) == svg.colour(0) and svg.dashes(n) == ' stroke-dasharray="6 3"'
    assert svg.dashes(n - 1) == ""


def test_a_log_chart_leaves_out_points_it_cannot_place():
    """A zero on a log axis draws no dot (its log is undefined); the others are drawn and joined."""
    chart = LineChart("t", Axis("connections", log=True), Axis("rps"), (Series("a", ((0, 5.0), (2, 1.0), (4, 2.0))),))
    out = svg.line_chart(chart)
    assert out.count("<circle") == 2 and out.count("<polyline") == 1


def test_bar_chart_draws_a_bar_per_value_with_its_note():
    """One rect per bar with category, group and value on hover; the note is written after the value."""
    chart = BarChart(
        "cpu", Axis("us per request"), (Bar("a/flask", "cpython", 12.0, "SAT"), Bar("a/flask", "pypy", 3.5))
    )
    out = svg.bar_chart(chart)
    assert out.count("<rect") == 2
    assert "<title>a/flask cpython: 12</title>" in out and ">12 SAT</text>" in out and ">3.5</text>" in out


def test_interval_chart_draws_threshold_ticks_and_the_estimate_with_its_interval():
    """A gated row has ticks at +/- its threshold; its tooltip gives estimate, interval and verdict in percent."""
    row = Interval("throughput", -0.05, -0.08, -0.02, "regression", points=(-0.1, 0.0), threshold=0.03)
    out = svg.interval_chart(IntervalChart("A/B", Axis("change"), (row,), (Mark(0.0, "no change"),)))
    assert out.count('class="threshold"') == 2 and "minimum effect +3%" in out and "minimum effect -3%" in out
    assert "throughput: -5.0% [-8.0%, -2.0%] regression" in out and out.count('class="pair"') == 2
    assert f'fill="{svg.VERDICT_COLOURS["regression"]}"' in out


def cells(*rows: CellRow) -> list[str]:
    """The throughput chart of ``rows``, cut into one piece per row (its <g class="cell ...">)."""
    out = svg.throughput_chart(ThroughputChart("json", rows))
    return out.split('<g class="cell')[1:]


def test_throughput_chart_draws_a_bar_a_p50_dot_and_a_p99_tick_per_cell():
    """Each cell is a bar with its throughput written after it, a line from p50 to p99, a dot and a tick."""
    (row,) = cells(CellRow("a/flask", 12_345.0, 1.5, 9.0, tooltip="a/flask: 12,345 rps"))
    assert row.startswith('"><title>a/flask: 12,345 rps</title>') and ">12,345</text>" in row
    assert row.count('class="bar"') == row.count('class="p50"') == row.count('class="p99"') == 1
    assert f'fill="{svg.BAR}" fill-opacity="1"' in row and "stroke=" not in row.split('class="bar"')[1].split("/>")[0]


def test_throughput_chart_marks_saturated_flagged_and_unjudged_cells():
    """SAT is an orange bar, a flagged cell is outlined red, an unjudged one pale; the marks are written after the row."""
    sat, flagged, unjudged = cells(
        CellRow("a", 3.0, 1.0, 2.0, ("SAT",), saturated=True),
        CellRow("b", 2.0, 1.0, 2.0, ("neighbours",), flagged=True),
        CellRow("c", 1.0, 1.0, 2.0, ("no-baseline",), unjudged=True),
    )
    assert sat.startswith(' sat"') and f'fill="{svg.SATURATED}"' in sat and ">SAT</text>" in sat
    assert flagged.startswith(' flagged"') and f'stroke="{svg.FLAGGED}"' in flagged
    assert f'fill="{svg.FLAGGED}">neighbours</text>' in flagged
    assert unjudged.startswith(' unjudged"') and 'fill-opacity="0.45"' in unjudged


def test_throughput_chart_draws_no_bar_for_a_failed_cell_and_no_latency_it_knows_is_wrong():
    """A failed cell (no throughput) has its label and marks only; a "?" latency is written, not drawn."""
    failed, wrong = cells(
        CellRow("z", None, marks=("error",), flagged=True), CellRow("a", 5.0, 1.0, 2.0, latency_note="?")
    )
    assert failed.startswith(' flagged failed"') and 'class="bar"' not in failed and ">error</text>" in failed
    assert 'class="p50"' not in wrong and 'class="p99"' not in wrong and ">?</text>" in wrong
