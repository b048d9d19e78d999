"""What an A/B decision file holds and how its numbers read (issue 22, mutation survivors of records.decisions)."""

import json
import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverbench.records import decisions
from serverbench.records.decisions import (
    PHASE_NAMES,
    PHASES,
    READABLE,
    SCHEMA,
    ABDecision,
    Decision,
    DecisionFileError,
    Measurement,
    Window,
    p_text,
    percent,
)
from tests.unit.fuzzing import fuzz
from tests.unit.sample_records import result

ARMS = ("base", "candidate")
DECISION = Decision("regression", -0.0912, (-0.1, -0.08), 0.0004, 12, 0.0123, True, "p < alpha", "")


def _window(arm, phase="saturated", block=0, rps=100.0, rss=40.0, status_errors=0):
    r = result("ab::v/a/json/c8", rps)
    load = replace(r.load, errors={**r.load.errors, "status": status_errors})
    return Window(arm, phase, block, replace(r, load=load, server_rss_mb=rss))


def _ab(**changes):
    windows = (_window("base", rss=40.0), _window("candidate", "rate", 1, rss=50.0, status_errors=5))
    m = Measurement.of("sequential", ARMS, {"throughput": ((1.0, 2.0), (1.5, 2.5))}, windows, 2, 1, 250.0, 12.34)
    d = ABDecision(
        "cell c8",
        m,
        {"throughput": DECISION, "cpu": replace(DECISION, verdict="pass", p=math.nan)},
        ("throughput",),
        "regression",
        1,
        True,
        {"alpha": 0.01},
        0.02,
    )
    return replace(d, **changes)


def test_percent_and_p_text_read_as_people_write_them():
    """A fraction as a signed (or unsigned) percent to 0.1; p to 4 decimals from 1e-4, else in e-notation; n/a when
    not finite."""
    assert (percent(0.0512), percent(-0.123), percent(0.0512, sign=False), percent(0.0512, False)) == (
        "+5.1%",
        "-12.3%",
        "5.1%",
        "5.1%",
    )
    assert percent(math.nan) == percent(math.inf) == percent(-math.inf) == "n/a"
    assert (p_text(0.01234), p_text(1e-4), p_text(9.9e-5), p_text(0.0)) == ("0.0123", "0.0001", "9.9e-05", "0.0e+00")
    assert p_text(math.nan) == p_text(math.inf) == "n/a"


def test_a_decision_states_its_amounts_in_percent_or_in_its_unit():
    """Without a unit: percents.  With one: three decimals and the unit (once after an interval); n/a if not finite."""
    assert DECISION.amount(0.05) == "+5.0%" and DECISION.amount(0.05, sign=False) == "5.0%"
    assert DECISION.interval() == "[-10.0%, -8.0%]"
    mb = replace(DECISION, delta=1.5, ci=(0.25, 2.75), dispersion=0.5, unit="MB")
    assert (mb.amount(1.5), mb.amount(1.5, sign=False), mb.amount(-0.25), mb.amount(math.nan)) == (
        "+1.500 MB",
        "1.500 MB",
        "-0.250 MB",
        "n/a",
    )
    assert mb.interval() == "[+0.250, +2.750 MB]"


def test_a_decisions_summary_line():
    """Δ, interval, p, n, dispersion (unsigned) and the verdict, in that order."""
    assert DECISION.summary() == "Δ -9.1% [-10.0%, -8.0%] p=0.0004 n=12 disp=1.2% -> regression"
    mb = replace(DECISION, delta=1.5, ci=(0.25, 2.75), dispersion=0.5, unit="MB", p=math.nan)
    assert mb.summary() == "Δ +1.500 MB [+0.250, +2.750 MB] p=n/a n=12 disp=0.500 MB -> regression"


