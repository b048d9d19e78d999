"""The connection sweep (report.sections.connections): throughput and p99 against connections, one line per cell
that ran two or more connection counts, and the note naming the peak and the steepest tail."""

from serverbench.catalog.shapes import LoadShape
from serverbench.report.charts import LineChart, Note
from serverbench.report.inputs import Inputs
from tests.unit.report.sample_inputs import ids, run, section, shaped


def test_connection_sweep_is_one_line_per_cell_in_connection_order():
    """Two cells at c2, c64, c256 give two lines in each of the rps and p99 charts, x ascending."""
    results = [
        shaped(v, rps * c, LoadShape(c), p99=c / 10) for v, rps in (("a", 1.0), ("b", 2.0)) for c in (256, 2, 64)
    ]
    s = section(Inputs((run("s", results),), ()), "connections")
    rps, p99 = [b for b in s.blocks if isinstance(b, LineChart)]
    assert [x.name for x in rps.series] == ["a/flask json", "b/flask json"]
    assert rps.series[1].points == ((2, 4.0), (64, 128.0), (256, 512.0))
    assert p99.y.log and p99.series[0].points[-1] == (256, 25.6)


def test_the_note_names_the_highest_throughput_and_the_steepest_p99_growth():
    """a peaks at 900 rps at c64; b's p99 grows 20x from c2 to c64 (a's only 4x): both are said with their values."""
    results = [
        shaped("a", 100, LoadShape(2), p99=1.0),
        shaped("a", 900, LoadShape(64), p99=4.0),
        shaped("b", 200, LoadShape(2), p99=1.0),
        shaped("b", 800, LoadShape(64), p99=20.0),
    ]
    note = section(Inputs((run("s", results),), ()), "connections").blocks[-1]
    assert note == Note(
        "Highest throughput: a/flask json, 900 rps at 64 connections. "
        "Steepest p99 growth: b/flask json, 1.0 ms at 2 to 20.0 ms at 64 connections."
    )


def test_only_keep_alive_closed_runs_sweep_and_a_rerun_replaces_the_earlier():
    """A fixed-rate run and a connection-per-request run are not points of the sweep; a second run at c64 replaces
    the first; a cell at one connection count has no line, and no sweep at all gives no section."""
    results = [
        shaped("a", 100, LoadShape(2)),
        shaped("a", 500, LoadShape(64)),
        shaped("a", 600, LoadShape(64)),
        shaped("a", 50, LoadShape(256, rate=50)),
        shaped("a", 70, LoadShape(128, requests_per_connection=1)),
        shaped("b", 300, LoadShape(64)),
        shaped("b", 40, LoadShape(2, rate=40)),
    ]
    rps = section(Inputs((run("s", results),), ()), "connections").blocks[0]
    assert [(x.name, x.points) for x in rps.series] == [("a/flask json", ((2, 100.0), (64, 600.0)))]
    assert "connections" not in ids(Inputs((run("s", results[3:]),), ()))


def test_lines_of_several_files_name_their_file():
    """With two results files each cell's line is named with the file it came from."""
    first = run("n1", [shaped("a", 100, LoadShape(2)), shaped("a", 500, LoadShape(64))])
    second = run("n2", [shaped("a", 110, LoadShape(2)), shaped("a", 520, LoadShape(64))], created="2026-11-11T00:00")
    rps = section(Inputs((first, second), ()), "connections").blocks[0]
    assert [x.name for x in rps.series] == ["a/flask json (n1)", "a/flask json (n2)"]
