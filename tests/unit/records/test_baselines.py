import json

import pytest

from serverbench.errors import BaselineError
from serverbench.measure.machine import machine_id, machine_info
from serverbench.records.baselines import BaselineStore

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


def test_machine_id_has_hardware_interpreter_and_driver_but_no_hostname():
    """The machine id is built from CPU, cores, interpreter and driver, never the hostname."""
    import socket

    info = machine_info("wrk-4.1.0")
    assert info["id"].endswith("-wrk-4.1.0")
    assert f"-{info['cores']}c-" in info["id"]
    assert socket.gethostname().lower() not in info["id"]
    assert (
        machine_id({"cpu": "Intel(R) Xeon(R) CPU @ 2.20GHz", "cores": 4, "python": "pypy-3.9", "driver": "wrk-4.1"})
        == "intel-xeon-4c-pypy-3.9-wrk-4.1"
    )
