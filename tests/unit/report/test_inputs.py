"""What the report reads: results files, A/B decision files and cost records, each recognised or refused by name."""

import json
from pathlib import Path

import pytest

from serverbench.errors import ConfigError
from serverbench.judge.ab import COST, COST_LABEL, GATE_POLICY
from serverbench.judge.cost import COST_MIN_EFFECT
from serverbench.judge.memory import GROWTH_MIN_EFFECT
from serverbench.judge.signals import GROWTH, SIGNALS
from serverbench.records.results import ResultsFile
from serverbench.report.inputs import Inputs, costs, expand, load, read_decision, signal_label, threshold
from tests.unit.sample_records import record

SIGNAL = {"verdict": "pass", "delta": 0.01, "ci": [-0.05, 0.07], "p": 0.4, "n": 3}


def results_json(path: Path, created: str, **extra) -> Path:
    """A schema 2 results file at ``path`` created at ``created`` with one result."""
    data = {"schema": 2, "created": created, "machine": {"id": "m1"}, "results": [record("t::a/flask/json/c64", 1000)]}
    path.write_text(json.dumps({**data, **extra}))
    return path


def test_load_names_a_file_that_is_neither(tmp_path):
    """A JSON file named that is not results nor a decision is refused, naming it (in a folder it is skipped
    and listed); a missing file is refused."""
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(ConfigError, match="other.json: neither a --perf-json results file"):
        load([tmp_path / "other.json"])
    assert load([tmp_path]).skipped == (tmp_path / "other.json",)
    with pytest.raises(ConfigError, match="nope.json: no such file"):
        load([tmp_path / "nope.json"])


def test_a_file_that_is_not_json_is_refused_naming_it(tmp_path):
    """Text that is not JSON is a ConfigError naming the file and what to give instead."""
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"bad.json: not a JSON file \(.*\); give --perf-json results"):
        load([tmp_path / "bad.json"])


def test_results_files_come_oldest_first_whatever_their_names(tmp_path):
    """Results files are ordered by when they were created, not by the order they were named or found in."""
    late = results_json(tmp_path / "a.json", "2026-11-12T00:00:00+00:00")
    early = results_json(tmp_path / "b.json", "2026-11-10T00:00:00+00:00")
    assert [r.path for r in load([late, early]).results] == [early, late]


def test_expand_lists_a_folders_json_files_sorted_and_marks_the_ones_named(tmp_path):
    """A folder gives its *.json files in name order, not named; a file given is named; other files are ignored."""
    for name in ("b.json", "a.json", "notes.txt"):
        (tmp_path / name).write_text("{}")
    assert expand([tmp_path, tmp_path / "notes.txt"]) == [
        (tmp_path / "a.json", False),
        (tmp_path / "b.json", False),
        (tmp_path / "notes.txt", True),
    ]


def test_threshold_is_each_gated_signals_minimum_effect():
    """Counted cost and PSS growth have their own limits; a gated signal its own or the gate's; others none."""
    own = {s.name: s.min_effect for s in SIGNALS}
    assert threshold(COST) == COST_MIN_EFFECT and threshold(GROWTH) == GROWTH_MIN_EFFECT
    assert threshold("throughput") == GATE_POLICY.min_effect and threshold("p50") == own["p50"] is not None
    assert threshold("rss") is None and threshold("nosuch") is None


def test_signal_label_names_cost_and_known_signals_and_keeps_an_unknown_name():
    """cost and the known signals get their label; a signal this serverbench does not know keeps its name."""
    assert signal_label(COST) == COST_LABEL
    assert signal_label("rss") == "peak RSS (reported, not gated)"
    assert signal_label("nosuch") == "nosuch"


def test_results_files_that_share_a_name_are_numbered():
    """Three files called run.json are run, run-2 and run-3; a path of none of them is named by its stem."""
    runs = tuple(ResultsFile(Path(d) / "run.json", 2, "", {}, (), ()) for d in ("a", "b", "c"))
    inputs = Inputs(runs, ())
    assert list(inputs.sources) == ["run", "run-2", "run-3"]
    assert inputs.source_of(Path("b/run.json")) == "run-2" and inputs.source_of(Path("d/other.json")) == "other"


