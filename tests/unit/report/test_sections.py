"""The HTML report's section selection and data shaping: records in, chart and table values out (no browser)."""

import dataclasses
import json
from pathlib import Path

import pytest

from serverbench.catalog.shapes import LoadShape
from serverbench.judge.checks import check
from serverbench.records.results import Failure, ResultsFile, Stored
from serverbench.report.charts import BarChart, Fold, IntervalChart, LineChart, Table
from serverbench.report.inputs import Inputs, load, read_decision
from serverbench.report.sections import select
from tests.unit.sample_records import result
from tests.unit.synthetic import record

KEY = "test_throughput::{}/flask/json/c64"


def shaped(variant: str, rps: float, shape: LoadShape, p99: float = 10.0, impl: str = "cpython", warm=()):
    """A sample result of ``variant`` with the given shape, throughput and p99."""
    base = result(KEY.format(variant), rps, impl=impl, warm=warm, p99=p99)
    return dataclasses.replace(base, shape=shape)


def run(name: str, results, created: str = "2026-11-10T00:00:00+00:00", machine: str = "m1", failures=()):
    """A results file called ``name`` holding ``results``."""
    return ResultsFile(
        Path(f"{name}.json"), 2, created, {"id": machine}, tuple(Stored(r, None) for r in results), tuple(failures)
    )


def ids(inputs: Inputs) -> list[str]:
    return [s.id for s in select(inputs)]


def section(inputs: Inputs, sid: str):
    return next(s for s in select(inputs) if s.id == sid)


def test_a_single_session_at_one_shape_shows_only_the_summary_and_cpu():
    """One connection count, no rates, no reuse, one run: no sweep, ladder, reuse, history or A/B section."""
    inputs = Inputs((run("s", [shaped("a", 1000, LoadShape(64)), shaped("b", 2000, LoadShape(64))]),), ())
    assert ids(inputs) == ["summary", "cpu"]


def test_nothing_to_show_gives_no_sections():
    """A results file with no results and no failures has no section at all."""
    assert ids(Inputs((run("s", []),), ())) == []


def test_summary_rows_carry_flags_errors_and_failures():
    """The summary has one sortable row per result and per failure; SAT and error classes are shown."""
    r = shaped("a", 1000, LoadShape(64))
    saturated = dataclasses.replace(r.generator, cpu_s=9.5)  # 95% of 2 cores busy over 5 s
    errors = dataclasses.replace(r.load, errors={**r.load.errors, "timeout": 3, "status": 2})
    r = dataclasses.replace(r, generator=saturated, load=errors)
    failure = Failure("t::x", "b", "flask", "json", 64, "server died")
    table = section(Inputs((run("s", [r], failures=[failure]),), ()), "summary").blocks[0]
    assert isinstance(table, Table) and table.sortable and len(table.rows) == 2
    row = {c.name: cell for c, cell in zip(table.columns, table.rows[0])}
    assert row["flags"].text == "SAT" and row["error classes"].text == "timeout 3, status 2"
    assert table.rows[1][-1].text == "error"


def test_connection_sweep_is_one_line_per_cell_in_connection_order():
    """Two cells at c2, c64, c256 give two lines in each of the rps and p99 charts, x ascending."""
    results = [
        shaped(v, rps * c, LoadShape(c), p99=c / 10) for v, rps in (("a", 1.0), ("b", 2.0)) for c in (256, 2, 64)
    ]
    s = section(Inputs((run("s", results),), ()), "connections")
    rps, p99 = [b for b in s.blocks if isinstance(b, LineChart)]
    assert [x.name for x in rps.series] == ["a/flask json", "b/flask json"]
    assert rps.series[1].points == ((2, 4.0), (64, 128.0), (256, 512.0))
    assert p99.y.log and p99.series[0].points[-1] == (256, 25.6)


def test_rate_ladder_marks_the_knee():
    """p99 jumps past 3x the lowest rate's at 400 req/s: the knee mark is there, percentiles are lines."""
    results = [
        shaped("a", rate, LoadShape(256, rate=rate), p99=p99)
        for rate, p99 in ((100, 2.0), (200, 2.5), (400, 9.0), (800, 50.0))
    ]
    s = section(Inputs((run("s", results),), ()), "rates")
    ladder = [b for b in s.blocks if isinstance(b, LineChart)][1]
    assert [m.x for m in ladder.marks] == [400]
    assert [x.name for x in ladder.series] == ["p50", "p90", "p99", "p999"]


def test_reuse_compares_keep_alive_with_a_connection_per_request():
    """Keep-alive and one request per connection of one cell become two bars of one category."""
    results = [shaped("a", 3000, LoadShape(64)), shaped("a", 1000, LoadShape(64, requests_per_connection=1))]
    s = section(Inputs((run("s", results),), ()), "reuse")
    chart = s.blocks[0]
    assert isinstance(chart, BarChart)
    assert [(b.group, b.value) for b in chart.bars] == [("keep-alive", 3000.0), ("1 request per connection", 1000.0)]
    assert "33% of keep-alive" in s.blocks[1].text


