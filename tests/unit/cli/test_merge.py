"""serverbench merge: shards' --perf-json files joined into one, as stored, one machine id."""

import json

import pytest

from serverbench.cli import merge
from serverbench.records import results as results_file
from serverbench.records.results import Failure

MACHINE = {"id": "amd-epyc-2c-cpython-3.11-wrk-4.1.0", "cpu": "AMD EPYC", "cores": 2}
OTHER = {"id": "intel-xeon-4c-cpython-3.11-wrk-4.1.0", "cpu": "Intel Xeon", "cores": 4}


@pytest.fixture
def shard(tmp_path, make_result):
    """Write a synthetic shard file: timed results for ``variants``, optional failures and cost records."""

    def write(name, variants, machine=MACHINE, failures=(), cost=(), created=None):
        path = tmp_path / name
        rows = [(make_result(variant=v, rps=1234.5678 + i), {"status": "pass"}) for i, v in enumerate(variants)]
        results_file.write(path, machine, rows, list(failures), "0.1.0")
        data = json.loads(path.read_text())
        if cost:
            data["cost"] = [{"kind": "cost", "key": k, "instructions_per_request": 250_000.0} for k in cost]
        if created:
            data["created"] = created
        path.write_text(json.dumps(data))
        return path

    return write


def test_shards_are_joined_as_stored(shard, tmp_path):
    """Every result, failure and cost record of every shard is in the output, byte-for-byte the stored record."""
    fail = Failure("t::x[waitress]", "waitress", "flask", "json", 64, "server died")
    a = shard("a.json", ["gunicorn-sync-w2", "uwsgi-p2t2"], created="2026-11-23T09:05:00+00:00", cost=["c/1"])
    b = shard("b.json", ["waitress"], failures=[fail], created="2026-11-23T09:01:00+00:00")
    out = tmp_path / "out.json"
    assert merge.main([str(out), str(a), str(b)]) == 0
    merged = json.loads(out.read_text())
    stored = [r for p in (a, b) for r in json.loads(p.read_text())["results"]]
    assert merged["results"] == stored
    assert merged["failures"] == [fail.__dict__]
    assert [c["key"] for c in merged["cost"]] == ["c/1"]
    assert merged["created"] == "2026-11-23T09:01:00+00:00" and merged["machine"] == MACHINE
    again = results_file.read(out)
    assert [s.result.variant for s in again.results] == ["gunicorn-sync-w2", "uwsgi-p2t2", "waitress"]


def test_different_machine_ids_are_refused_naming_files_and_ids(shard, tmp_path, capsys):
    """Shards from two machine ids stop the merge; the error names each file with its id and the override."""
    a, b = shard("a.json", ["aiohttp"]), shard("b.json", ["waitress"], machine=OTHER)
    out = tmp_path / "out.json"
    assert merge.main([str(out), str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert f"{a}: {MACHINE['id']}" in err and f"{b}: {OTHER['id']}" in err and "--allow-mixed-machines" in err
    assert not out.exists()


def test_mixed_machines_merge_when_allowed_and_name_no_machine(shard, tmp_path):
    """--allow-mixed-machines merges, and the file's machine is 'mixed' with both ids."""
    a, b = shard("a.json", ["aiohttp"]), shard("b.json", ["waitress"], machine=OTHER)
    out = tmp_path / "out.json"
    assert merge.main([str(out), str(a), str(b), "--allow-mixed-machines"]) == 0
    machine = results_file.read(out).machine
    assert machine == {"id": "mixed", "ids": sorted([MACHINE["id"], OTHER["id"]])}


def test_cost_only_files_are_not_held_to_one_machine(shard, tmp_path):
    """A file of cost records alone (counts do not depend on the machine) merges with another machine's."""
    a, b = shard("a.json", ["aiohttp"]), shard("b.json", [], machine=OTHER, cost=["c/2"])
    out = tmp_path / "out.json"
    assert merge.main([str(out), str(a), str(b)]) == 0
    assert results_file.read(out).machine == MACHINE


def test_a_cell_in_two_files_is_refused(shard, tmp_path):
    """The same cell in two shards (a file passed twice) is an error naming the cell and both files."""
    a, b = shard("a.json", ["aiohttp", "waitress"]), shard("b.json", ["waitress"])
    with pytest.raises(merge.DuplicateCellError, match=r"waitress.*in both .*a\.json and .*b\.json"):
        merge.merge(tmp_path / "out.json", [a, b])


def test_a_file_that_is_not_a_results_file_is_named(tmp_path, shard, capsys):
    """A stray JSON file stops the merge with its name."""
    stray = tmp_path / "package.json"
    stray.write_text('{"name": "x"}')
    assert merge.main([str(tmp_path / "out.json"), str(shard("a.json", ["aiohttp"])), str(stray)]) == 2
    assert "package.json" in capsys.readouterr().err
