"""Cost records and the cost-baseline store: round trips, keys, corrupt files, the results file."""

import dataclasses
import datetime as dt
import json

import pytest

from serverbench.errors import BaselineError, ServerbenchError
from serverbench.records import cost, jsonfile
from serverbench.records.cost import (
    NOT_RECORDED,
    CostBaseline,
    CostBaselineStore,
    CostRecord,
    CountSpread,
    FunctionCost,
    ProcessCount,
    SystemCounts,
    add_to_results_file,
    cell_key,
    environment_id,
    ran_packages,
    written_from,
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


# Merged from test_mutation_cost_records.py: A cost record's and a cost baseline's exact contents, and the files they
# are kept in (issue 22, mutation survivors of records.cost).
FULL_ENV = {
    "interpreter": "CPython 3.11.7",
    "isa": "x86-64-v3",
    "libc": "glibc-2.36",
    "valgrind": "3.19.0",
    "packages": {"flask": "3.1.3", "werkzeug": "3.0", "idle": "1.0"},
}
C_FN = FunctionCost("c", "PyEval", "libpython3.11.so", "flask", "interpreter", 1234.56)
PY_FN = FunctionCost("python", "view", "app.views", "werkzeug", "app", 20.04)
OTHER_FN = FunctionCost("c", "memcpy", "libc.so.6", "libc", "system", 5.0)


def _record(**changes):
    fields = dict(
        nodeid="t::c",
        variant="waitress-t4",
        app="flask",
        workload="json",
        path="/json",
        requests=3,
        instructions=1000,
        processes=(ProcessCount(7, "python -m waitress", 700), ProcessCount(8, "w", 300)),
        functions=(C_FN, OTHER_FN),
        environment=FULL_ENV,
        wall_s=2.345,
        timestamp="2026-01-01T00:00:00+00:00",
        python_functions=(PY_FN,),
    )
    return CostRecord(**{**fields, **changes})


def test_a_function_costs_record_rounds_to_a_tenth_and_reads_back_typed():
    """Each field by its name, the cost to 0.1; read back as text and a float."""
    assert C_FN.to_record() == {
        "level": "c",
        "function": "PyEval",
        "module": "libpython3.11.so",
        "package": "flask",
        "role": "interpreter",
        "per_request": 1234.6,
    }
    assert FunctionCost.from_record(
        {"level": 1, "function": 2, "module": 3, "package": 4, "role": 5, "per_request": "7"}
    ) == FunctionCost("1", "2", "3", "4", "5", 7.0)


def test_a_records_figures_per_request_and_packages():
    """Instructions over requests; the Python profile's bytecodes summed; the environment's packages (none without)."""
    r = _record()
    assert r.per_request == 1000 / 3 and r.python_per_request == pytest.approx(20.04)
    assert _record(python_functions=(PY_FN, PY_FN)).python_per_request == pytest.approx(40.08)
    assert _record(python_functions=()).python_per_request == 0
    assert r.packages == FULL_ENV["packages"] and _record(environment={}).packages == {}
    assert r.key == cell_key("waitress-t4", "flask", "json", 3) == "waitress-t4/flask/json/n3"


def test_a_records_environment_is_a_read_only_copy():
    """The environment is copied when the record is made and cannot be changed through it."""
    env = dict(FULL_ENV)
    r = _record(environment=env)
    env["isa"] = "changed"
    assert r.environment["isa"] == "x86-64-v3"
    with pytest.raises(TypeError):
        r.environment["isa"] = "x"


def test_the_packages_that_ran_are_those_owning_a_counted_or_profiled_function():
    """Of the environment's packages, those with a C or Python function; a stored set wins over the derived one."""
    assert _record().packages_ran == {"flask", "werkzeug"}
    assert _record(python_functions=()).packages_ran == {"flask"}
    assert _record(ran=frozenset({"idle"})).packages_ran == {"idle"}
    assert _record(ran=frozenset()).packages_ran == frozenset()
    assert ran_packages({"a": "1"}, [FunctionCost("c", "f", "m", "a", "r", 1.0)], [OTHER_FN]) == {"a"}
    assert ran_packages({"a": "1"}) == frozenset()


def test_a_cost_records_json_holds_every_field_rounded():
    """The record: kind, key, the cell, counts (per request to 0.1), each process with its share, the functions
    largest first, the Python bytecodes, the sorted ran-set, the environment, the wall time to 0.01, the verdict."""
    r = _record()
    assert r.to_record({"status": "pass"}) == {
        "kind": "cost",
        "key": "waitress-t4/flask/json/n3",
        "nodeid": "t::c",
        "variant": "waitress-t4",
        "app": "flask",
        "workload": "json",
        "path": "/json",
        "requests": 3,
        "instructions": 1000,
        "instructions_per_request": 333.3,
        "processes": [
            {"pid": 7, "command": "python -m waitress", "instructions": 700, "per_request": 233.3},
            {"pid": 8, "command": "w", "instructions": 300, "per_request": 100.0},
        ],
        "functions": [C_FN.to_record(), OTHER_FN.to_record()],
        "python_functions": [PY_FN.to_record()],
        "python_bytecodes_per_request": 20.0,
        "ran": ["flask", "werkzeug"],
        "system": None,
        "system_absent": "",
        "kept_per_request": None,
        "kept_absent": "",
        "spread": None,
        "kept_requests": 3,
        "kept_uninstrumented": False,
        "stage_note": "",
        "environment": FULL_ENV,
        "wall_s": 2.35,
        "timestamp": "2026-01-01T00:00:00+00:00",
        "verdict": {"status": "pass"},
    }
    assert r.to_record()["verdict"] is None
    assert _record(functions=(OTHER_FN, C_FN)).to_record()["functions"][0]["function"] == "PyEval"


def test_a_record_keeps_only_its_200_largest_functions_per_level(monkeypatch):
    """A --perf-json record lists at most RECORDED_FUNCTIONS functions per level, the largest."""
    many = tuple(FunctionCost("c", f"f{i}", "m", "flask", "r", float(i)) for i in range(205))
    rec = _record(functions=many, python_functions=many).to_record()
    assert cost.RECORDED_FUNCTIONS == 200
    assert len(rec["functions"]) == len(rec["python_functions"]) == 200
    assert rec["functions"][0]["function"] == "f204" and rec["functions"][-1]["function"] == "f5"


def test_a_cost_record_reads_back_typed():
    """Each field from its record, converted; python_functions and ran may be absent (an older record)."""
    rec = _record().to_record()
    back = CostRecord.from_record(json.loads(json.dumps(rec)))
    assert back == _record(
        functions=tuple(FunctionCost.from_record(f) for f in rec["functions"]),
        python_functions=(FunctionCost.from_record(rec["python_functions"][0]),),
        wall_s=2.35,
    )
    assert back.ran == {"flask", "werkzeug"} and back.timestamp == "2026-01-01T00:00:00+00:00"
    old = CostRecord.from_record({k: v for k, v in rec.items() if k not in ("python_functions", "ran")})
    assert old.python_functions == () and old.ran is None
    assert CostRecord.from_record({**rec, "ran": None}).ran is None
    typed = CostRecord.from_record(
        {
            **rec,
            "requests": "3",
            "instructions": "1000",
            "wall_s": "2",
            "processes": [{"pid": "7", "command": 1, "instructions": "5"}],
            "nodeid": 1,
            "variant": 2,
            "app": 3,
            "workload": 4,
            "path": 5,
            "timestamp": 6,
        }
    )
    assert (typed.requests, typed.instructions, typed.wall_s, typed.processes) == (
        3,
        1000,
        2.0,
        (ProcessCount(7, "1", 5),),
    )
    assert (typed.nodeid, typed.variant, typed.app, typed.workload, typed.path, typed.timestamp) == tuple("123456")


def test_a_fresh_record_is_stamped_with_the_time_to_the_second():
    """Without a timestamp a record gets the current UTC time, to the second."""
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    fields = {k: v for k, v in vars(_record()).items() if k not in ("timestamp", "ran")}
    stamp = CostRecord(**fields).timestamp
    assert before <= dt.datetime.fromisoformat(stamp) <= dt.datetime.now(dt.timezone.utc)
    assert "." not in stamp and stamp.endswith("+00:00")


def test_the_environment_id_is_lower_case_filename_safe_text():
    """Interpreter, ISA, C library and valgrind, lower case, runs of other characters as one dash, no end dashes."""
    assert environment_id(FULL_ENV) == "cpython-3.11.7-x86-64-v3-glibc-2.36-valgrind-3.19.0"
    assert environment_id({"interpreter": "_PyPy 7", "isa": "v2", "libc": "musl", "valgrind": "3.2_"}) == (
        "pypy-7-v2-musl-valgrind-3.2"
    )


def _write_store(tmp_path, entries):
    store = CostBaselineStore(tmp_path, FULL_ENV)
    store.path.write_text(json.dumps({"schema": 1, "entries": entries}))
    return store


ENTRY = {
    "per_request": 333.3,
    "packages": {"flask": "3.1.3"},
    "functions": [C_FN.to_record()],
    "python_functions": [PY_FN.to_record()],
    "python_per_request": 20.0,
    "recorded_at": "2026-01-01",
    "ran": ["flask"],
}


def test_a_cost_baseline_entry_reads_every_field():
    """Each stored field into its own; a stored ran-set is taken as stored, not derived."""
    loaded = cost._baseline("k", ENTRY)
    assert loaded == CostBaseline(
        "k",
        333.3,
        {"flask": "3.1.3"},
        (FunctionCost.from_record(C_FN.to_record()),),
        (FunctionCost.from_record(PY_FN.to_record()),),
        "2026-01-01",
        20.0,
        frozenset({"flask"}),
        False,
    )
    old = cost._baseline("k", {k: v for k, v in ENTRY.items() if k not in ("ran", "python_per_request")})
    assert old.ran == {"flask"} and old.ran_derived is True and old.python_per_request == 0.0
    typed = cost._baseline("k", {**ENTRY, "per_request": "5", "recorded_at": 7, "python_per_request": "1"})
    assert (typed.per_request, typed.recorded_at, typed.python_per_request) == (5.0, "7", 1.0)


def test_saving_writes_each_cell_and_the_environment_without_packages(tmp_path):
    """The file holds schema 1, the counting environment without its package versions, and each cell's entry:
    per-request counts to 0.1, the packages, the top functions per level, the ran-set when a Python profile
    was taken, the time."""
    store = CostBaselineStore(tmp_path, FULL_ENV)
    assert store.path == tmp_path / "cpython-3.11.7-x86-64-v3-glibc-2.36-valgrind-3.19.0.json"
    assert store.save([_record(), _record(requests=4, python_functions=())]) == [
        "waitress-t4/flask/json/n3",
        "waitress-t4/flask/json/n4",
    ]
    data = json.loads(store.path.read_text())
    assert data["schema"] == 1 and data["environment"] == {k: v for k, v in FULL_ENV.items() if k != "packages"}
    assert data["entries"]["waitress-t4/flask/json/n3"] == {
        "per_request": 333.3,
        "packages": FULL_ENV["packages"],
        "functions": [C_FN.to_record(), OTHER_FN.to_record()],
        "python_functions": [PY_FN.to_record()],
        "python_per_request": 20.0,
        "recorded_at": "2026-01-01T00:00:00+00:00",
        "ran": ["flask", "werkzeug"],
    }
    assert "ran" not in data["entries"]["waitress-t4/flask/json/n4"]


def test_saving_keeps_the_stored_cells_and_their_ran_sets(tmp_path):
    """Other cells are written back as stored; a stored ran-set is kept, a derived one is not stored."""
    store = _write_store(
        tmp_path,
        {
            "kept": ENTRY,
            "old": {k: v for k, v in ENTRY.items() if k != "ran"},
            "none": {**{k: v for k, v in ENTRY.items() if k != "ran"}, "python_functions": []},
        },
    )
    store.save([_record()])
    entries = json.loads(store.path.read_text())["entries"]
    assert entries["kept"] == ENTRY
    assert entries["old"] == {k: v for k, v in ENTRY.items() if k != "ran"}
    assert "ran" not in entries["none"] and set(entries) == {"kept", "old", "none", "waitress-t4/flask/json/n3"}


def test_a_baseline_stores_only_the_60_largest_functions_per_level(tmp_path):
    """At most STORED_FUNCTIONS functions per level are stored, the largest first."""
    many = tuple(FunctionCost("c", f"f{i}", "m", "flask", "r", float(i)) for i in range(65))
    store = CostBaselineStore(tmp_path, FULL_ENV)
    store.save([_record(functions=many, python_functions=many)])
    (entry,) = json.loads(store.path.read_text())["entries"].values()
    assert cost.STORED_FUNCTIONS == 60 and len(entry["functions"]) == len(entry["python_functions"]) == 60
    assert entry["functions"][0]["function"] == "f64" and entry["functions"][-1]["function"] == "f5"


def test_a_baseline_stores_the_apps_own_functions_below_the_60_largest(tmp_path):
    """A small view (role app) below the 60 largest is stored too, so a later rise in it has a base to diff."""
    many = tuple(FunctionCost("python", f"f{i}", "m", "django", "framework", float(100 + i)) for i in range(65))
    view = FunctionCost("python", "api", "notes.views", "notes", "app", 6.0)
    store = CostBaselineStore(tmp_path, FULL_ENV)
    store.save([_record(python_functions=(*many, view))])
    (entry,) = json.loads(store.path.read_text())["entries"].values()
    assert len(entry["python_functions"]) == 61 and entry["python_functions"][-1] == view.to_record()
    ((_, stored),) = store.load().items()
    assert view in stored.python_functions


def test_a_mismatched_cost_baseline_is_refused_naming_the_fix(tmp_path):
    """Another schema or a malformed entry: a BaselineError naming the file and `pytest -m cost --perf-save-baseline`."""
    for content in ({"schema": 2, "entries": {}}, {"schema": 1, "entries": {"c": {"per_request": 1}}}):
        store = CostBaselineStore(tmp_path, FULL_ENV)
        store.path.write_text(json.dumps(content))
        with pytest.raises(BaselineError) as info:
            store.load()
        assert str(info.value).startswith(f"cost baseline file {store.path} cannot be read: ")
        assert str(info.value).endswith("re-save with `pytest -m cost --perf-save-baseline`.")


def test_cost_records_start_a_results_file_when_there_is_none(tmp_path):
    """No file: one of schema 2 with the version, the time, the machine, no results nor failures, and the records."""
    path = tmp_path / "r.json"
    add_to_results_file(path, [{"key": "a"}], {"id": "m"}, "1.0")
    data = json.loads(path.read_text())
    created = data.pop("created")
    assert data == {
        "schema": 2,
        "serverbench": "1.0",
        "machine": {"id": "m"},
        "results": [],
        "failures": [],
        "cost": [{"key": "a"}],
    }
    assert "." not in created and dt.datetime.fromisoformat(created).tzinfo is not None
    add_to_results_file(path, [{"key": "b"}], {"id": "other"}, "2.0")
    again = json.loads(path.read_text())
    assert again["cost"] == [{"key": "a"}, {"key": "b"}]
    assert (again["serverbench"], again["machine"], again["created"]) == ("1.0", {"id": "m"}, created)


@pytest.mark.parametrize("content", ["{", "[]", '{"cost": {}}', '"text"'])
def test_cost_records_are_not_added_to_what_is_not_a_results_file(tmp_path, content):
    """A file that is not JSON, or not an object with a "cost" list, is refused naming it and the fix, unchanged."""
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ServerbenchError, match="remove it or give --perf-json another path") as info:
        add_to_results_file(path, [{"key": "a"}], {"id": "m"}, "1.0")
    assert str(info.value).startswith(str(path)) and path.read_text() == content


