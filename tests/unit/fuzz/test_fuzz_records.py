"""Bad files, fuzzed (Hypothesis): every record and baseline reader gives a value or an error naming the file.

Valid files (results of schema 2 and 1, A/B decisions, baselines, cost baselines) are mutated: a field
deleted or replaced by any JSON value (huge integers, NaN, infinities, nested lists), or the bytes
truncated, nested too deep or not UTF-8.  What a reader accepts is then given to the commands that
consume it (compare, history, report, gate --rejudge, the baseline check), which must not crash either.
``pytest tests/unit/fuzz/test_fuzz_records.py -s`` prints the census of inputs tried (docs/lab/robustness.md).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json

from hypothesis import given
from hypothesis import strategies as st

from serverbench.cli import compare, gate, history
from serverbench.config.options import Thresholds
from serverbench.errors import BaselineError, ConfigError, ServerbenchError
from serverbench.judge.ab import GATE_POLICY, decided, judge
from serverbench.judge.cost import judge_cost
from serverbench.judge.verdict import BaselineCheck
from serverbench.records import decisions, jsonfile
from serverbench.records import results as results_file
from serverbench.records.baselines import BaselineStore
from serverbench.records.cost import CostBaselineStore, CostRecord, FunctionCost, ProcessCount, add_to_results_file
from serverbench.records.decisions import DecisionFileError, Measurement
from serverbench.report.inputs import load as report_inputs
from tests.unit.fuzzing import census, fuzz  # noqa: F401 (census: a fixture)
from tests.unit.sample_records import record, result

KEY = "test_json::gunicorn-sync/flask/json/c64"
ENVIRONMENT = {
    "interpreter": "cpython-3.11.7",
    "isa": "x86-64-v3",
    "libc": "glibc-2.36",
    "valgrind": "3.19.0",
    "packages": {"flask": "3.0.0"},
}


def _cost_record() -> CostRecord:
    return CostRecord(
        "t::c",
        "gunicorn-sync",
        "flask",
        "json",
        "/json",
        200,
        2_000_000,
        (ProcessCount(1, "gunicorn", 2_000_000),),
        (FunctionCost("c", "PyEval", "libpython", "cpython", "interpreter", 5000.0),),
        ENVIRONMENT,
        3.0,
        "2026-11-10T00:00:00+00:00",
    )


def _schema1(rec: dict) -> dict:
    """The record as schema 1 wrote it: the shape as a label, the generator's percentages only."""
    old = {**rec, "shape": "c64-rpc10", "connections": 64}
    old["generator"] = {k: rec["generator"][k] for k in ("name", "version", "threads", "cpu_pct", "busy_pct")}
    return old


RESULTS = {
    "schema": 2,
    "serverbench": "0",
    "created": "2026-11-10T00:00:00+00:00",
    "machine": {"id": "m1"},
    "results": [record(KEY, 1000.0, warm=(900.0, 990.0))],
    "failures": [
        {
            "nodeid": "t::x",
            "variant": "v",
            "app": "a",
            "workload": "json",
            "connections": 64,
            "message": "the server died",
        }
    ],
    "cost": [_cost_record().to_record()],
}
RESULTS_V1 = {
    "created": "2026-11-01T00:00:00+00:00",
    "machine": {"id": "m1"},
    "results": [_schema1(record(KEY, 1000.0))],
    "failures": [],
}
BASELINE = {
    "schema": 1,
    "machine": {"id": "m1"},
    "entries": {KEY: {"rps": 1000.0, "error_rate": 0.0, "p50_ms": 1.0, "p99_ms": 12.5, "recorded_at": "2026-11-10"}},
}
COST_BASELINE = {
    "schema": 1,
    "environment": {},
    "entries": {
        _cost_record().key: {
            "per_request": 10000.0,
            "packages": {"flask": "3.0.0"},
            "recorded_at": "2026-11-10",
            "python_per_request": 0.0,
            "functions": [FunctionCost("c", "PyEval", "libpython", "cpython", "interpreter", 5000.0).to_record()],
            "python_functions": [],
        }
    },
}


def _decision() -> dict:
    base = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2]  # six pairs: scipy's exact Wilcoxon stays quick
    pairs = {
        "throughput": (tuple(base), tuple(v * (0.9 + 0.001 * k) for k, v in enumerate(base))),  # no tied
        "cpu": (tuple(base), tuple(v * (1.0 + 0.0007 * k) for k, v in enumerate(base))),
    }  # ratios: exact test, fast
    measured = Measurement(
        "simultaneous",
        ("base", "candidate"),
        pairs,
        (),
        6,
        1,
        None,
        60.0,
        {"base": 0.0, "candidate": 0.0},
        {"base": 44.0, "candidate": 44.5},
    )
    made = decided(
        "aiohttp/aiohttp json c32",
        measured,
        judge(pairs, False, GATE_POLICY),
        policy=GATE_POLICY,
        max_error_rate=0.01,
    )
    rec = made.to_record()
    rec["windows"] = [{**record(KEY, 1000.0), "arm": "base", "phase": "saturated", "block": 0}]
    return rec


DECISION = _decision()

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([10**400, -(10**400), 0, -1])
    | st.floats()
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


EDGE_NUMBERS = st.one_of(
    st.sampled_from([0, -1, 0.0, -0.0, 1e-320, 1e308, float("nan"), float("inf"), -float("inf"), 10**400, 2**63, True]),
    st.integers(),
    st.floats(),
)


def _places(doc, at=()):
    """Every place in a JSON document, as the keys and indexes that lead there."""
    yield at
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        yield from _places(value, (*at, key))