def test_a_decisions_record_and_back():
    """Every field by its name; a p that is not a number is stored as None and read back as nan; the unit only when
    there is one; a missing reason or unit reads as empty."""
    assert DECISION.to_record() == {
        "verdict": "regression",
        "delta": -0.0912,
        "ci": [-0.1, -0.08],
        "p": 0.0004,
        "n": 12,
        "dispersion": 0.0123,
        "borderline": True,
        "reason": "p < alpha",
    }
    assert Decision.from_record(DECISION.to_record()) == DECISION
    counted = replace(DECISION, p=math.nan, unit="MB", borderline=False)
    rec = counted.to_record()
    assert rec["p"] is None and rec["unit"] == "MB" and rec["borderline"] is False
    back = Decision.from_record(json.loads(json.dumps(rec)))
    assert math.isnan(back.p) and replace(back, p=0.0) == replace(counted, p=0.0)
    bare = {k: v for k, v in DECISION.to_record().items() if k != "reason"}
    assert Decision.from_record({**bare, "reason": None}).reason == "" == Decision.from_record(bare).reason
    typed = Decision.from_record(
        {
            **bare,
            "n": "12",
            "ci": ["-1", "1"],
            "delta": "0.5",
            "p": "0.5",
            "dispersion": "0.1",
            "borderline": 1,
            "verdict": 3,
            "unit": None,
        }
    )
    assert typed == Decision("3", 0.5, (-1.0, 1.0), 0.5, 12, 0.1, True, "", "")
    assert isinstance(typed.n, int) and isinstance(typed.borderline, bool)


def test_a_window_record_carries_its_arm_phase_and_block():
    """The trial's record plus the arm, phase and block; a stored block is read as a whole number, None as None."""
    w = _window("candidate", "rate", 3)
    rec = w.to_record()
    assert rec == {**w.result.to_record(), "arm": "candidate", "phase": "rate", "block": 3}
    assert Window.from_record({**rec, "block": "4"}).block == 4
    assert Window.from_record({**rec, "block": None}).block is None
    assert Window.from_record({k: v for k, v in rec.items() if k != "block"}).block is None


def test_a_schema_1_window_takes_its_arm_and_phase_from_the_nodeid():
    """``ab::base`` is the base's saturated window, ``ab::candidate@rate`` the candidate's at the fixed rate."""
    rec = {k: v for k, v in _window("x").to_record().items() if k not in ("arm", "phase", "block")}
    base = Window.from_record({**rec, "nodeid": "ab::base"})
    cand = Window.from_record({**rec, "nodeid": "ab::candidate@rate"})
    assert (base.arm, base.phase, base.block) == ("base", "saturated", None)
    assert (cand.arm, cand.phase, cand.block) == ("candidate", "rate", None)
    assert PHASES == ("saturated", "rate")


def test_a_measurements_error_rate_and_peak_rss_are_per_arm():
    """Each arm's error rate is pooled over its own windows; its peak RSS is its highest; an arm without a window
    has neither, and one without a reading no peak RSS (not measured, never 0)."""
    windows = (
        _window("base", rss=40.0),
        _window("base", rss=45.0, status_errors=10),
        _window("candidate", rss=None),
        _window("candidate", rss=30.0),
    )
    m = Measurement.of("simultaneous", ARMS, {}, windows, 1, 0, None, 1.0)
    assert m.peak_rss_mb == {"base": 45.0, "candidate": 30.0}
    assert m.error_rate == {"base": 10 / 1000, "candidate": 0.0}
    alone = Measurement.of("simultaneous", ARMS, {}, windows[:1], 1, 0, None, 1.0)
    assert alone.peak_rss_mb == {"base": 40.0} and alone.error_rate == {"base": 0.0}
    unread = Measurement.of("simultaneous", ARMS, {}, (_window("base", rss=None),), 1, 0, None, 1.0)
    assert unread.peak_rss_mb == {}
    counted = Measurement.of("simultaneous", ARMS, {}, (), 0, 0, None, 1.0)
    assert (counted.peak_rss_mb, counted.error_rate) == ({}, {})
    assert (m.mode, m.arms, m.windows, m.blocks, m.reruns, m.rate, m.seconds) == (
        "simultaneous",
        ARMS,
        windows,
        1,
        0,
        None,
        1.0,
    )