SYSTEM = SystemCounts({"recvfrom": 2.0, "sendto": 1.0, "clock_nanosleep": 1.0}, 154.0, 39.0, 0.005)


def _traced(**kw):
    return dataclasses.replace(make(), system=SYSTEM, kept_per_request=1064.96, **kw)


def test_a_record_keeps_its_system_calls_and_kept_memory_through_json():
    """System calls by name, socket bytes, connections and memory kept per request read back as written."""
    r = _traced()
    data = json.loads(json.dumps(r.to_record()))
    assert data["system"]["calls"] == {"recvfrom": 2.0, "clock_nanosleep": 1.0, "sendto": 1.0}
    assert data["kept_per_request"] == 1065.0
    back = CostRecord.from_record(data)
    assert back.system == SYSTEM and back.system.total == 4.0 and back.kept_per_request == 1065.0


def test_a_record_from_before_system_calls_reads_absent_with_the_reason_not_zero():
    """A record written before these fields has no system counts and says why, rather than zeros."""
    data = make().to_record()
    for key in ("system", "system_absent", "kept_per_request", "kept_absent"):
        data.pop(key)
    old = CostRecord.from_record(data)
    assert old.system is None and old.system_absent == NOT_RECORDED
    assert old.kept_per_request is None and old.kept_absent == NOT_RECORDED


