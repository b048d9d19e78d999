"""How the report names and groups stored results (pure: records in, names and groups out)."""

import dataclasses
from pathlib import Path

from serverbench.catalog.shapes import LoadShape
from serverbench.records.results import ResultsFile, Stored
from serverbench.report import cells
from serverbench.report.inputs import Inputs
from tests.unit.sample_records import result


def run(name: str, *results):
    """A results file called ``name`` holding ``results``."""
    return ResultsFile(
        Path(f"{name}.json"), 2, "2026-11-10T00:00:00+00:00", {"id": "m1"}, tuple(Stored(r, None) for r in results), ()
    )


def entry(source: str, rps: float, connections: int = 64):
    """An entry of ``source`` measuring ``rps`` at ``connections``."""
    r = result(f"test_throughput::a/flask/json/c{connections}", rps)
    return cells.Entry(source, Stored(r, None))


def test_entries_are_every_result_of_every_file_labelled_with_its_source():
    """Each stored result is one entry named by its file's short name, in file then result order."""
    a, b, c = (result(f"test_throughput::{v}/flask/json/c64", 1000) for v in "abc")
    found = cells.entries(Inputs((run("s1", a, b), run("s2", c)), ()))
    assert [(e.source, e.result.variant) for e in found] == [("s1", "a"), ("s1", "b"), ("s2", "c")]


def test_a_cell_is_variant_and_app_or_the_variant_alone():
    """variant/app names a cell; a --perf-target run (no app) is named by its variant alone."""
    r = result("test_throughput::uvicorn/starlette/json/c64", 1000)
    assert cells.cell(r) == "uvicorn/starlette"
    assert cells.cell(dataclasses.replace(r, app="")) == "uvicorn"


def test_interpreter_is_implementation_and_version_with_question_marks_when_unknown():
    """cpython-3.11.7 from the result's python record; a missing field is a '?'."""
    r = result("test_throughput::a/flask/json/c64", 1000, impl="pypy")
    assert cells.interpreter(r) == "pypy-3.11.7"
    assert cells.interpreter(dataclasses.replace(r, python={})) == "?-?"


def test_a_series_name_adds_the_source_only_when_there_are_several():
    """The non-empty parts joined by spaces, followed by the file's name in brackets when the report holds several."""
    e = entry("run1", 1000)
    assert cells.name(e, "a/flask", "", "c64", sources=False) == "a/flask c64"
    assert cells.name(e, "a/flask", "", "c64", sources=True) == "a/flask c64 (run1)"


def test_group_keeps_first_seen_order_and_leaves_out_a_none_key():
    """Entries grouped by key in the order keys first appear; an entry whose key is None is in no group."""
    items = [entry("s", 1), entry("s", 2), entry("s", 3), entry("s", 4)]
    keys = {1: "b", 2: "a", 3: None, 4: "b"}
    groups = cells.group(items, lambda e: keys[int(e.result.rps)])
    assert list(groups) == ["b", "a"]
    assert [int(e.result.rps) for e in groups["b"]] == [1, 4] and [int(e.result.rps) for e in groups["a"]] == [2]


def test_latest_by_keeps_the_last_entry_per_x_in_x_order():
    """A re-run at the same connections replaces the earlier one; the entries come back sorted by connections."""
    items = [entry("s", 100, 64), entry("s", 200, 8), entry("s", 300, 64)]
    latest = cells.latest_by(items, lambda r: r.shape.connections)
    assert [(e.result.shape.connections, int(e.result.rps)) for e in latest] == [(8, 200), (64, 300)]


def test_several_sources_means_more_than_one_results_file():
    """One results file is not several; two are."""
    r = result("test_throughput::a/flask/json/c64", 1000)
    assert not cells.several_sources(Inputs((run("s1", r),), ()))
    assert cells.several_sources(Inputs((run("s1", r), run("s2", r)), ()))


def test_closed_keepalive_is_a_closed_model_run_that_keeps_connections():
    """No rate, no locust workers and no connection per request is closed keep-alive; any of them is not."""
    r = result("test_throughput::a/flask/json/c64", 1000)
    assert cells.closed_keepalive(r)
    for shape in (LoadShape(64, rate=500.0), LoadShape(64, workers=0), LoadShape(64, requests_per_connection=1)):
        assert not cells.closed_keepalive(dataclasses.replace(r, shape=shape)), shape


def test_cpu_per_request_is_server_cpu_over_good_responses_in_microseconds():
    """2 s of server CPU over 5,000 good responses is 400 us each; no CPU or no good response gives None."""
    r = result("test_throughput::a/flask/json/c64", 1000)
    assert cells.cpu_us_per_request(r) == 400.0
    assert cells.cpu_us_per_request(dataclasses.replace(r, server_cpu_s=None)) is None
    none_good = dataclasses.replace(r, load=dataclasses.replace(r.load, requests=0))
    assert cells.cpu_us_per_request(none_good) is None


def test_error_classes_lists_the_non_zero_counts_with_thousands_separators():
    """Each error class that happened, in order, its count grouped by thousands; zero counts are left out."""
    assert cells.error_classes({"connect": 0, "timeout": 1234, "status": 5}) == "timeout 1,234, status 5"
    assert cells.error_classes({"read": 0}) == ""
