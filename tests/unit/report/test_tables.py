"""Whole tables (report.tables): a column that does not wrap keeps its widest cell, one that wraps its longest word,
and a table outside a terminal is as wide as it needs."""

from serverbench.report.tables import Column, column_widths, frame_width, render_table

COLUMNS = (Column("cell"), Column("rps", "right"), Column("flags", wraps=True))
ROWS = (("gunicorn-sync-w2/flask", "46,321", "littles-law stall neighbours"), ("aiohttp/aiohttp", "812", "-"))


def test_a_table_that_fits_and_one_outside_a_terminal_keep_every_column_at_its_widest_cell():
    """At a width it fits in, and with no width (not a terminal), each column is its widest cell."""
    full = [22, 6, 28]
    assert column_widths(COLUMNS, ROWS, 200) == full
    assert column_widths(COLUMNS, ROWS, None) == full


def test_a_narrow_width_wraps_the_text_columns_down_to_their_longest_word_and_no_further():
    """Short of room, only the column that wraps narrows, never below its longest word, however narrow the width."""
    assert column_widths(COLUMNS, ROWS, 22 + 6 + 20 + frame_width(3)) == [22, 6, 20]
    assert column_widths(COLUMNS, ROWS, 40) == [22, 6, len("littles-law")]


def test_a_rendered_table_keeps_numbers_and_words_whole_at_any_width():
    """At 30 columns the table is as wide as its whole cells need, with no "…" and the flags wrapped between words."""
    lines = render_table("t", COLUMNS, ROWS, 30).splitlines()
    assert "…" not in "".join(lines)
    assert max(len(line.rstrip()) for line in lines) == 22 + 6 + 11 + frame_width(3)
    assert lines[4] == "│ gunicorn-sync-w2/flask │ 46,321 │ littles-law │"
    assert [line.split("│")[3].strip() for line in lines[5:7]] == ["stall", "neighbours"]