def test_a_baseline_keeps_system_calls_and_an_old_entry_without_them_still_loads(tmp_path):
    """Saved with system calls and memory they load back; an entry stored before them loads with None."""
    store = CostBaselineStore(tmp_path, ENV)
    store.save([_traced()])
    loaded = store.load()[make().key]
    assert loaded.system == SYSTEM and loaded.kept_per_request == 1065.0
    data = json.loads(store.path.read_text())
    for key in ("system", "kept_per_request"):
        data["entries"][make().key].pop(key)
    store.path.write_text(json.dumps(data))
    old = store.load()[make().key]
    assert old.system is None and old.kept_per_request is None
    store.save([dataclasses.replace(make(), variant="other")])  # re-saving another cell keeps the old entry as it was
    assert "system" not in json.loads(store.path.read_text())["entries"][make().key]


def test_a_fresh_count_as_a_baseline_keeps_what_the_verdicts_read():
    """CostBaseline.of: key, per request, packages, both profiles, time, bytecodes, system calls and memory kept."""
    system = SystemCounts({"read": 2.0}, 100.0, 200.0, 0.005)
    r = dataclasses.replace(_record(), system=system, kept_per_request=20.5)
    b = CostBaseline.of(r)
    assert (b.key, b.per_request, b.packages, b.recorded_at) == (r.key, r.per_request, r.packages, r.timestamp)
    assert (b.functions, b.python_functions, b.python_per_request) == (
        r.functions,
        r.python_functions,
        r.python_per_request,
    )
    assert (b.system, b.kept_per_request, b.ran) == (system, 20.5, None)


