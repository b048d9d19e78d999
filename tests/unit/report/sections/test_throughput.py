"""The throughput section: per workload, each cell's throughput, p50 and p99, marked as the terminal table marks it
(report.sections.throughput; pure data, no server)."""

import dataclasses
from pathlib import Path

from serverbench.catalog.shapes import LoadShape
from serverbench.records.results import Failure, ResultsFile, Stored
from serverbench.records.schema import Generator
from serverbench.report.inputs import Inputs
from tests.unit.report.sample_inputs import ids, run, section, shaped
from tests.unit.sample_records import result

SATURATED = Generator("locust", "2.0", 1, 4.75, 5.0, 2)


def steady(variant: str, workload: str, connections: int, p99: float = 12.5):
    """A result whose throughput, 1 ms mean latency and connections agree (Little's law holds: its latency is drawn)."""
    return result(f"t::{variant}/flask/{workload}/c{connections}", connections * 1000.0, p99=p99)


def stored(r, status="pass", ratio=None, flags=()):
    """``r`` stored with a verdict and the consistency flags named."""
    verdict = {"status": status} | ({} if ratio is None else {"ratio": ratio})
    return Stored(r, verdict, {"flags": [{"name": f, "message": "seen"} for f in flags]})


def inputs(*items, failures=()):
    return Inputs((ResultsFile(Path("s.json"), 2, "2026-11-10", {"id": "m1"}, tuple(items), tuple(failures)),), ())


def test_each_workload_gets_one_chart_with_its_cells_fastest_first():
    """Two workloads give two charts; rows run from the highest throughput down, each with its p50 and p99."""
    json_cells = [steady("a", "json", 8), steady("b", "json", 16)]
    redis_cell = steady("a", "redis", 4, p99=20.0)
    charts = section(inputs(*(stored(r) for r in (*json_cells, redis_cell))), "throughput").charts
    assert [c.title for c in charts] == [
        "json: throughput and latency per cell",
        "redis: throughput and latency per cell",
    ]
    assert [(r.label, r.rps, r.p50, r.p99) for r in charts[0].rows] == [
        ("b/flask c16", 16_000.0, 1.0, 12.5),
        ("a/flask c8", 8_000.0, 1.0, 12.5),
    ]
    assert charts[1].rows[0].p99 == 20.0


def test_the_throughput_section_comes_first():
    """The answer opens the page: the throughput section, then the summary table."""
    assert ids(Inputs((run("s", [shaped("a", 1000, LoadShape(64))]),), ()))[:2] == ["throughput", "summary"]


def test_saturated_flagged_and_unjudged_cells_are_marked_in_the_tables_words():
    """SAT, a consistency flag by name, a failed verdict with its change and no-baseline; a pass carries no mark."""
    sat = dataclasses.replace(steady("a", "json", 4), generator=SATURATED)
    rows = {
        r.label: r
        for r in section(
            inputs(
                stored(sat, "no-baseline", flags=("generator-saturated",)),
                stored(steady("b", "json", 8), "fail", ratio=0.8, flags=("neighbours",)),
                stored(steady("c", "json", 16)),
            ),
            "throughput",
        )
        .charts[0]
        .rows
    }
    a, b, c = rows["a/flask c4"], rows["b/flask c8"], rows["c/flask c16"]
    assert a.marks == ("SAT", "no-baseline") and a.saturated and a.unjudged and not a.flagged
    assert b.marks == ("neighbours", "fail (-20.0%)") and b.flagged and not b.saturated and not b.unjudged
    assert c.marks == () and not (c.saturated or c.flagged or c.unjudged)
    assert a.tooltip == "a/flask c4: 4,000 rps, p50 1.00 ms, p99 12.50 ms; SAT no-baseline" and a.latency_note == ""


def test_a_latency_the_checks_know_is_wrong_is_not_drawn():
    """Little's law off with no cause outside the harness: "?" instead of the latency, as the terminal table shows."""
    wrong = result("t::a/flask/json/c64", 100.0)  # 100 rps at 1 ms is 0.1 requests in flight, not 64
    row = section(inputs(stored(wrong)), "throughput").charts[0].rows[0]
    assert row.latency_note == "?" and row.tooltip == "a/flask: 100 rps, latency ?"


def test_a_record_with_no_verdict_is_unjudged():
    """A result stored without a verdict is marked "not judged", like no-baseline."""
    row = section(inputs(Stored(result("t::a/flask/json/c64", 100.0), None)), "throughput").charts[0].rows[0]
    assert row.unjudged and row.marks == ("not judged",)


def test_labels_name_the_shape_where_a_workload_ran_at_several():
    """A sweep's rows are told apart by their shape; a single shape is left out of the label."""
    rows = (
        section(inputs(*(stored(shaped("a", rps, LoadShape(c))) for c, rps in ((8, 100.0), (64, 200.0)))), "throughput")
        .charts[0]
        .rows
    )
    assert [r.label for r in rows] == ["a/flask c64", "a/flask c8"]


def test_a_failed_cell_is_a_row_with_no_bar_after_the_measured_ones():
    """A failure of the same workload is the last row: no throughput, marked error, its message on hover."""
    failure = Failure("t[x]", "z", "flask", "json", 64, "did not start")
    rows = section(inputs(stored(result("t::a/flask/json/c64", 1.0)), failures=(failure,)), "throughput").charts[0].rows
    assert [(r.label, r.rps, r.marks, r.flagged) for r in rows][-1] == ("z/flask c64", None, ("error",), True)
    assert rows[-1].tooltip == "z/flask: did not start"


def test_no_result_gives_no_throughput_section():
    """Failures alone are left to the summary table."""
    failure = Failure("t[x]", "z", "flask", "json", 64, "did not start")
    assert ids(inputs(failures=(failure,))) == ["summary"]
