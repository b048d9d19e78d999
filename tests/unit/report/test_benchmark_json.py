"""A session's cells in pytest-benchmark's JSON format (pure: records in, values out)."""

import dataclasses
import sys

import pytest

from serverbench.errors import ConfigError
from serverbench.report import benchmark_json
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


def test_window_rps_is_every_replicates_throughput_or_the_cells_own_leaving_out_empty_windows():
    """Without replicates the cell's rps is its one window; a window with no good response is left out."""
    r = result("test_throughput::a/flask/json/c64", 1000)
    assert benchmark_json.window_rps(r) == [1000.0]
    r = dataclasses.replace(r, extra={"replicates": {"n": 3, "rps": [800.0, 0.0, 1250.0]}})
    assert benchmark_json.window_rps(r) == [800.0, 1250.0]


def test_a_cell_with_no_good_response_is_no_benchmark():
    """No window with a good response: no stats and no benchmark entry (a time of 1/0 is not a round)."""
    r = result("test_throughput::a/flask/json/c64", 0)
    assert benchmark_json.stats(r) is None and benchmark_json.benchmark(r, {"status": "pass"}) is None


def test_a_benchmark_is_named_by_its_test_and_grouped_by_workload_and_shape():
    """name is the test's part of the node id, param its brackets; group is workload and shape; no verdict is None."""
    r = result("test_throughput::a/flask/json/c64", 1000)
    bench = benchmark_json.benchmark(r, None)
    assert (bench["name"], bench["fullname"], bench["param"]) == ("test_throughput[x]", "test_throughput[x]", "x")
    assert bench["group"] == "json c64" and bench["params"]["app"] == "flask"
    assert bench["extra_info"]["verdict"] is None and bench["extra_info"]["rps"] == 1000.0
    bare = benchmark_json.benchmark(dataclasses.replace(r, nodeid="t.py::test_one", app=""), None)
    assert (bare["name"], bare["param"], bare["params"]["app"]) == ("test_one", None, None)


def test_machine_info_takes_the_sessions_machine_and_interpreter():
    """Architecture, CPU, cores, machine id and the measured interpreter come from the records, not this process."""
    info = benchmark_json.machine_info(
        {"id": "m1", "arch": "riscv64", "cpu": "Some CPU", "cores": 96}, {"implementation": "PyPy", "version": "3.9.18"}
    )
    assert info["machine"] == "riscv64" and info["serverbench_machine_id"] == "m1"
    assert info["cpu"] == {"brand_raw": "Some CPU", "count": 96, "arch": "riscv64"}
    assert (info["python_implementation"], info["python_version"]) == ("PyPy", "3.9.18")


def test_the_document_reads_the_interpreter_of_the_first_result_and_leaves_out_empty_cells():
    """Cells with no response are not benchmarks; machine_info names the interpreter measured."""
    measured = result("test_throughput::a/flask/json/c64", 1000, impl="PyPy")
    empty = result("test_throughput::b/flask/json/c64", 0)
    doc = benchmark_json.document([(measured, None), (empty, None)], {"id": "m1"}, {"id": "abc"}, "9.9")
    assert [b["params"]["variant"] for b in doc["benchmarks"]] == ["a"]
    assert doc["machine_info"]["python_implementation"] == "PyPy"
    assert doc["commit_info"] == {"id": "abc"} and doc["serverbench"] == "9.9"


def test_without_pytest_benchmark_the_format_is_refused_with_the_install_line(monkeypatch):
    """A missing pytest-benchmark is a ConfigError naming the option and the pip command; commit_info still answers."""
    monkeypatch.setitem(sys.modules, "pytest_benchmark.stats", None)
    monkeypatch.setitem(sys.modules, "pytest_benchmark.utils", None)
    with pytest.raises(ConfigError, match=r"--perf-benchmark-json .*install it \(`pip install pytest-benchmark`"):
        benchmark_json.check_available()
    assert benchmark_json.commit_info()["id"] == "unknown"