def _counted(instructions, calls, kept):
    return dataclasses.replace(
        make(instructions), system=SystemCounts(calls, 154.0, 39.0, 0.005), kept_per_request=kept
    )


COUNTS = [
    _counted(1_002_000, {"futex": 3.1, "poll": 1.0}, 0.0),
    _counted(1_000_000, {"futex": 3.5, "poll": 1.0}, 20.5),
    _counted(1_001_000, {"poll": 1.0}, 0.0),
]


def test_the_spread_of_counts_is_each_figures_range_instructions_over_their_median():
    """Instructions 10,000-10,020 a request: 0.2% of the median 10,010; futex 0-3.5 (a count without it reads 0);
    poll, connections agreed (0); memory kept 0-20.5."""
    spread = CountSpread.of(COUNTS)
    assert spread.counts == 3 and spread.instructions == pytest.approx(20 / 10_010)
    assert dict(spread.calls) == {"futex": 3.5, "poll": 0.0}
    assert (spread.connections, spread.kept) == (0.0, 20.5)
    with pytest.raises(ValueError, match="two counts or more"):
        CountSpread.of(COUNTS[:1])


def test_a_spread_of_counts_without_system_calls_or_memory_keeps_none_of_them():
    """A count that traced no system calls and read no memory: those spreads are None, never 0."""
    spread = CountSpread.of([make(1_000_000), make(1_001_000)])
    assert (spread.calls, spread.connections, spread.kept) == (None, None, None)
    back = CountSpread.from_record(spread.to_record())
    assert back == dataclasses.replace(spread, instructions=0.001)  # kept to 6 places: 0.1% of the median


