"""Warm-up and interpreters (report.sections.interpreters): each result's warm-up rounds as a line, and a cell's
figures on each interpreter side by side (one throughput chart per workload), as ratios to the first file's."""

import dataclasses

from serverbench.catalog.shapes import LoadShape
from serverbench.report.charts import BarChart, LineChart
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
    assert [c.name for c in table.columns][:4] == ["cell", "interpreter", "rps", "x ref"]
    assert [(row[1].text, row[3].text) for row in table.rows] == [
        ("cpython-3.11.7 (ref)", "ref"),
        ("pypy-3.11.7", "3.00"),
    ]


def test_one_warm_up_round_and_one_interpreter_show_nothing():
    """A single warm-up round draws no line and a cell on one interpreter is not compared: no section."""
    results = [shaped("a", 1000, LoadShape(64), warm=(900,)), shaped("b", 1000, LoadShape(64))]
    assert "interpreters" not in ids(Inputs((run("s", results),), ()))


def test_ratios_are_to_the_first_files_interpreter_and_a_later_run_replaces_an_earlier():
    """Interpreters in the order first seen; a cell missing on one is a dash there and has no ratio to it; the later
    of two runs of a cell on one interpreter is the one shown; one chart per workload."""
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
    assert bars.title == "json: interpreters side by side (cpython-3.11.7 vs pypy-3.11.7 vs graalpy-3.11.7)"
    assert [[c.text for c in row][:4] for row in table.rows] == [
        ["a/flask/json/c64", "cpython-3.11.7 (ref)", "1,200", "ref"],
        ["a/flask/json/c64", "pypy-3.11.7", "3,000", "2.50"],
        ["a/flask/json/c64", "graalpy-3.11.7", "-", "-"],
        ["b/flask/json/c64", "cpython-3.11.7 (ref)", "-", "ref"],
        ["b/flask/json/c64", "pypy-3.11.7", "2,000", "-"],
        ["b/flask/json/c64", "graalpy-3.11.7", "500", "-"],
    ]


def test_each_workload_has_its_own_chart():
    """Cells of two workloads on two interpreters: two charts, each holding its workload's cells only."""
    json_a = shaped("a", 1000, LoadShape(64))
    redis_a = dataclasses.replace(json_a, workload="redis")
    pypy = [dataclasses.replace(r, python={"implementation": "pypy", "version": "3.9.18"}) for r in (json_a, redis_a)]
    s = section(Inputs((run("py311", [json_a, redis_a]), run("pypy3", pypy)), ()), "interpreters")
    charts = [b for b in s.blocks if isinstance(b, BarChart)]
    assert [c.title.split(":")[0] for c in charts] == ["json", "redis"]
    assert {b.group for b in charts[1].bars} == {"cpython-3.11.7", "pypy-3.9.18"}
