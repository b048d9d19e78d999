"""The memory section (report.sections.memory): peak PSS beside peak RSS, the PSS an idle kept-alive connection
costs, and PSS over a soak's window with the growth judge's verdict."""

import dataclasses
from pathlib import Path

from serverbench.catalog.shapes import from_label
from serverbench.records.results import ResultsFile, Stored
from serverbench.records.schema import SlowClientReport
from serverbench.report.charts import Bar, BarChart, LineChart
from serverbench.report.inputs import Inputs
from serverbench.report.sections import select
from tests.unit.sample_records import result


def _report_inputs(results):
    return Inputs(
        (
            ResultsFile(
                Path("s.json"),
                2,
                "2026-11-10T00:00:00+00:00",
                {"id": "m1"},
                tuple(Stored(r, None) for r in results),
                (),
            ),
        ),
        (),
    )


def _held(plain):
    """``plain``'s cell holding 1000 idle keep-alive connections beside its 16: 6 MB more at the peak."""
    return dataclasses.replace(
        plain,
        shape=from_label("c16+keepalive1000"),
        server_pss_mb=46.0,
        server_pss_end_mb=45.0,
        slow_clients=SlowClientReport("keepalive", 1000, 1000, (), 5.0, {}),
    )


def test_the_report_memory_section_shows_pss_per_connection_and_growth():
    """PSS/RSS bars per cell, KB per held keep-alive connection against the plain shape, a soak's curve."""
    plain = dataclasses.replace(
        result("t::aiohttp/aiohttp/json/c16", 1000.0),
        shape=from_label("c16"),
        server_pss_mb=40.0,
        server_pss_end_mb=40.0,
    )
    held = _held(plain)
    t = [i * 0.25 for i in range(60)]
    soak = dataclasses.replace(
        plain,
        shape=from_label("c64"),
        server_pss_mb=70.0,
        server_pss_end_mb=70.0,
        memory={"series": {"t_s": t, "pss_mb": [40 + x for x in t]}},
    )
    memory = next(s for s in select(_report_inputs([plain, held, soak])) if s.id == "memory")
    bars = [b for b in memory.blocks if isinstance(b, BarChart)]
    per_conn = next(b for b in bars if b.title.startswith("Memory per idle connection")).bars
    assert [(b.value, b.note) for b in per_conn] == [(5.12, "1000 held")]
    assert any(isinstance(b, LineChart) for b in memory.blocks)


def test_records_without_pss_give_no_memory_section():
    """Older records (peak RSS only) show no memory section."""
    assert "memory" not in [s.id for s in select(_report_inputs([result("t::a/flask/json/c64", 1000.0)]))]


def memory_section(results):
    return next(s for s in select(_report_inputs(results)) if s.id == "memory")


def test_footprint_bars_pair_peak_pss_with_peak_rss_smallest_pss_first():
    """Each cell's latest record gives a PSS and an RSS bar (0 where RSS is missing), cells by PSS ascending; a
    record without PSS has no bars."""
    a = dataclasses.replace(result("t::a/flask/json/c64", 1000.0), server_pss_mb=50.0, server_rss_mb=60.0)
    rerun = dataclasses.replace(a, server_pss_mb=45.0, server_rss_mb=55.0)
    b = dataclasses.replace(result("t::b/flask/json/c64", 1000.0), server_pss_mb=30.0, server_rss_mb=None)
    older = result("t::c/flask/json/c64", 1000.0)
    (chart,) = memory_section([a, b, older, rerun]).blocks
    assert chart.title == "Peak PSS and RSS: json (s)"
    assert chart.bars == (
        Bar("b/flask json c64", "peak PSS", 30.0),
        Bar("b/flask json c64", "peak RSS", 0.0),
        Bar("a/flask json c64", "peak PSS", 45.0),
        Bar("a/flask json c64", "peak RSS", 55.0),
    )


def test_held_connections_without_their_plain_cell_or_of_another_kind_cost_nothing_per_connection():
    """A keep-alive shape with no plain run of its cell and connection count, or slow clients that trickle a request (not
    idle, not kept alive), gives no per-connection chart."""
    plain = dataclasses.replace(
        result("t::a/flask/json/c16", 1000.0), shape=from_label("c32"), server_pss_mb=40.0, server_pss_end_mb=40.0
    )
    held = _held(plain)
    slowloris = dataclasses.replace(
        held, shape=from_label("c32+slowloris10"), slow_clients=SlowClientReport("slowloris", 10, 10, (), 5.0, {})
    )
    titles = [b.title for b in memory_section([plain, held, slowloris]).blocks]
    assert not [t for t in titles if t.startswith("Memory per idle connection")]