def test_later_blocks_carry_windows_reruns_and_seconds():
    """``plus`` joins the windows in order and adds the re-runs, the seconds and the blocks."""
    first = Measurement.of("simultaneous", ARMS, {}, (_window("base"),), 2, 1, None, 10.0)
    later = Measurement.of("simultaneous", ARMS, {}, (_window("candidate", rss=60.0),), 3, 2, None, 5.5)
    both = first.plus(later)
    assert both.windows == first.windows + later.windows and both.peak_rss_mb["candidate"] == 60.0
    assert (both.blocks, both.reruns, both.seconds, both.rate) == (5, 3, 15.5, None)
    assert replace(first, blocks=None).plus(replace(later, blocks=None)).blocks == 0


def test_an_ab_decision_reads_its_measurement():
    """The decision's mode, pairs, windows, rate, re-runs, seconds, error rates and peak RSS are its measurement's;
    throughput and cpu are those signals' decisions."""
    d = _ab()
    m = d.measurement
    assert (d.mode, d.pairs, d.windows, d.rate, d.reruns, d.seconds, d.error_rate, d.peak_rss_mb) == (
        m.mode,
        m.pairs,
        m.windows,
        m.rate,
        m.reruns,
        m.seconds,
        m.error_rate,
        m.peak_rss_mb,
    )
    assert d.throughput is d.decisions["throughput"] and d.cpu_per_request is d.decisions["cpu"]
    assert d.schema == SCHEMA == 3 and READABLE == (1, 2, 3)


def test_an_ab_decisions_record_holds_every_field():
    """The file's JSON: schema, cell, verdict, exit status, the measurement (seconds to 0.1), the limit, policy,
    gated signals, each decision, the pairs by arm and every window."""
    d = _ab()
    rec = d.to_record()
    assert rec == {
        "schema": 3,
        "cell": "cell c8",
        "verdict": "regression",
        "exit_status": 1,
        "mode": "sequential",
        "arms": ["base", "candidate"],
        "rate": 250.0,
        "blocks": 2,
        "extended": True,
        "reruns": 1,
        "seconds": 12.3,
        "phases": {},
        "error_rate": dict(d.error_rate),
        "peak_rss_mb": {"base": 40.0, "candidate": 50.0},
        "max_error_rate": 0.02,
        "policy": {"alpha": 0.01},
        "gated": ["throughput"],
        "looks": None,
        "look": None,
        "stopped": None,
        "settle_only": 0,
        "decisions": {k: v.to_record() for k, v in d.decisions.items()},
        "pairs": {"throughput": {"base": [1.0, 2.0], "candidate": [1.5, 2.5]}},
        "windows": [w.to_record() for w in d.windows],
    }
    assert rec["error_rate"]["candidate"] > 0 == rec["error_rate"]["base"]
    none = _ab(policy=None, gated=None).to_record()
    assert none["policy"] is None and none["gated"] is None


def test_an_ab_decision_reads_back_from_its_record():
    """Every field reads back typed; arms come from "arms" (whatever the order of the error rates' keys), else
    (schema 1) from the error rates' keys."""
    d = _ab()
    back = ABDecision.from_record(json.loads(json.dumps(d.to_record())))
    assert replace(back, decisions={}) == replace(d, decisions={}, measurement=replace(d.measurement, seconds=12.3))
    assert back.decisions["throughput"] == DECISION and math.isnan(back.decisions["cpu"].p)
    rec = d.to_record()
    old = ABDecision.from_record(
        {
            k: v
            for k, v in rec.items()
            if k
            not in (
                "arms",
                "schema",
                "extended",
                "policy",
                "gated",
                "max_error_rate",
                "blocks",
                "windows",
                "peak_rss_mb",
            )
        }
    )
    assert old.measurement.arms == ARMS and old.schema == 1 and old.extended is False
    assert (old.policy, old.gated, old.max_error_rate, old.measurement.blocks) == (None, None, None, None)
    assert old.windows == () and old.peak_rss_mb == {}
    typed = ABDecision.from_record(
        {
            **rec,
            "arms": ["a", 2],
            "error_rate": {2: 0, "a": "0.5"},
            "rate": None,
            "reruns": "3",
            "seconds": "1.5",
            "exit_status": "1",
            "extended": 1,
            "max_error_rate": "0.25",
            "schema": "2",
            "gated": ["x", 1],
            "cell": 5,
            "verdict": 0,
            "blocks": "7",
            "peak_rss_mb": {"a": "3"},
        }
    )
    assert typed.measurement.arms == ("a", "2") and typed.rate is None and typed.reruns == 3
    assert (typed.seconds, typed.exit_status, typed.extended, typed.max_error_rate, typed.schema) == (
        1.5,
        1,
        True,
        0.25,
        2,
    )
    assert (typed.gated, typed.cell, typed.verdict, typed.measurement.blocks) == (("x", "1"), "5", "0", 7)
    assert typed.error_rate == {"a": 0.5, 2: 0.0} and typed.peak_rss_mb == {"a": 3.0}
    assert ABDecision.from_record({**rec, "pairs": {"x": {"base": ["1"], "candidate": [2]}}}).pairs == {
        "x": ((1.0,), (2.0,))
    }


