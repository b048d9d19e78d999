"""History (report.sections.history): each cell's runs over time on one machine, the change points found in a long
enough series with each level dashed, and shorter series in one chart per machine."""

from serverbench.catalog.shapes import LoadShape
from serverbench.report.charts import LineChart, Note, Series
from serverbench.report.inputs import Inputs
from tests.unit.report.sample_inputs import ids, run, section, shaped


def test_history_of_two_runs_is_one_overview_chart():
    """A cell in two runs on one machine is drawn; too few runs to search for change points is said."""
    first = run("n1", [shaped("a", 1000, LoadShape(64))])
    second = run("n2", [shaped("a", 1100, LoadShape(64))], created="2026-11-11T00:00:00+00:00")
    s = section(Inputs((first, second), ()), "history")
    assert "at least 8 runs" in s.blocks[0].text
    assert isinstance(s.blocks[1], LineChart) and len(s.blocks[1].series) == 1


def test_history_marks_a_sustained_drop():
    """Eight runs at ~1000 rps then eight at ~700: the change point is marked at the ninth run."""
    values = [1000, 1010, 990, 1005, 995, 1002, 998, 1008, 700, 705, 695, 702, 698, 701, 699, 703]
    runs = [
        run(f"n{i:02d}", [shaped("a", v, LoadShape(64))], created=f"2026-11-{i + 1:02d}T00:00:00+00:00")
        for i, v in enumerate(values)
    ]
    s = section(Inputs(tuple(runs), ()), "history")
    chart = s.blocks[1]
    assert [m.label for m in chart.marks] == ["-30%"] and chart.marks[0].x == 8.0  # days since the first run
    assert "Change points found" in s.blocks[0].text


def test_each_level_is_drawn_dashed_at_its_median():
    """The drop's two levels are dashed lines at the median of their runs (1001 and 700.5 rps), each spanning its
    runs' days; the note names the run the change starts at."""
    values = [1000, 1010, 990, 1005, 995, 1002, 998, 1008, 700, 705, 695, 702, 698, 701, 699, 703]
    runs = [
        run(f"n{i:02d}", [shaped("a", v, LoadShape(64))], created=f"2026-11-{i + 1:02d}T00:00:00+00:00")
        for i, v in enumerate(values)
    ]
    note, chart = section(Inputs(tuple(runs), ()), "history").blocks
    assert chart.title == "a/flask/json/c64 on m1" and chart.x.label == "days since 2026-11-01T00:00:00+00:00"
    assert chart.series[1:] == (
        Series("level 1", ((0.0, 1001.0), (7.0, 1001.0)), dashed=True),
        Series("level 2", ((8.0, 700.5), (15.0, 700.5)), dashed=True),
    )
    assert "test_throughput::a/flask/json/c64: 2026-11-09T00:00:00+00:00: 1,001 -> 700 rps (-30.0%" in note.text


def test_a_steady_series_finds_no_shift_and_a_short_span_is_in_hours():
    """Eight runs an hour apart at ~1000 rps: no change point, no level, x in hours; a stamp without a zone is UTC."""
    values = [1000, 1010, 990, 1005, 995, 1002, 998, 1008]
    runs = [
        run(f"n{i}", [shaped("a", v, LoadShape(64))], created=f"2026-11-10T{i:02d}:00:00{'+00:00' if i else ''}")
        for i, v in enumerate(values)
    ]
    note, chart = section(Inputs(tuple(runs), ()), "history").blocks
    assert note == Note("No sustained shift found.")
    assert chart.x.label == "hours since 2026-11-10T00:00:00" and chart.marks == ()
    assert chart.series == (Series("rps", tuple((float(i), float(v)) for i, v in enumerate(values))),)


def test_one_run_or_cells_in_one_run_each_have_no_history():
    """One results file has no history; two files that share no cell have none either."""
    first = run("n1", [shaped("a", 1000, LoadShape(64))])
    assert "history" not in ids(Inputs((first,), ()))
    second = run("n2", [shaped("b", 1000, LoadShape(64))], created="2026-11-11T00:00:00+00:00")
    assert "history" not in ids(Inputs((first, second), ()))