def test_a_baseline_is_written_from_the_median_count_with_the_spread_of_all():
    """Three counts: the middle one by instructions is kept (its own system calls), carrying the spread of the
    three; one count is kept as it is, without a spread."""
    kept = written_from(COUNTS)
    assert kept.per_request == 10_010 and kept.system.calls == {"poll": 1.0}
    assert kept.spread == CountSpread.of(COUNTS)
    assert written_from(COUNTS[:1]) is COUNTS[0] and COUNTS[0].spread is None
    assert written_from(COUNTS[:2]).per_request == 10_020  # even: the upper of the two middle ones
    with pytest.raises(ValueError, match="one count or more"):
        written_from([])


def test_a_baseline_keeps_its_spread_and_an_entry_without_one_still_loads(tmp_path):
    """Saved with a spread it loads back (calls the counts agreed on left out of the file), a record keeps it
    through JSON, and an entry stored before spreads were kept loads with None (judged with the constant)."""
    store = CostBaselineStore(tmp_path, ENV)
    store.save([written_from(COUNTS)])
    entry = json.loads(store.path.read_text())["entries"][make().key]
    assert entry["spread"] == {
        "counts": 3,
        "instructions": 0.001998,
        "calls": {"futex": 3.5},
        "connections": 0.0,
        "kept": 20.5,
    }
    loaded = store.load()[make().key]
    assert loaded.spread.counts == 3 and loaded.spread.calls.get("poll", 0.0) == 0.0
    assert CostRecord.from_record(json.loads(json.dumps(written_from(COUNTS).to_record()))).spread.counts == 3
    del entry["spread"]
    store.path.write_text(json.dumps({"schema": cost.SCHEMA, "environment": {}, "entries": {make().key: entry}}))
    assert store.load()[make().key].spread is None
    store.save([dataclasses.replace(make(), variant="other")])  # re-saving another cell keeps the entry as it was
    assert "spread" not in json.loads(store.path.read_text())["entries"][make().key]