@pytest.mark.parametrize(
    "change, error, words",
    [
        ({"arms": ["only"]}, ValueError, "expected the two arms' labels, found ['only']"),
        ({"arms": ["a", "b", "c"]}, ValueError, "found ['a', 'b', 'c']"),
        ({"policy": [1]}, TypeError, "'policy' must be an object, found [1]"),
    ],
)
def test_an_ab_record_with_wrong_arms_or_policy_is_refused(change, error, words):
    """Arms other than two, or a policy that is not an object, raise naming what was found."""
    with pytest.raises(error) as info:
        ABDecision.from_record({**_ab().to_record(), **change})
    assert str(info.value) == words or words in str(info.value)


def test_a_decision_file_is_written_and_read(tmp_path):
    """``write`` stores the record as JSON; ``read`` gives back the same decision."""
    d = _ab(decisions={"throughput": DECISION})
    decisions.write(str(tmp_path / "d.json"), d)
    assert json.loads((tmp_path / "d.json").read_text()) == json.loads(json.dumps(d.to_record()))
    assert decisions.read(str(tmp_path / "d.json")) == replace(d, measurement=replace(d.measurement, seconds=12.3))


@pytest.mark.parametrize(
    "content, words",
    [
        ("{", "not a readable JSON file"),
        ("[]", "not an A/B decision file (no 'decisions' and 'pairs')"),
        ('{"decisions": [], "pairs": {}}', "not an A/B decision file"),
        ('{"decisions": {}}', "not an A/B decision file"),
        ('{"schema": 4, "decisions": {}, "pairs": {}}', "decision schema 4; this serverbench reads (1, 2, 3): upgrade"),
        ('{"schema": 0, "decisions": {}, "pairs": {}}', "decision schema 0"),
        ('{"schema": 2, "decisions": {}, "pairs": {}}', "cannot be read (KeyError"),
        ('{"schema": 2, "decisions": {}, "pairs": {}, "arms": ["a"]}', "cannot be read (ValueError: expected the two"),
    ],
)
def test_a_file_that_is_not_a_decision_is_refused_naming_it_and_the_fix(tmp_path, content, words):
    """Not JSON, not a decision, another schema or a malformed record: a DecisionFileError naming the file, what was
    wrong, and (but for a newer schema) the command that writes one."""
    path = tmp_path / "d.json"
    path.write_text(content)
    with pytest.raises(DecisionFileError) as info:
        decisions.read(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and words in message
    if "upgrade" not in words and "schema 0" not in words:
        assert message.endswith("; pass a file written by `serverbench gate --json`")
    with pytest.raises(DecisionFileError, match="no such file; pass a file written by"):
        decisions.read(tmp_path / "none.json")


def test_a_measurement_keeps_the_phases_it_is_given():
    """``Measurement.of`` keeps the wall seconds by phase as given (a copy), and none when given none."""
    given_phases = {"count": 1.5, "saturated": 30.25}
    m = Measurement.of("simultaneous", ARMS, {}, (), 1, 0, None, 1.0, given_phases)
    assert m.phases == given_phases and m.phases is not given_phases
    assert Measurement.of("simultaneous", ARMS, {}, (), 1, 0, None, 1.0).phases == {}


def test_later_blocks_add_the_seconds_of_each_phase():
    """``plus`` adds each phase's seconds; a phase only one side measured keeps its own seconds; the first side's
    phases come first."""
    first = Measurement.of("sequential", ARMS, {}, (), 1, 0, None, 1.0, {"count": 1.0, "start": 2.0})
    later = Measurement.of("sequential", ARMS, {}, (), 1, 0, None, 1.0, {"start": 0.5, "rate": 3.0})
    both = first.plus(later)
    assert both.phases == {"count": 1.0, "start": 2.5, "rate": 3.0} and list(both.phases) == ["count", "start", "rate"]
    assert later.plus(first).phases == {"start": 2.5, "rate": 3.0, "count": 1.0}


PHASE_SECONDS = st.dictionaries(st.sampled_from(PHASE_NAMES), st.floats(0.0, 1e5, allow_nan=False))


@fuzz(100)
@given(PHASE_SECONDS, PHASE_SECONDS)
def test_extended_phases_are_the_sum_over_every_phase_either_side_measured(a, b):
    """Whatever phases each side measured, the extended measurement has each of them once, with both sides' seconds
    added (a side that did not measure a phase adds nothing), and the order does not change the sums."""
    first = Measurement.of("sequential", ARMS, {}, (), 1, 0, None, 1.0, a)
    later = Measurement.of("sequential", ARMS, {}, (), 1, 0, None, 1.0, b)
    both = first.plus(later)
    assert set(both.phases) == set(a) | set(b)
    for name, seconds in both.phases.items():
        assert seconds == a.get(name, 0.0) + b.get(name, 0.0)
    assert later.plus(first).phases == both.phases


def test_the_sequential_looks_and_phases_read_back_from_a_decision_file(tmp_path):
    """A schema-3 decision's looks, the look it stopped at, why, how many looks could only settle, and the seconds
    by phase read back as written, from the record and from the file."""
    d = _ab(decisions={"throughput": DECISION}, looks=(5, 10, 16), look=1, stopped="settled", settle_only=1)
    d = replace(d, measurement=replace(d.measurement, seconds=12.3, phases={"count": 1.25, "saturated": 30.5}))
    rec = json.loads(json.dumps(d.to_record()))
    assert (rec["looks"], rec["look"], rec["stopped"], rec["settle_only"]) == ([5, 10, 16], 1, "settled", 1)
    assert rec["phases"] == {"count": 1.25, "saturated": 30.5}
    assert ABDecision.from_record(rec) == d
    decisions.write(tmp_path / "d.json", d)
    back = decisions.read(tmp_path / "d.json")
    assert (back.looks, back.look, back.stopped, back.settle_only) == ((5, 10, 16), 1, "settled", 1)
    assert back.measurement.phases == {"count": 1.25, "saturated": 30.5}


def test_looks_and_phases_stored_as_other_json_types_read_as_numbers():
    """Looks, the look and the settle-only count stored as text read as whole numbers, a phase's seconds as a float;
    a settle-only count of null as 0."""
    rec = _ab().to_record()
    typed = ABDecision.from_record(
        {**rec, "looks": ["5", 10.0], "look": "0", "settle_only": "2", "phases": {"count": "1.5", "rate": 2}}
    )
    assert (typed.looks, typed.look, typed.settle_only) == ((5, 10), 0, 2)
    assert typed.measurement.phases == {"count": 1.5, "rate": 2.0}
    assert all(isinstance(s, float) for s in typed.measurement.phases.values())
    assert ABDecision.from_record({**rec, "settle_only": None}).settle_only == 0


def test_a_schema_2_decision_has_one_look_and_no_phases():
    """A record without looks, look, stopped, settle-only count or phases (schema 2) reads as one look: none of the
    sequential design's fields, no settle-only look, no seconds by phase."""
    rec = {k: v for k, v in _ab().to_record().items() if k not in ("looks", "look", "stopped", "settle_only", "phases")}
    old = ABDecision.from_record({**rec, "schema": 2})
    assert (old.looks, old.look, old.stopped, old.settle_only, old.measurement.phases) == (None, None, None, 0, {})
