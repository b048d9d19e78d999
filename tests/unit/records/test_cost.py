"""Cost records and the cost-baseline store: round trips, keys, corrupt files, the results file."""

import json

import pytest

from serverbench.errors import BaselineError
from serverbench.records import jsonfile
from serverbench.records.cost import (
    CostBaselineStore,
    CostRecord,
    FunctionCost,
    ProcessCount,
    add_to_results_file,
    environment_id,
)

ENV = {
    "interpreter": "cpython-3.11.7",
    "isa": "x86-64-v3",
    "libc": "glibc-2.36",
    "valgrind": "3.19.0",
    "packages": {"flask": "3.1.3"},
}


def make(instructions=1_000_000, requests=100, packages=None):
    env = {**ENV, "packages": packages or ENV["packages"]}
    return CostRecord(
        "t::c",
        "waitress-t4",
        "flask",
        "json",
        "/json",
        requests,
        instructions,
        (ProcessCount(7, "python -m waitress", instructions),),
        (FunctionCost("c", "f", "libpython3.11.so.1.0", "cpython", "interpreter", 10.0),),
        env,
        2.5,
    )


def test_key_names_cell_workload_and_request_count():
    """The key holds what the count depends on besides the environment: cell, workload, N."""
    assert make().key == "waitress-t4/flask/json/n100"
    assert make().per_request == 10_000


def test_record_round_trips_through_json():
    """A record written to JSON reads back equal."""
    r = make()
    assert CostRecord.from_record(json.loads(json.dumps(r.to_record({"status": "pass"})))) == r


def test_environment_id_is_not_the_cpu_model():
    """The baseline file is named by interpreter, ISA level, C library and valgrind."""
    assert environment_id(ENV) == "cpython-3.11.7-x86-64-v3-glibc-2.36-valgrind-3.19.0"


def test_store_saves_and_loads(tmp_path):
    """Saved entries load back with their package versions and functions."""
    store = CostBaselineStore(tmp_path, ENV)
    assert store.load() == {}
    assert store.save([make()]) == ["waitress-t4/flask/json/n100"]
    loaded = store.load()["waitress-t4/flask/json/n100"]
    assert loaded.per_request == 10_000 and loaded.packages == {"flask": "3.1.3"}
    assert loaded.functions[0].function == "f"


def test_store_merges_over_existing_entries(tmp_path):
    """Saving one cell keeps the others."""
    store = CostBaselineStore(tmp_path, ENV)
    store.save([make(requests=100)])
    store.save([make(requests=200)])
    assert set(store.load()) == {"waitress-t4/flask/json/n100", "waitress-t4/flask/json/n200"}


def test_corrupt_store_names_the_fix(tmp_path):
    """A corrupt baseline file is an error naming the file and how to restore or re-save it."""
    store = CostBaselineStore(tmp_path, ENV)
    store.path.write_text("{not json")
    with pytest.raises(BaselineError, match="--perf-save-baseline") as info:
        store.load()
    assert store.path.name in str(info.value)
    with pytest.raises(BaselineError):
        store.save([make()])
    assert store.path.read_text() == "{not json"


def test_cost_records_join_the_results_file(tmp_path):
    """Cost records go under "cost" in --perf-json, next to what the timed tests wrote."""
    path = tmp_path / "r.json"
    jsonfile.write_atomic(path, {"schema": 2, "created": "x", "machine": {}, "results": [{"a": 1}], "failures": []})
    add_to_results_file(path, [make().to_record()], {"id": "m"}, "0.1.0")
    data = jsonfile.read(path)
    assert data["results"] == [{"a": 1}]
    assert data["cost"][0]["instructions_per_request"] == 10_000


def test_saved_ran_set_is_taken_from_every_function(tmp_path):
    """A baseline saved with a Python profile keeps the packages that ran, from every function, not only the stored top."""
    python = tuple(FunctionCost("python", f"f{i}", "flask.app", "flask", "framework", 100.0 - i) for i in range(80))
    python += (FunctionCost("python", "tiny", "markupsafe", "markupsafe", "framework", 0.1),)  # below the stored cut
    record = CostRecord(
        "t::c",
        "waitress-t4",
        "flask",
        "json",
        "/json",
        100,
        1_000_000,
        (),
        (),
        {**ENV, "packages": {"flask": "3.1.3", "markupsafe": "3.0.3", "certifi": "2026.10.18"}},
        2.5,
        python_functions=python,
    )
    store = CostBaselineStore(tmp_path, ENV)
    store.save([record])
    assert store.load()[record.key].ran == {"flask", "markupsafe"}
    assert json.loads(store.path.read_text())["entries"][record.key]["ran"] == ["flask", "markupsafe"]