def test_a_fresh_count_as_a_baseline_keeps_its_spread_or_the_one_given():
    """CostBaseline.of carries the record's spread, or the spread of the counts it is said to stand for."""
    assert CostBaseline.of(written_from(COUNTS)).spread == CountSpread.of(COUNTS)
    assert CostBaseline.of(make(), CountSpread(5, 0.01)).spread == CountSpread(5, 0.01)
    assert CostBaseline.of(make()).spread is None


def test_the_committed_cost_baselines_load_without_spreads_as_with_them():
    """The repository's baselines/cost files load; an entry without a spread reads None (not an error)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[3] / "baselines" / "cost"
    for path in folder.glob("*.json"):
        environment = json.loads(path.read_text())["environment"]
        entries = CostBaselineStore(folder, environment).load()
        assert entries and all(e.spread is None or e.spread.counts >= 2 for e in entries.values())


PEERED = SystemCounts(
    {"recvfrom": 4.0, "sendto": 2.0},
    300.0,
    4100.0,
    1.0,
    {
        "clients": SystemCounts({"recvfrom": 2.0, "sendto": 1.0}, 173.0, 40.0, 1.0),
        "redis": SystemCounts({"recvfrom": 2.0, "sendto": 1.0}, 127.0, 4060.0, 0.0),
    },
)


def test_system_counts_keep_their_peers_through_records_and_baselines(tmp_path):
    """Each peer's calls, bytes and connections read back from a record and a stored baseline; counts from before
    peers were followed read back with peers None (not followed), never empty."""
    r = dataclasses.replace(_traced(), system=PEERED)
    data = json.loads(json.dumps(r.to_record()))
    assert data["system"]["peers"]["redis"] == {
        "calls": {"recvfrom": 2.0, "sendto": 1.0},
        "sent": 127.0,
        "received": 4060.0,
        "connections": 0.0,
    }
    back = CostRecord.from_record(data)
    assert back.system == PEERED and back.system.peers["redis"].peers is None
    store = CostBaselineStore(tmp_path, ENV)
    store.save([r])
    assert store.load()[r.key].system == PEERED
    assert "peers" not in SYSTEM.to_record() and SystemCounts.from_record(SYSTEM.to_record()).peers is None


def test_memory_kept_says_how_many_requests_it_was_read_over_and_how():
    """A record read over its window says so by its own request count; one read over 1,000 requests without
    valgrind keeps both; a record from before these fields reads as its window's."""
    window = _traced()
    assert window.kept_over == window.requests and window.to_record()["kept_requests"] == window.requests
    native = _traced(kept_requests=1000, kept_uninstrumented=True)
    back = CostRecord.from_record(json.loads(json.dumps(native.to_record())))
    assert (back.kept_over, back.kept_uninstrumented) == (1000, True)
    data = window.to_record()
    data.pop("kept_requests"), data.pop("kept_uninstrumented")
    old = CostRecord.from_record(data)
    assert (old.kept_over, old.kept_uninstrumented) == (window.requests, False)


def test_a_count_that_did_not_see_the_shared_stage_keeps_why():
    """The stage note survives the record's JSON; a record from before it reads as one that saw the shared stage."""
    noted = _traced(stage_note="counted through its own stage: no mount namespace could be made")
    assert CostRecord.from_record(json.loads(json.dumps(noted.to_record()))).stage_note == noted.stage_note
    data = noted.to_record()
    data.pop("stage_note")
    assert CostRecord.from_record(data).stage_note == ""