@st.composite
def mutated(draw, base: dict) -> bytes:
    """``base`` with one to three fields deleted or replaced by any JSON value, as the bytes of a file."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.sampled_from(list(_places(doc))))
        if not at:
            doc = draw(JSON)
            continue
        parent = doc
        for key in at[:-1]:
            parent = parent[key]
        how, old = draw(st.sampled_from(("delete", "replace", "same kind", "same kind"))), parent[at[-1]]
        if how == "delete":
            del parent[at[-1]]
        elif how == "same kind" and isinstance(old, (int, float)) and not isinstance(old, bool):
            parent[at[-1]] = draw(EDGE_NUMBERS)  # a number where a number belongs, but an awkward one
        elif how == "same kind" and isinstance(old, str):
            parent[at[-1]] = draw(st.text(max_size=12))
        else:
            parent[at[-1]] = draw(JSON)
    return json.dumps(doc).encode()


def damaged(base: dict) -> st.SearchStrategy[bytes]:
    """Bytes no JSON writer made: truncated, deeply nested, a 5000-digit number, not UTF-8, random."""
    text = json.dumps(base).encode()
    return st.one_of(
        st.integers(0, len(text)).map(lambda n: text[:n]),
        st.binary(max_size=64),
        st.sampled_from(
            [
                b"[" * 20_000,
                b"1" * 5000,
                b'{"results": [], "created": 1' + b"0" * 5000 + b"}",
                b"\xef\xbb\xbf" + text,
                b"\xff\xfe" + text,
                b"NaN",
                b"",
                b"null",
                b"[]",
            ]
        ),
    )


def inputs(base: dict) -> st.SearchStrategy[bytes]:
    return st.one_of(mutated(base), damaged(base))


def _quietly(main, argv) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


@fuzz(300)
@given(data=st.one_of(inputs(RESULTS), inputs(RESULTS_V1)))
def test_any_results_file_reads_or_is_refused_by_name(data, tmp_path, census):
    """results.read: a typed file or a ResultsFileError naming it; compare, history and report take what it reads."""
    census["results file"] += 1
    path = tmp_path / "results.json"
    path.write_bytes(data)
    try:
        results_file.read(path)
    except results_file.ResultsFileError as exc:
        assert str(path) in str(exc)
        return
    census["results file: read"] += 1
    assert _quietly(compare.main, [str(path), str(path)]) == 0
    assert _quietly(history.main, [str(path)] * 4 + ["--min-segment", "2"]) in (0, 1)
    try:
        report_inputs([path])
    except ConfigError as exc:  # a cost record without a count
        assert str(path) in str(exc)


@fuzz(200)
@given(data=inputs(DECISION))
def test_any_decision_file_reads_or_is_refused_by_name(data, tmp_path, census):
    """decisions.read: a decision or a DecisionFileError naming it; gate --rejudge exits with a status either way."""
    census["A/B decision file"] += 1
    path = tmp_path / "decision.json"
    path.write_bytes(data)
    try:
        decisions.read(path)
        census["A/B decision file: read"] += 1
    except DecisionFileError as exc:
        assert str(path) in str(exc)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = gate.main(["--rejudge", str(path)])
    assert status in (0, 1, 2, 3)
    if status == 2:
        assert str(path) in err.getvalue(), err.getvalue()
    try:
        report_inputs([path])
    except ConfigError as exc:
        assert str(path) in str(exc)


@fuzz(200)
@given(data=inputs(BASELINE))
def test_any_baseline_file_loads_or_is_refused_by_name(data, tmp_path, census):
    """BaselineStore.load: baselines the check can judge against, or a BaselineError naming the file."""
    census["baseline file"] += 1
    store = BaselineStore(tmp_path, {"id": "m1"})
    store.path.write_bytes(data)
    try:
        stored = store.load()
    except BaselineError as exc:
        assert str(store.path) in str(exc)
        return
    census["baseline file: read"] += 1
    measured = result(KEY, 950.0)
    for baseline in stored.values():
        BaselineCheck().judge(measured, baseline, Thresholds(0.3, 0.01))
    assert KEY in {*store.save([measured]), *store.load()}


@fuzz(200)
@given(data=inputs(COST_BASELINE))
def test_any_cost_baseline_file_loads_or_is_refused_by_name(data, tmp_path, census):
    """CostBaselineStore.load: baselines the cost judge can use, or a BaselineError naming the file."""
    census["cost baseline file"] += 1
    store = CostBaselineStore(tmp_path, ENVIRONMENT)
    store.path.write_bytes(data)
    try:
        stored = store.load()
    except BaselineError as exc:
        assert str(store.path) in str(exc)
        return
    census["cost baseline file: read"] += 1
    counted = _cost_record()
    judge_cost(counted, stored.get(counted.key), 0.02)
    assert counted.key in store.save([counted])


@fuzz(150)
@given(data=inputs(RESULTS))
def test_any_results_file_takes_cost_records_or_is_refused_by_name(data, tmp_path, census):
    """add_to_results_file over whatever --perf-json holds: the records added, or an error naming the file."""
    census["results file (adding cost records)"] += 1
    path = tmp_path / "results.json"
    path.write_bytes(data)
    try:
        add_to_results_file(path, [_cost_record().to_record()], {"id": "m1"}, "0")
    except ServerbenchError as exc:
        assert str(path) in str(exc)
        return
    census["results file (adding cost records): added"] += 1
    assert jsonfile.read(path)["cost"][-1]["key"] == _cost_record().key


@fuzz(100)
@given(data=damaged(RESULTS))
def test_any_bytes_are_json_or_a_value_error(data, tmp_path, census):
    """jsonfile.read: a value, or a ValueError (the readers' cue to name the file), never a RecursionError."""
    census["jsonfile.read"] += 1
    path = tmp_path / "any.json"
    path.write_bytes(data)
    with contextlib.suppress(ValueError):
        jsonfile.read(path)
