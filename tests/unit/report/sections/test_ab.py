"""A/B decisions (report.sections.ab): a gate decision's signals as intervals with their pairs and thresholds and
as a table, and a proof run's decisions folded, one chart per signal."""

from pathlib import Path

import pytest

from serverbench.report.charts import Fold, IntervalChart, Mark, Note
from serverbench.report.inputs import Inputs, read_decision
from tests.unit.report.sample_inputs import gate_record, section

THROUGHPUT = "throughput (rps), saturated"


def test_gate_decision_shows_paired_ratios_interval_and_threshold():
    """Each signal is a row: its pairs as candidate/base - 1, its interval, the gate's minimum effect
    (3% for throughput); peak RSS is not gated, so it has no threshold; signals in the gate's order."""
    decision = read_decision(Path("gate.json"), gate_record())
    s = section(Inputs((), (decision,)), "ab")
    chart = s.blocks[0]
    assert isinstance(chart, IntervalChart)
    throughput, rss = chart.rows
    assert throughput.points == pytest.approx((0.1, -0.1, 0.0))
    assert (throughput.low, throughput.high, throughput.threshold) == (-0.05, 0.07, 0.03)
    assert rss.threshold is None and "RSS" in rss.label


def test_proof_runs_fold_one_chart_per_signal():
    """A proof run of early decisions (throughput at the top level) is folded: one chart, a row per decision."""
    data = {
        "calibration": {},
        "decisions": [
            {"condition": c, "round": i, "verdict": v, "delta": d, "ci": [d - 0.05, d + 0.05], "p": 0.01, "n": 12}
            for i, (c, v, d) in enumerate((("A/A", "pass", 0.01), ("10%", "regression", -0.1)))
        ],
    }
    s = section(Inputs((), (read_decision(Path("proof.json"), data),)), "ab")
    fold = s.blocks[0]
    assert isinstance(fold, Fold) and "A/A: pass 1; 10%: regression 1" in fold.summary
    (chart,) = fold.blocks
    assert [r.label for r in chart.rows] == ["A/A #0", "10% #1"] and len(s.charts) == 1


def test_the_gate_table_states_each_change_in_its_signal_s_unit_and_flags_a_regression():
    """A regression is flagged in the table; relative signals are percents; growth (judged in MB per 10k requests)
    is stated in its unit and left out of the relative chart; a signal not gated has a dash for threshold."""
    data = gate_record("regression")
    data["decisions"]["throughput"] = {
        "verdict": "regression",
        "delta": -0.08,
        "ci": [-0.1, -0.06],
        "p": 0.001,
        "n": 12,
    }
    data["decisions"]["growth"] = {
        "verdict": "pass",
        "delta": 0.1234,
        "ci": [-0.2, 0.4],
        "p": None,
        "n": 12,
        "unit": "MB/10k req",
    }
    chart, table, note = section(Inputs((), (read_decision(Path("gate.json"), data),)), "ab").blocks
    assert chart.title == "aiohttp/aiohttp json c32: regression (gate)" and chart.references == (
        Mark(0.0, "no change"),
    )
    assert [r.label for r in chart.rows] == [THROUGHPUT, "peak RSS (reported, not gated)"]
    rows = {row[0].text: [c.text for c in row[1:]] for row in table.rows}
    assert rows[THROUGHPUT] == ["regression", "-8.0%", "[-10.0%, -6.0%]", "0.0010", "12", "3.0%"]
    assert rows["PSS growth per 10k requests (soaks)"] == [
        "pass",
        "+0.123 MB/10k req",
        "[-0.200 MB/10k req, +0.400 MB/10k req]",
        "-",
        "12",
        "1.000 MB/10k req",
    ]
    assert rows["peak RSS (reported, not gated)"][-1] == "-"
    assert [row[1].flag for row in table.rows] == ["fail", "", "fail"]  # peak RSS shares the record's regression
    assert isinstance(note, Note) and note.text.startswith("simultaneous mode, 0 windows, fixed rate 4000 req/s")


def test_a_proof_run_draws_the_threshold_on_both_sides_and_counts_verdicts_per_condition():
    """Throughput's 3% minimum effect is drawn at -3% and +3% beside 0; verdicts are counted per condition, in name
    order within one."""
    rounds = (("A/A", "pass", 0.0), ("A/A", "pass", 0.01), ("5%", "regression", -0.05), ("5%", "pass", -0.02))
    data = {
        "decisions": [
            {"condition": c, "round": i, "verdict": v, "delta": d, "ci": [d - 0.02, d + 0.02], "p": 0.1, "n": 12}
            for i, (c, v, d) in enumerate(rounds)
        ],
    }
    (fold,) = section(Inputs((), (read_decision(Path("proof.json"), data),)), "ab").blocks
    assert fold.summary.startswith("Proof run proof: 4 decisions; A/A: pass 2; 5%: pass 1, regression 1 (click")
    (chart,) = fold.blocks
    assert chart.references == (Mark(0.0, "0"), Mark(-0.03, "-3%"), Mark(0.03, "+3%"))
    assert [(r.label, r.verdict) for r in chart.rows][2] == ("5% #2", "regression")
