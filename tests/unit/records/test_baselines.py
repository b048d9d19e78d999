import dataclasses
import json

import pytest

from serverbench.errors import BaselineError
from serverbench.records.baselines import SCHEMA, Baseline, BaselineStore, read_entries

MACHINE = {"id": "test-cpu-2c-cpython-3.11-wrk-4.1.0", "cpu": "Test CPU", "cores": 2}


def test_save_then_load_round_trip(tmp_path, make_result):
    """Saved cells load back with their figures."""
    store = BaselineStore(tmp_path, MACHINE)
    assert store.save([make_result(rps=1234.0)]) == ["test_x::v/json/c64"]
    loaded = store.load()
    assert loaded["test_x::v/json/c64"].rps == 1234.0
    assert store.path.name == "test-cpu-2c-cpython-3.11-wrk-4.1.0.json"


def test_save_merges_with_stored_cells(tmp_path, make_result):
    """Saving one cell keeps the other stored cells."""
    store = BaselineStore(tmp_path, MACHINE)
    store.save([make_result(variant="a")])
    store.save([make_result(variant="b", rps=10)])
    assert set(store.load()) == {"test_x::a/json/c64", "test_x::b/json/c64"}


def test_corrupt_file_is_an_error_and_is_not_overwritten(tmp_path, make_result):
    """A corrupt baseline names the file and the fix, and saving leaves its bytes untouched."""
    store = BaselineStore(tmp_path, MACHINE)
    store.path.write_text('{"schema": 1, "entries": {"a": ')
    with pytest.raises(BaselineError, match="cannot be read.*git checkout.*--perf-save-baseline"):
        store.load()
    with pytest.raises(BaselineError):
        store.save([make_result()])
    assert store.path.read_text() == '{"schema": 1, "entries": {"a": '


def test_wrong_schema_is_reported(tmp_path):
    """A file of another schema is refused, not misread."""
    store = BaselineStore(tmp_path, MACHINE)
    store.path.write_text(json.dumps({"schema": 99, "entries": {}}))
    with pytest.raises(BaselineError, match="schema 99"):
        store.load()


# Merged from test_mutation_baselines.py: The timed baseline file's exact contents and its refusals (issue 22,
# mutation survivors of records.baselines).
SHORT_MACHINE = {"id": "m-2c", "cpu": "Test CPU", "cores": 2}
ENTRY = {
    "rps": 1234.5,
    "error_rate": 0.001234,
    "p50_ms": 1.5,
    "p99_ms": 9.25,
    "recorded_at": "2026-01-01T00:00:00+00:00",
}


def _store(tmp_path, entries, schema=SCHEMA):
    store = BaselineStore(tmp_path, SHORT_MACHINE)
    store.path.write_text(json.dumps({"schema": schema, "machine": SHORT_MACHINE, "entries": entries}))
    return store


def test_load_reads_every_field_of_an_entry(tmp_path):
    """Each stored figure comes back in its own field, as a float (the date as text), keyed by the cell."""
    loaded = _store(tmp_path, {"c": {**ENTRY, "rps": 7, "error_rate": 0}}).load()
    assert loaded == {"c": Baseline("c", 7.0, 0.0, 1.5, 9.25, "2026-01-01T00:00:00+00:00")}
    assert isinstance(loaded["c"].rps, float) and isinstance(loaded["c"].error_rate, float)


def test_a_missing_file_loads_empty_and_saving_writes_schema_machine_and_rounded_figures(tmp_path, make_result):
    """No file: no cells.  Saving writes the schema, the machine and each cell's rps to 0.1 and error rate to 1e-6."""
    store = BaselineStore(tmp_path / "new", SHORT_MACHINE)
    assert store.load() == {}
    made = make_result(errors={"status": 7})
    result = dataclasses.replace(
        made,
        load=dataclasses.replace(
            made.load, requests=3704, duration_s=3.0, latency_ms={**made.load.latency_ms, "p50": 1.5, "p99": 9.25}
        ),
    )
    assert store.save([result]) == [result.key]
    data = json.loads(store.path.read_text())
    assert data["schema"] == SCHEMA == 1 and data["machine"] == SHORT_MACHINE
    assert data["entries"] == {
        result.key: {
            "rps": 1232.3,
            "error_rate": 0.00189,
            "p50_ms": 1.5,
            "p99_ms": 9.25,
            "recorded_at": "2026-01-01T00:00:00+00:00",
        }
    }
    assert data["entries"][result.key]["rps"] != round(result.rps, 2)
    assert data["entries"][result.key]["error_rate"] != round(result.error_rate, 7)


def test_saving_keeps_every_field_of_the_stored_cells(tmp_path, make_result):
    """A save of one cell writes the other stored cells back with all their figures unchanged."""
    store = _store(tmp_path, {"old": ENTRY})
    store.save([make_result()])
    assert json.loads(store.path.read_text())["entries"]["old"] == ENTRY


def test_a_fresh_result_replaces_the_stored_figures_of_its_cell(tmp_path, make_result):
    """Saving a cell that is stored already writes the new figures over the old ones."""
    result = make_result(rps=50.0)
    store = _store(tmp_path, {result.key: ENTRY})
    store.save([result])
    assert store.load()[result.key].rps == 50.0


@pytest.mark.parametrize(
    "content, found",
    [
        ({"entries": {}}, "schema None, expected 1"),
        ({"schema": 2, "entries": {}}, "schema 2, expected 1"),
        ({"schema": 1}, "'entries'"),
        ({"schema": 1, "entries": {"c": {**ENTRY, "rps": "fast"}}}, "could not convert"),
        ({"schema": 1, "entries": {"c": {k: v for k, v in ENTRY.items() if k != "p99_ms"}}}, "'p99_ms'"),
        ({"schema": 1, "entries": []}, "'list' object has no attribute 'items'"),
        ([1], "'list' object has no attribute 'get'"),
    ],
)
def test_a_mismatched_baseline_file_is_refused_naming_the_file_what_was_found_and_the_fix(tmp_path, content, found):
    """Another schema, no entries, a field missing or not a number: a BaselineError naming the file, the problem,
    that nothing was overwritten, and both fixes (restore it with git, or delete it and re-save)."""
    store = BaselineStore(tmp_path, SHORT_MACHINE)
    store.path.write_text(json.dumps(content))
    with pytest.raises(BaselineError) as info:
        store.load()
    message = str(info.value)
    assert message.startswith(f"baseline file {store.path} cannot be read: ")
    assert found in message
    assert message.endswith(
        f". Nothing was overwritten. Restore it (`git checkout -- m-2c.json` in {tmp_path}) or "
        "delete it and re-save with `pytest -m perf --perf-save-baseline`."
    )


def test_read_entries_builds_each_entry_from_its_key_and_fields(tmp_path):
    """``entry`` gets each key with its stored mapping; the file's schema must be the one asked for."""
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"schema": 5, "entries": {"a": {"x": 1}, "b": {"x": 2}}}))
    assert read_entries(path, 5, lambda key, e: (key, e["x"]), "kind", "cmd") == {"a": ("a", 1), "b": ("b", 2)}
    with pytest.raises(BaselineError, match=r"^kind .* schema 5, expected 4\..*re-save with `cmd`\.$"):
        read_entries(path, 4, lambda key, e: e, "kind", "cmd")
