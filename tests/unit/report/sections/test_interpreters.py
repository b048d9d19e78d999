"""Warm-up and interpreters (report.sections.interpreters): each result's warm-up rounds as a line, and a cell's
throughput on each interpreter side by side, as a ratio to the first."""

from serverbench.catalog.shapes import LoadShape
from serverbench.report.charts import LineChart
from serverbench.report.inputs import Inputs
from tests.unit.report.sample_inputs import ids, run, section, shaped


def test_warm_up_rounds_and_interpreters_side_by_side():
    """PyPy's warm-up rounds are a line ending at the measured window; the same key on two interpreters is
    compared, PyPy over CPython."""
    cpython = run("py311", [shaped("a", 1000, LoadShape(64))])
    pypy = run(
        "pypy3",
        [shaped("a", 3000, LoadShape(64), impl="pypy", warm=(500, 1500, 2800))],
        created="2026-11-10T01:00:00+00:00",
    )
    s = section(Inputs((cpython, pypy), ()), "interpreters")
    warm = s.blocks[0]
    assert isinstance(warm, LineChart) and warm.series[0].points == ((1, 500), (2, 1500), (3, 2800), (4, 3000.0))
    table = s.blocks[2]
    assert [c.name for c in table.columns][-1] == "pypy-3.11.7 / cpython-3.11.7"
    assert table.rows[0][-1].text == "3.00"


def test_one_warm_up_round_and_one_interpreter_show_nothing():
    """A single warm-up round draws no line and a cell on one interpreter is not compared: no section."""
    results = [shaped("a", 1000, LoadShape(64), warm=(900,)), shaped("b", 1000, LoadShape(64))]
    assert "interpreters" not in ids(Inputs((run("s", results),), ()))


def test_ratios_are_to_the_first_interpreter_and_a_later_run_replaces_an_earlier():
    """Interpreters in name order; a cell missing on one is a dash there and has no ratio to it; the later of two
    runs of a cell on one interpreter is the one shown."""
    old = run("n1", [shaped("a", 1000, LoadShape(64))])
    new = run(
        "n2",
        [
            shaped("a", 1200, LoadShape(64)),
            shaped("a", 3000, LoadShape(64), impl="pypy"),
            shaped("b", 2000, LoadShape(64), impl="pypy"),
            shaped("b", 500, LoadShape(64), impl="graalpy"),
        ],
        created="2026-11-11T00:00:00+00:00",
    )
    bars, table = section(Inputs((old, new), ()), "interpreters").blocks
    assert bars.title == "Interpreters side by side: cpython-3.11.7 vs graalpy-3.11.7 vs pypy-3.11.7"
    assert [c.name for c in table.columns] == [
        "cell",
        "cpython-3.11.7 rps",
        "graalpy-3.11.7 rps",
        "pypy-3.11.7 rps",
        "graalpy-3.11.7 / cpython-3.11.7",
        "pypy-3.11.7 / cpython-3.11.7",
    ]
    assert [[c.text for c in row] for row in table.rows] == [
        ["a/flask/json/c64", "1,200", "-", "3,000", "-", "2.50"],
        ["b/flask/json/c64", "-", "500", "2,000", "-", "-"],
    ]
