"""The pytest-benchmark file a session writes (pure: records in, values out)."""

import json

import pytest

from serverbench.report import exports
from tests.unit.sample_records import result

pytest.importorskip("pytest_benchmark", reason="pip install pytest-benchmark")


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