def test_old_entries_derive_the_ran_set_from_their_stored_functions(tmp_path):
    """An entry stored before the ran-set was kept gets it from its stored functions' packages (closure ones only)."""
    store = CostBaselineStore(tmp_path, ENV)
    entry = {
        "per_request": 10.0,
        "packages": {"flask": "3.1.3", "certifi": "2026.10.18"},
        "recorded_at": "x",
        "functions": [FunctionCost("c", "f", "libpython3.11.so.1.0", "cpython", "interpreter", 5.0).to_record()],
        "python_functions": [
            FunctionCost("python", "g", "flask.app", "flask", "framework", 5.0).to_record(),
            FunctionCost("python", "h", "json", "json", "standard library", 1.0).to_record(),
        ],
    }
    jsonfile.write_atomic(store.path, {"schema": 1, "environment": {}, "entries": {"k": entry}})
    assert store.load()["k"].ran == {"flask"}
    store.save([make()])  # merging keeps the old entry as it was: a derived set is never written as a whole one
    assert "ran" not in json.loads(store.path.read_text())["entries"]["k"]


def test_an_entry_without_a_python_profile_has_an_unknown_ran_set(tmp_path):
    """Without a Python profile a pure-Python package may have run unseen: the ran-set is unknown (None)."""
    store = CostBaselineStore(tmp_path, ENV)
    store.save([make()])
    assert store.load()["waitress-t4/flask/json/n100"].ran is None


def test_a_record_keeps_its_python_profile_and_ran_set_through_json():
    """A record's Python functions and the packages that ran read back as written; a record file without them
    (an older one) reads as no Python profile and a ran-set derived from its functions."""
    python = (FunctionCost("python", "g", "flask.app", "flask", "framework", 5.0),)
    r = CostRecord(
        "t::c",
        "waitress-t4",
        "flask",
        "json",
        "/json",
        100,
        1_000_000,
        (),
        make().functions,
        {**ENV, "packages": {"flask": "3.1.3", "cpython": "3.11.7"}},
        2.5,
        python_functions=python,
    )
    back = CostRecord.from_record(json.loads(json.dumps(r.to_record())))
    assert back.python_functions == python and back.ran == {"flask", "cpython"}
    old = {k: v for k, v in r.to_record().items() if k not in ("python_functions", "ran")}
    read = CostRecord.from_record(old)
    assert read.python_functions == () and read.ran is None and read.packages_ran == {"cpython"}


def test_a_baseline_entry_without_functions_loads_with_none(tmp_path):
    """An entry that stored no function lists loads with empty ones and an unknown ran-set, not an error."""
    store = CostBaselineStore(tmp_path, ENV)
    entry = {"per_request": 10.0, "packages": {"flask": "3.1.3"}, "recorded_at": "x"}
    jsonfile.write_atomic(store.path, {"schema": 1, "environment": {}, "entries": {"k": entry}})
    loaded = store.load()["k"]
    assert loaded.functions == () and loaded.python_functions == () and loaded.ran is None


def test_an_old_entrys_ran_set_counts_its_compiled_functions_too(tmp_path):
    """An entry stored before the ran-set was kept: a package seen only among its compiled functions ran too."""
    store = CostBaselineStore(tmp_path, ENV)
    entry = {
        "per_request": 10.0,
        "packages": {"flask": "3.1.3", "markupsafe": "3.0.3"},
        "recorded_at": "x",
        "functions": [FunctionCost("c", "escape", "_speedups.so", "markupsafe", "framework", 5.0).to_record()],
        "python_functions": [FunctionCost("python", "g", "flask.app", "flask", "framework", 5.0).to_record()],
    }
    jsonfile.write_atomic(store.path, {"schema": 1, "environment": {}, "entries": {"k": entry}})
    assert store.load()["k"].ran == {"flask", "markupsafe"}
