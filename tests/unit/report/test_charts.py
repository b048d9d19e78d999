"""The report's building blocks as plain data: which blocks of a section are charts, and a cell that may be missing."""

from serverbench.report.charts import (
    Axis,
    Bar,
    BarChart,
    Cell,
    Column,
    Fold,
    Interval,
    IntervalChart,
    LineChart,
    Note,
    Section,
    Series,
    Table,
    optional,
)

LINE = LineChart("line", Axis("x"), Axis("y"), (Series("a", ((1.0, 2.0),)),))
BARS = BarChart("bars", Axis("rps"), (Bar("cell", "a", 1.0),))
INTERVALS = IntervalChart("intervals", Axis("change"), (Interval("rps", 0.0, -0.1, 0.1, "pass"),))
TABLE = Table((Column("name"),), ((Cell("x"),),))


def test_a_sections_charts_include_the_folded_ones_and_no_table_or_note():
    """Line, bar and interval charts count, in page order, also inside nested folds; tables and notes do not."""
    blocks = (Note("intro"), LINE, TABLE, Fold("more", (BARS, Fold("even more", (INTERVALS, Note("n"))))))
    assert Section("s", "S", "", blocks).charts == (LINE, BARS, INTERVALS)
    assert Section("t", "T", "", (TABLE, Note("n"), Fold("empty", ()))).charts == ()


def test_a_missing_value_is_a_dash_sorted_last():
    """None is shown as '-' with no sort key (sorted last by the page's script)."""
    assert optional(None) == Cell("-", None)


def test_a_value_is_grouped_by_thousands_to_the_digits_asked_and_sorts_by_its_number():
    """1234.56 is '1,234.6' by default, '1,235' with no digits; either sorts by the float itself."""
    assert optional(1234.56) == Cell("1,234.6", 1234.56)
    assert optional(1234.56, digits=0) == Cell("1,235", 1234.56)
    assert optional(0.0) == Cell("0.0", 0.0)