def test_a_record_with_its_system_counts_absent_keeps_why_through_json():
    """Figures absent with their reasons (system calls, memory kept) and the stage note read back as written, so a
    reader says why a figure is missing, never shows it as zero."""
    r = dataclasses.replace(
        make(),
        system=None,
        system_absent="valgrind 3.19 wrote no system-call trace for pid 7",
        kept_per_request=None,
        kept_absent="no segment list",
        stage_note="no mount namespace here: the count kept its own stage path",
    )
    back = CostRecord.from_record(json.loads(json.dumps(r.to_record({"status": "pass"}))))
    assert back == r and back.system is None and back.system_absent.startswith("valgrind 3.19")


def test_an_entry_keeps_its_system_counts_memory_and_spread_when_another_is_saved_beside_it(tmp_path):
    """A cell saved with system calls, memory kept and the spread of its counts, then another cell saved beside it
    (the first rewritten from the file): the first loads back with every figure, fractions to the digits stored."""
    store = CostBaselineStore(tmp_path, ENV)
    system = SystemCounts({"futex": 2.125, "sendto": 2.0}, 154.0, 39.0, 1.0)
    spread = CountSpread(5, 0.001234, {"futex": 0.03549, "getpid": 0.0004, "poll": 0.5}, 0.00549, 20.56)
    first = dataclasses.replace(make(), system=system, kept_per_request=1065.56, spread=spread)
    store.save([first])
    store.save([dataclasses.replace(make(), requests=200, instructions=2_000_000)])
    loaded = store.load()[first.key]
    assert loaded.system is not None and dict(loaded.system.calls) == {"futex": 2.125, "sendto": 2.0}
    assert (loaded.system.sent, loaded.system.received, loaded.system.connections) == (154.0, 39.0, 1.0)
    assert loaded.kept_per_request == 1065.6  # to a tenth of a byte
    # calls and connections to a thousandth (a name that rounds to none is left out), memory kept to a tenth
    assert loaded.spread == CountSpread(5, 0.001234, {"futex": 0.035, "poll": 0.5}, 0.005, 20.6)


def test_an_old_record_says_its_figures_were_not_recorded_and_a_new_one_nothing():
    """A record written before system calls and memory were kept reads them absent as not recorded; one written
    with them (its figures present) has no reason; neither was read without valgrind unless it says so."""
    new = make().to_record({"status": "pass"})
    old = {k: v for k, v in new.items() if k not in ("system", "system_absent", "kept_per_request", "kept_absent")}
    old.pop("kept_uninstrumented", None)
    before = CostRecord.from_record(old)
    assert (before.system_absent, before.kept_absent, before.kept_uninstrumented) == (NOT_RECORDED, NOT_RECORDED, False)
    now = {**new, "system": SystemCounts({"sendto": 2.0}, 1.0, 1.0, 1.0).to_record(), "kept_per_request": 0.0}
    now = {k: v for k, v in now.items() if k not in ("system_absent", "kept_absent")}
    after = CostRecord.from_record(now)
    assert (after.system_absent, after.kept_absent) == ("", "")


def test_counts_and_spreads_keep_their_own_copies_of_what_they_were_given():
    """The calls, peers and a spread's calls are frozen copies: changing the dicts they were made from changes
    nothing, and they cannot be written to."""
    calls, peers, spread_calls = (
        {"sendto": 2.0},
        {"redis": SystemCounts({"sendto": 1.0}, 0.0, 0.0, 0.0)},
        {"futex": 1.0},
    )
    counts = SystemCounts(calls, 1.0, 1.0, 1.0, peers)
    spread = CountSpread(5, 0.01, spread_calls, 0.0, 0.0)
    calls["sendto"], spread_calls["futex"] = 9.0, 9.0
    peers.clear()
    assert counts.calls["sendto"] == 2.0 and list(counts.peers) == ["redis"] and spread.calls["futex"] == 1.0
    with pytest.raises(TypeError):
        counts.calls["sendto"] = 3.0  # type: ignore[index]


def test_a_spread_of_counts_that_read_nothing_is_zero():
    """Counts of zero instructions per request (nothing counted) spread 0.0, not a division by zero."""
    zero = dataclasses.replace(make(), instructions=0)
    assert CountSpread.of([zero, zero, zero]).instructions == 0.0


def test_a_spread_keeps_calls_to_a_thousandth_and_leaves_out_those_that_round_to_none():
    """A spread's calls are written to three decimals; one that rounds to 0.000 a request is left out."""
    written = CountSpread(5, 0.01, {"getpid": 0.0004, "futex": 0.03549}, 0.0, 0.0).to_record()
    assert written["calls"] == {"futex": 0.035}