def test_warm_up_rounds_and_interpreters_side_by_side():
    """PyPy's warm-up rounds are a line ending at the measured window; the same key on two interpreters is
    compared, PyPy over CPython."""
    cpython = run("py311", [shaped("a", 1000, LoadShape(64))])
    pypy = run(
        "pypy3",
        [shaped("a", 3000, LoadShape(64), impl="pypy", warm=(500, 1500, 2800))],
        created="2026-11-10T01:00:00+00:00",
    )
    s = section(Inputs((cpython, pypy), ()), "interpreters")
    warm = s.blocks[0]
    assert isinstance(warm, LineChart) and warm.series[0].points == ((1, 500), (2, 1500), (3, 2800), (4, 3000.0))
    table = s.blocks[2]
    assert [c.name for c in table.columns][-1] == "pypy-3.11.7 / cpython-3.11.7"
    assert table.rows[0][-1].text == "3.00"


def gate_record(verdict: str = "pass") -> dict:
    pairs = {
        "throughput": {"base": [100.0, 200.0, 400.0], "candidate": [110.0, 180.0, 400.0]},
        "rss": {"base": [40.0, 40.0, 40.0], "candidate": [40.0, 40.0, 40.4]},
    }
    decision = {
        "verdict": verdict,
        "delta": 0.01,
        "ci": [-0.05, 0.07],
        "p": 0.4,
        "n": 3,
        "dispersion": 0.1,
        "borderline": False,
        "reason": "-",
    }
    return {
        "cell": "aiohttp/aiohttp json c32",
        "verdict": verdict,
        "mode": "simultaneous",
        "rate": 4000,
        "decisions": {"rss": decision, "throughput": decision},
        "pairs": pairs,
        "windows": [],
    }


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


def test_history_of_two_runs_is_one_overview_chart():
    """A cell in two runs on one machine is drawn; too few runs to search for change points is said."""
    first = run("n1", [shaped("a", 1000, LoadShape(64))])
    second = run("n2", [shaped("a", 1100, LoadShape(64))], created="2026-11-11T00:00:00+00:00")
    s = section(Inputs((first, second), ()), "history")
    assert "at least 8 runs" in s.blocks[0].text
    assert isinstance(s.blocks[1], LineChart) and len(s.blocks[1].series) == 1


def test_history_marks_a_sustained_drop():
    """Eight runs at ~1000 rps then eight at ~700: the change point is marked at the ninth run."""
    values = [1000, 1010, 990, 1005, 995, 1002, 998, 1008, 700, 705, 695, 702, 698, 701, 699, 703]
    runs = [
        run(f"n{i:02d}", [shaped("a", v, LoadShape(64))], created=f"2026-11-{i + 1:02d}T00:00:00+00:00")
        for i, v in enumerate(values)
    ]
    s = section(Inputs(tuple(runs), ()), "history")
    chart = s.blocks[1]
    assert [m.label for m in chart.marks] == ["-30%"] and chart.marks[0].x == 8.0  # days since the first run
    assert "Change points found" in s.blocks[0].text


def test_load_tells_results_decisions_and_cost_apart(tmp_path):
    """A results file (with cost records) and a gate decision are recognised; the cost shows in the cpu section."""
    rec = result(KEY.format("a"), 1000).to_record()
    cost = {
        "kind": "cost",
        "variant": "a",
        "app": "flask",
        "workload": "json",
        "requests": 200,
        "instructions": 50_000_000,
        "verdict": {"status": "pass"},
    }
    (tmp_path / "r.json").write_text(
        json.dumps(
            {
                "schema": 2,
                "created": "2026-11-10T00:00:00+00:00",
                "machine": {"id": "m1"},
                "results": [rec],
                "cost": [cost],
            }
        )
    )
    (tmp_path / "g.json").write_text(json.dumps(gate_record()))
    inputs = load([tmp_path])
    assert len(inputs.results) == 1 and len(inputs.decisions) == 1 and inputs.costs[0].per_request == 250_000
    counted = [c for c in section(inputs, "cpu").charts if "instructions" in c.axis.label]
    assert counted[0].bars[0].value == 250_000


def test_html_summary_shows_the_stored_flags_with_their_messages():
    """A stored record's flags are named in the summary's flags column and listed with their messages."""
    stalled = record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=0.1)
    flags = [f.to_record() for f in check(stalled)]
    run = ResultsFile(
        Path("s.json"),
        2,
        "2026-11-23T00:00:00+00:00",
        {"id": "m"},
        (Stored(stalled, None, stalled.to_record(None, flags)),),
        (),
    )
    summary = next(s for s in select(Inputs((run,), ())) if s.id == "summary")
    table = summary.blocks[0]
    row = {c.name: cell for c, cell in zip(table.columns, table.rows[0])}
    assert row["flags"].text == "stall"
    fold = next(b for b in summary.blocks if isinstance(b, Fold))
    assert fold.blocks[0].rows[0][-1].text == flags[0]["message"]