def test_a_gate_decision_orders_signals_as_the_gate_and_turns_pairs_into_ratios():
    """Signals in SIGNALS order (unknown ones last); each pair is candidate/base - 1, a zero base left out; a signal
    with a unit has no ratios; the detail line says the mode, windows, rate, extension and time."""
    data = {
        "cell": "a/flask json c64",
        "verdict": "regression",
        "mode": "simultaneous",
        "rate": 4000,
        "extended": True,
        "seconds": 61.6,
        "windows": [1, 2],
        "decisions": {
            "zzz": {**SIGNAL, "p": None},
            "growth": {**SIGNAL, "unit": "MB/10k", "n": 0},
            "throughput": {**SIGNAL, "n": None},
        },
        "pairs": {
            "throughput": {"base": [100.0, 0.0, 200.0], "candidate": [110.0, 50.0, 150.0]},
            "growth": {"base": [1.0], "candidate": [2.0]},
        },
    }
    found = read_decision(Path("gate.json"), data)
    assert found.kind == "gate" and found.path == Path("gate.json")
    (decision,) = found.decisions
    assert (decision.label, decision.verdict) == ("a/flask json c64", "regression")
    assert decision.detail == "simultaneous mode, 2 windows, fixed rate 4000 req/s, extended True, 62 s"
    assert [s.name for s in decision.signals] == ["throughput", "growth", "zzz"]
    throughput, growth, unknown = decision.signals
    assert throughput.ratios == pytest.approx((0.1, -0.25)) and throughput.n == 2
    assert growth.ratios == () and growth.unit == "MB/10k"
    assert unknown.p is None and throughput.p == 0.4 and throughput.ci == (-0.05, 0.07)


def test_a_proof_run_puts_its_calibration_first_and_reads_early_top_level_throughput():
    """The calibration decision is first, labelled A/A; an early decision holding only throughput at its top level
    is read as that signal; each is labelled by condition and round, detailed by knob=value."""
    data = {
        "calibration": {**SIGNAL},
        "decisions": [
            {**SIGNAL, "condition": "10%", "round": 3, "knob": "cpu", "value": 0.1},
            {"condition": "20%", "verdict": "regression", "signals": {"p50": SIGNAL, "cpu": SIGNAL}},
        ],
    }
    found = read_decision(Path("proof.json"), data)
    assert found.kind == "proof"
    assert [d.label for d in found.decisions] == ["A/A #calibration", "10% #3", "20% #2"]
    assert [s.name for s in found.decisions[1].signals] == ["throughput"] and found.decisions[1].detail == "cpu=0.1"
    assert [s.name for s in found.decisions[2].signals] == ["p50", "cpu"]
    no_calibration = read_decision(Path("proof.json"), {**data, "calibration": {}})
    assert [d.label for d in no_calibration.decisions] == ["10% #3", "20% #1"]


def test_what_is_not_a_decision_reads_as_none():
    """A list, a number, or a mapping with no decisions is not a decision file."""
    assert read_decision(Path("x.json"), [1]) is None
    assert read_decision(Path("x.json"), 3) is None
    assert read_decision(Path("x.json"), {"verdict": "pass"}) is None


def test_a_decision_file_that_cannot_be_read_names_the_file_the_error_and_the_fix():
    """A gate record missing a signal's fields is a ConfigError naming the file, the error, and the command to use."""
    with pytest.raises(ConfigError) as info:
        read_decision(Path("g.json"), {"verdict": "pass", "decisions": {"throughput": {"verdict": "pass"}}})
    assert str(info.value) == (
        "g.json: an A/B decision file that cannot be read (KeyError: 'ci'); pass files written by "
        "`serverbench gate --json`"
    )


def test_a_cost_record_is_instructions_per_request():
    """Instructions over requests (or the stored per-request count); a missing app is empty, a missing verdict '-'."""
    found = costs(
        Path("r.json"),
        [
            {"variant": "a", "app": "flask", "workload": "json", "instructions": 1000, "requests": 4},
            {"variant": "b", "workload": "json", "instructions_per_request": 7, "verdict": {"status": "regression"}},
        ],
    )
    assert [(c.variant, c.app, c.per_request, c.verdict) for c in found] == [
        ("a", "flask", 250.0, "-"),
        ("b", "", 7.0, "regression"),
    ]
    assert costs(Path("r.json"), None) == []


def test_a_cost_record_without_a_count_names_the_file():
    """A cost record with no requests (or none at all) is a ConfigError naming the file and the error."""
    with pytest.raises(ConfigError, match=r"^r.json: a cost record that cannot be read \(KeyError: 'requests'\)$"):
        costs(Path("r.json"), [{"variant": "a", "workload": "json", "instructions": 1000}])
    with pytest.raises(ConfigError, match=r"ZeroDivisionError"):
        costs(Path("r.json"), [{"variant": "a", "workload": "json", "instructions": 1000, "requests": 0}])


def test_a_results_files_cost_records_are_read_with_it(tmp_path):
    """A results file's "cost" list becomes the inputs' costs, with the file as their source."""
    cost = {"variant": "a", "app": "flask", "workload": "json", "instructions": 900, "requests": 3}
    path = results_json(tmp_path / "r.json", "2026-11-10T00:00:00+00:00", cost=[cost])
    (found,) = load([path]).costs
    assert (found.source, found.per_request) == (path, 300.0)
