"""The pytest-benchmark file of a session and the SVG drawing helpers (pure: records in, values out)."""

import dataclasses
import json

import pytest

from serverbench.report import benchmark_json, exports, svg
from serverbench.report.charts import Axis, LineChart, Series
from tests.unit.sample_records import result

pytest.importorskip("pytest_benchmark", reason="pip install pytest-benchmark")


def test_a_round_is_a_measured_window_and_ops_is_rps():
    """Three replicates are three rounds of seconds per response; ops is their harmonic-mean throughput."""
    r = result("test_throughput::a/flask/json/c64", 1000)
    r = dataclasses.replace(r, extra={"replicates": {"n": 3, "rps": [800.0, 1000.0, 1250.0]}})
    stats = benchmark_json.stats(r)
    assert stats["rounds"] == 3 and stats["min"] == pytest.approx(1 / 1250) and stats["max"] == pytest.approx(1 / 800)
    assert stats["ops"] == pytest.approx(3 / (1 / 800 + 1 / 1000 + 1 / 1250))
    assert stats["data"] == pytest.approx([1 / 800, 1 / 1000, 1 / 1250]) and stats["iterations"] == 5000


def test_document_has_pytest_benchmarks_keys(tmp_path):
    """machine_info, commit_info, datetime, version and one benchmark per cell with name, group, params, stats."""
    results = [(result(f"test_throughput::{v}/flask/json/c64", 1000), {"status": "pass"}) for v in ("a", "b")]
    count = exports.write_benchmark_json(tmp_path / "b.json", {"id": "m1", "cores": 2}, results)
    doc = json.loads((tmp_path / "b.json").read_text())
    assert count == 2 and {"machine_info", "commit_info", "benchmarks", "datetime", "version"} <= set(doc)
    bench = doc["benchmarks"][0]
    assert bench["group"] == "json c64" and bench["params"]["variant"] == "a"
    assert set(bench["stats"]) >= {
        "min",
        "max",
        "mean",
        "stddev",
        "rounds",
        "median",
        "iqr",
        "q1",
        "q3",
        "iqr_outliers",
        "stddev_outliers",
        "outliers",
        "ld15iqr",
        "hd15iqr",
        "ops",
        "total",
        "data",
        "iterations",
    }
    assert bench["extra_info"]["verdict"] == "pass"


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
