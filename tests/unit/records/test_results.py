"""What a --perf-json results file holds when written, merged and read back, and what it refuses (issue 22, mutation
survivors of records.results)."""

import datetime as dt
import json
import statistics
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverbench.records import results
from serverbench.records.decisions import Measurement, Window
from serverbench.records.results import READABLE, Failure, ResultsFile, ResultsFileError, Skip, Stored
from tests.unit.cli.test_gate import _slower_decision as _decision
from tests.unit.sample_records import result

MACHINE = {"id": "m1", "cores": 2}
FAIL = Failure("t::x[w]", "waitress", "flask", "json", 64, "server died")


def _file(tmp_path, data, name="r.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_a_written_file_holds_schema_version_time_machine_results_with_flags_and_failures(tmp_path):
    """``write`` stores schema 2, the serverbench version, the time to the second, the machine, each result with its
    verdict and its own flags, and the failures; it reads back with the same results, flags and failures."""
    a, b = result("t::v/a/json/c8", 100.0), result("t::w/a/json/c8", 200.0)
    path = tmp_path / "r.json"
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    results.write(
        path,
        MACHINE,
        [(a, {"status": "pass"}), (b, None)],
        [FAIL],
        "1.2.3",
        flags=[[{"name": "littles_law", "text": "x"}], []],
    )
    data = json.loads(path.read_text())
    assert (data["schema"], data["serverbench"], data["machine"]) == (2, "1.2.3", MACHINE)
    created = dt.datetime.fromisoformat(data["created"])
    assert before <= created <= dt.datetime.now(dt.timezone.utc) and "." not in data["created"]
    assert data["created"].endswith("+00:00")
    assert data["results"] == [
        a.to_record({"status": "pass"}, [{"name": "littles_law", "text": "x"}]),
        b.to_record(None, []),
    ]
    assert data["failures"] == [FAIL.__dict__]
    back = results.read(path)
    assert (back.schema, back.created, back.machine, back.failures) == (2, data["created"], MACHINE, (FAIL,))
    assert [s.result for s in back.results] == [a, b] and [s.verdict for s in back.results] == [
        {"status": "pass"},
        None,
    ]
    assert [s.flags for s in back.results] == [("littles_law",), ()]
    assert back.results[0].record == data["results"][0]


def test_written_without_flags_no_record_carries_flags(tmp_path):
    """``write`` without flags stores records without a "flags" key, read back as no flags."""
    path = tmp_path / "r.json"
    results.write(path, MACHINE, [(result("t::v/a/json/c8", 100.0), None)], [], "0")
    assert "flags" not in json.loads(path.read_text())["results"][0]
    assert results.read(path).results[0].flags == ()


def test_flags_are_the_named_mappings_of_a_stored_record():
    """A stored flag without a name, or not a mapping, is not a flag; no record, or no flags, is none."""
    r = result("t::v/a/json/c8", 100.0)
    stored = {"flags": [{"name": "a"}, {"name": ""}, {"text": "no name"}, "text", {"name": 7}]}
    assert Stored(r, None, stored).flags == ("a", "7")
    assert Stored(r, None, None).flags == () and Stored(r, None, {"flags": None}).flags == ()


def test_label_is_the_interpreter_and_version_else_the_files_name():
    """A file's label is ``implementation-version`` of its first result; without either, or without results, its stem."""
    r = result("t::v/a/json/c8", 100.0, impl="pypy")
    f = ResultsFile(Path("/x/run-7.json"), 2, "c", {}, (Stored(r, None),), ())
    assert f.label == "pypy-3.11.7"
    no_version = Stored(replace(r, python={"implementation": "cpython"}), None)
    assert ResultsFile(Path("/x/run-7.json"), 2, "c", {}, (no_version,), ()).label == "run-7"
    no_impl = Stored(replace(r, python={"version": "3.11.7"}), None)
    assert ResultsFile(Path("/x/run-7.json"), 2, "c", {}, (no_impl,), ()).label == "run-7"
    assert ResultsFile(Path("/x/run-7.json"), 2, "c", {}, (), ()).label == "run-7"


def test_merged_files_keep_stored_records_upgrade_old_ones_and_start_at_the_earliest(tmp_path):
    """``write_merged``: records of schema 2 as stored, older ones written again from the typed result with their
    verdict; the earliest ``created``; every failure and cost record; schema 2 and the version given."""
    a, b = result("t::v/a/json/c8", 100.0), result("t::w/a/json/c8", 200.0)
    stored = {**a.to_record(), "extra_key": "kept as stored"}
    f1 = ResultsFile(
        Path("1.json"), 2, "2026-11-23T09:05:00+00:00", {}, (Stored(a, None, stored),), (FAIL,), ({"key": "c/1"},)
    )
    f2 = ResultsFile(
        Path("2.json"), 1, "2026-11-23T09:01:00+00:00", {}, (Stored(b, {"status": "fail"}),), (), ({"key": "c/2"},)
    )
    out = tmp_path / "m.json"
    results.write_merged(out, [f1, f2], MACHINE, "9.9")
    data = json.loads(out.read_text())
    assert (data["schema"], data["serverbench"], data["machine"]) == (2, "9.9", MACHINE)
    assert data["created"] == "2026-11-23T09:01:00+00:00"
    assert data["results"] == [stored, b.to_record({"status": "fail"})]
    assert data["failures"] == [FAIL.__dict__] and data["cost"] == [{"key": "c/1"}, {"key": "c/2"}]


def test_a_schema_1_file_reads_without_stored_records(tmp_path):
    """A file without "schema" is schema 1: its results read, none keeps its record (they are upgraded on merge)."""
    rec = result("t::v/a/json/c8", 100.0).to_record({"status": "pass"})
    path = _file(tmp_path, {"created": "c", "results": [rec]})
    f = results.read(path)
    assert f.schema == 1 and f.results[0].record is None and f.results[0].verdict == {"status": "pass"}
    assert f.machine == {} and f.failures == () and f.cost == ()
    assert (
        results.read(_file(tmp_path, {"schema": 2, "created": "c", "results": [rec]}, "2.json")).results[0].record
        == rec
    )


def test_cost_records_and_failures_read_back(tmp_path):
    """The "cost" list and the failures are read back as stored; "created" as text."""
    path = _file(
        tmp_path,
        {
            "schema": 2,
            "created": 20261123,
            "results": [],
            "failures": [FAIL.__dict__],
            "cost": [{"key": "c/1", "n": 1}],
            "machine": MACHINE,
        },
    )
    f = results.read(path)
    assert (f.created, f.failures, f.cost, f.machine, f.path) == (
        "20261123",
        (FAIL,),
        ({"key": "c/1", "n": 1},),
        MACHINE,
        path,
    )


@pytest.mark.parametrize(
    "data, words",
    [
        ([], "no 'created' and 'results'"),
        ({"created": "c"}, "no 'created' and 'results'"),
        ({"created": "c", "results": {}}, "no 'created' and 'results'"),
        ({"results": []}, "no 'created' and 'results'"),
        ({"schema": 3, "created": "c", "results": []}, "results schema 3; this serverbench reads (1, 2): upgrade"),
        ({"schema": 0, "created": "c", "results": []}, "results schema 0"),
        ({"created": "c", "results": [], "machine": ["m"]}, "'machine' is ['m'], not an object"),
        ({"created": "c", "results": [{"nodeid": "x"}]}, "is not a serverbench --perf-json file (KeyError"),
        ({"created": "c", "results": [], "failures": [{"nodeid": "x"}]}, "(TypeError"),
    ],
)
def test_a_file_that_is_not_a_results_file_is_refused_naming_it(tmp_path, data, words):
    """Not an object with "created" and a "results" list, an unreadable schema, a malformed record or machine: a
    ResultsFileError naming the file and what was wrong."""
    path = _file(tmp_path, data)
    with pytest.raises(ResultsFileError) as info:
        results.read(path)
    assert str(info.value).startswith(str(path)) and words in str(info.value)


@pytest.mark.parametrize(("bad", "error"), [("many", "ValueError"), (float("inf"), "OverflowError")])
def test_a_record_whose_count_is_not_a_whole_number_is_refused_naming_the_file(tmp_path, bad, error):
    """A stored result whose byte count is text or infinite (JSON's Infinity): the file is refused, naming it and the
    error, not a crash."""
    record = result("t::v/a/json/c8", 100.0).to_record(None, [])
    path = _file(tmp_path, {"created": "c", "results": [{**record, "bytes": bad}]})
    with pytest.raises(ResultsFileError) as info:
        results.read(path)
    assert str(info.value).startswith(f"{path} is not a serverbench --perf-json file ({error}: ")


def test_a_missing_or_unreadable_file_is_refused_naming_the_fix(tmp_path):
    """No file: how to write one.  Not JSON, or not text: only --perf-json outputs may be passed."""
    with pytest.raises(ResultsFileError, match="no such file; write one with `pytest -m perf --perf-json"):
        results.read(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe{")
    for name in ("bad.json", "bin.json"):
        with pytest.raises(ResultsFileError, match="not a readable serverbench results file.*pass only --perf-json"):
            results.read(str(tmp_path / name))


def test_readable_schemas_are_one_and_two():
    """This serverbench reads results files of schema 1 and 2."""
    assert READABLE == (1, 2)


# Merged from test_records_edges.py: What stored A/B records and merged results files mean when read back (issue 22:
# records.* under mutation testing): a window's arm and block, measurements extended by later blocks, the gated
# decisions, no empty cost list.
ARMS = ("base", "candidate")


def test_a_window_reads_back_with_its_arm_phase_and_block():
    """A candidate's fixed-rate window of block 3 keeps all three through JSON (not the schema-1 nodeid guess)."""
    w = Window("candidate", "rate", 3, result("test_throughput::v/a/json/c8", 100.0))
    assert Window.from_record(json.loads(json.dumps(w.to_record()))) == w


def test_later_blocks_extend_every_signal_and_keep_mode_and_rate():
    """Blocks measured later add their pairs after the first ones, a signal only they carry included; the mode, the
    fixed rate and the block count (an unknown count read as 0) carry over."""
    first = Measurement.of("sequential", ARMS, {"throughput": ((1.0, 2.0), (1.5, 2.5))}, (), None, 0, 250.0, 10.0)
    later = Measurement.of(
        "sequential", ARMS, {"throughput": ((3.0,), (3.5,)), "growth": ((0.1,), (0.2,))}, (), 2, 1, 250.0, 5.0
    )
    both = first.plus(later)
    assert both.pairs == {"throughput": ((1.0, 2.0, 3.0), (1.5, 2.5, 3.5)), "growth": ((0.1,), (0.2,))}
    assert (both.mode, both.rate, both.blocks, both.reruns, both.seconds) == ("sequential", 250.0, 2, 1, 15.0)
    assert later.plus(first).blocks == 2 and later.plus(first).pairs["growth"] == ((0.1,), (0.2,))


def test_gated_decisions_are_the_gated_signals_that_were_decided():
    """The gated signals' decisions, in the gated order; a gated name without a decision is left out."""
    d = _decision()
    assert list(d.gated_decisions()) == [k for k in d.gated if k in d.decisions] and d.gated_decisions()
    assert replace(d, gated=(*d.gated, "missing")).gated_decisions() == d.gated_decisions()


def test_a_merged_file_without_cost_records_has_no_cost_list(tmp_path: Path):
    """Merging files with results only writes no "cost" key (readers take its absence as no cost run)."""
    r = result("test_throughput::v/a/json/c8", 100.0)
    f = ResultsFile(Path("s.json"), 2, "2026-11-23T00:00:00+00:00", {"id": "m"}, (Stored(r, None, r.to_record()),), ())
    results.write_merged(tmp_path / "m.json", [f], {"id": "m"}, "0")
    assert "cost" not in json.loads((tmp_path / "m.json").read_text())


# Properties (issue 35): what the history's grouping key separates.
KEYS = ["t::v/a/json/c8", "t::v/a/json/c16", "t::w/a/json/c8", "t::v/b/json/c8", "u::v/a/json/c8", "t::v/a/redis/c8"]


@given(
    st.lists(
        st.tuples(st.sampled_from(["m1", "m2", 2]), st.lists(st.tuples(st.sampled_from(KEYS), st.integers(1, 9)))),
        max_size=5,
    )
)
def test_history_series_keep_apart_every_machine_and_cell(runs):
    """Each series is one machine's runs of one cell: two results that differ in the machine or in any field of the
    cell's key never share a series, and each run adds to a series the median rps of its replicates of that cell;
    the machine's id is named as text, whatever JSON the file holds there."""
    files = [
        ResultsFile(
            Path(f"r{i}.json"),
            2,
            f"2026-11-{i + 10}",
            {"id": machine},
            tuple(Stored(result(key, rps * 100.0), None) for key, rps in cells),
            (),
        )
        for i, (machine, cells) in enumerate(runs)
    ]
    expected = {}
    for f, (machine, cells) in zip(files, runs):
        for key in dict.fromkeys(k for k, _ in cells):
            rps = [r * 100.0 for k, r in cells if k == key]
            expected.setdefault((str(machine), key), []).append((f.created, pytest.approx(statistics.median(rps))))
    assert results.series(files) == expected


def test_a_written_file_holds_the_phases_and_commit_only_when_given(tmp_path):
    """``write`` stores where the session's time went and the commit measured, and they read back as stored; without
    them (or empty) the file has neither key and both read back as None."""
    phases = {"total_s": 12.5, "phases": {"warm-up": 2.0}}
    path = tmp_path / "r.json"
    results.write(path, MACHINE, [], [], "0", phases=phases, commit="d3b2af2")
    data = json.loads(path.read_text())
    assert (data["phases"], data["commit"]) == (phases, "d3b2af2")
    assert (results.read(path).phases, results.read(path).commit) == (phases, "d3b2af2")
    for kwargs in ({}, {"phases": {}, "commit": ""}):
        results.write(path, MACHINE, [], [], "0", **kwargs)
        assert not {"phases", "commit"} & set(json.loads(path.read_text()))
        assert (results.read(path).phases, results.read(path).commit) == (None, None)


@pytest.mark.parametrize(
    "commits, merged",
    [(("abc", "abc"), "abc"), (("abc", "def"), None), (("abc", None), None), ((None, None), None), (("abc",), "abc")],
)
def test_a_merged_file_keeps_the_commit_only_when_every_shard_measured_it(tmp_path, commits, merged):
    """Shards of one commit merge into a file of that commit; shards of different commits, or one without a commit,
    merge into a file with no "commit" key."""
    files = [ResultsFile(Path(f"{i}.json"), 2, "c", {}, (), (), commit=c) for i, c in enumerate(commits)]
    results.write_merged(tmp_path / "m.json", files, MACHINE, "0")
    data = json.loads((tmp_path / "m.json").read_text())
    assert data.get("commit", "absent") == (merged or "absent")


def test_stored_phases_and_commit_read_back_only_as_an_object_and_text(tmp_path):
    """A file's "phases" object and "commit" text read back as stored; another JSON type there reads as None."""
    base = {"schema": 2, "created": "c", "results": []}
    kept = results.read(_file(tmp_path, {**base, "phases": {"total_s": 3}, "commit": "abc"}))
    assert (kept.phases, kept.commit) == ({"total_s": 3}, "abc")
    for phases, commit in (([1], 7), ("text", ["abc"]), (3, {"sha": "abc"})):
        other = results.read(_file(tmp_path, {**base, "phases": phases, "commit": commit}, "other.json"))
        assert (other.phases, other.commit) == (None, None)


def test_the_skipped_cells_and_the_sessions_interpreter_are_written_and_read_back(tmp_path):
    """A session whose every cell was skipped still names its interpreter, and each skip keeps its reason; a
    file written before either reads with none (its label from its first result, as before)."""
    skip = Skip("uwsgi-p2t2/flask", "json", "uwsgi-p2t2 does not run on pypy (supports cpython)")
    python = {"implementation": "pypy", "version": "3.9.18", "free_threaded": False}
    path = tmp_path / "r.json"
    results.write(path, MACHINE, [], [], "9.9", skipped=[skip], python=python)
    back = results.read(path)
    assert back.skipped == (skip,) and back.python == python and back.label == "pypy-3.9.18"
    old = json.loads(path.read_text())
    del old["skipped"], old["python"]
    legacy = results.read(_file(tmp_path, old, "old.json"))
    assert legacy.skipped == () and legacy.python is None and legacy.label == "old"


def test_a_free_threaded_session_is_labelled_with_its_t():
    """cpython-3.13.1t: a free-threaded build's file is told apart from the GIL build's."""
    f = ResultsFile(
        Path("x.json"),
        2,
        "c",
        {},
        (),
        (),
        python={"implementation": "cpython", "version": "3.13.1", "free_threaded": True},
    )
    assert f.label == "cpython-3.13.1t"


def test_merged_files_keep_every_skip_and_one_interpreter_only_when_all_share_it(tmp_path):
    """Shards of one interpreter keep it; files of two interpreters merged name none at the file's level."""
    py311, py313 = (
        {"implementation": "cpython", "version": "3.11.7"},
        {"implementation": "cpython", "version": "3.13.0"},
    )
    skip = Skip("bjoern/flask", "json", "not installed")
    f1 = ResultsFile(Path("1.json"), 2, "c", {}, (), (), skipped=(skip,), python=py311)
    f2 = ResultsFile(Path("2.json"), 2, "c", {}, (), (), python=py311)
    out = tmp_path / "m.json"
    results.write_merged(out, [f1, f2], MACHINE, "9.9")
    assert results.read(out).python == py311 and results.read(out).skipped == (skip,)
    results.write_merged(out, [f1, replace(f2, python=py313)], MACHINE, "9.9")
    assert results.read(out).python is None
