"""The gate's decision as text (report.gate): the step summary's table, the fixed-rate, peak RSS and error lines (a
value not measured says so and why, never zero), and the stop line."""

import io
from dataclasses import replace
from pathlib import Path

from serverbench.judge.ab import GATE_POLICY
from serverbench.judge.cost import Shift
from serverbench.judge.decision import Policy, decide
from serverbench.records.decisions import Measurement, p_text
from serverbench.report import gate as report
from serverbench.report.gate import markdown
from tests.unit.cli.test_gate import SAME, _run
from tests.unit.gate.test_workflow import _decision, _slower_decision

SHIFTS = (
    Shift("c", "handle", "_app.so", "app", "app", 100.0, 400.0, 0.25),
    Shift("python", "view", "app.views", "app", "app", None, 90.0, -0.0125),
)


def test_markdown_step_summary_has_delta_interval_p_and_verdict():
    """The CI step summary shows Δ, its interval, p, n, dispersion and the verdict per signal."""
    text = markdown(_run(SAME, [v * 0.8 for v in SAME]))
    assert "| throughput (rps), saturated | -20.0% | [" in text
    assert "**regression**" in text and "| 8 |" in text
    assert "error rate: base 0.00%, candidate 0.00% (limit 1.00%)" in text
    assert "peak RSS: base 50.0 MB, candidate 51.0 MB (+2.0%)" in text


def test_a_latency_regression_alone_fails_the_cell():
    """Throughput and CPU unchanged but p50/p90 at the fixed rate 30% worse: exit 1, and the table says which."""
    slower = decide(SAME, [v * 1.3 for v in SAME], Policy(higher_is_better=False))
    run = _run(SAME, SAME, latency=slower)
    assert run.verdict == "regression" and run.exit_status == 1
    text = markdown(run)
    assert "| latency p50 at the fixed rate | +30.0% |" in text
    assert "fixed rate: 2000 req/s per arm" in text and ": **regression**" in text


def test_markdown_is_the_whole_table_with_the_cost_shifts():
    """The step summary, line for line: heading, one row per judged signal, rate, RSS, errors, mode and windows,
    then the functions of a cost regression (C in instructions as module:function, Python in bytecodes)."""
    run = _decision()
    rows = [
        f"| {label} | {d.amount(d.delta)} | {d.interval()} | {p_text(d.p)} | {d.n} | "
        f"{d.amount(d.dispersion, sign=False)} | **{d.verdict}** |"
        for name, label in report.shown()
        if (d := run.decisions.get(name)) is not None
    ]
    assert len(rows) == 3
    expected = [
        "✓ `json` under aiohttp: throughput +0.0% (+0.0 … +0.0%)",
        "",
        f"### serverbench A/B: aiohttp/aiohttp json c32: **{run.verdict}**",
        "",
        "| signal | Δ | interval | p | n | dispersion | verdict |",
        "|---|---:|---|---:|---:|---:|---|",
        *rows,
        "",
        f"fixed rate: {report.rate_line(run)}",
        "",
        "peak RSS: base 44.0 MB, candidate 44.0 MB (+0.0%)",
        "",
        "error rate: base 0.00%, candidate 0.00% (limit 1.00%); mode simultaneous; 0 windows, 1 re-run; "
        "stopped: last look; 60 s",
        "",
    ]
    assert report.markdown(run) == "\n".join(expected)
    assert report.markdown(run, SHIFTS) == "\n".join(
        [
            *expected,
            "where the counted cost came from (functions by change; C in instructions, Python in bytecodes "
            "per request):",
            "",
            "| share of the cell | change/req | role | package | function |",
            "|---:|---:|---|---|---|",
            "| +25.00% | +300 instr | app | app | `_app.so:handle` |",
            "| -1.25% | +90 bytecodes | app | app | `app.views.view` |",
            "",
        ]
    )


def test_rate_and_rss_lines():
    """The fixed-rate line names the rate or its absence; the RSS line both peaks and the change."""
    assert (
        report.rate_line(_slower_decision(rate=250.0))
        == "250 req/s per arm (oha, open model, latency from the intended send time)"
    )
    assert report.rate_line(_slower_decision()).startswith("no fixed-rate windows (--rate off)")
    assert report.rss_line(_slower_decision()) == "base 44.0 MB, candidate 44.5 MB (+1.1%)"
    assert report.rss_line(_slower_decision(rss={"candidate": 10.0})) == (
        "base not measured (no window read its server's RSS), candidate 10.0 MB"
    )


def test_the_lines_read_whole_and_an_arm_without_a_peak_is_not_measured():
    """The no-rate line in full; an arm with no RSS peak reads "not measured" and why, never 0.0 MB, and no change."""
    assert report.rate_line(_slower_decision()) == (
        "no fixed-rate windows (--rate off): latency not gated, CPU per request from the saturated windows"
    )
    assert report.rss_line(_slower_decision(rss={"base": 10.0})) == (
        "base 10.0 MB, candidate not measured (no window read its server's RSS)"
    )


def test_a_gate_its_counts_ended_prints_no_zero_for_what_it_did_not_time(capsys):
    """A decision that stopped at its counted regression (no window) says its rate, peak RSS and error rates were not
    measured and why, in the terminal and the step summary; no "0.0 MB" nor "0.00%" (issue 51)."""
    run = replace(_decision(), stopped="counted")
    run = replace(run, measurement=Measurement.of("simultaneous", ("base", "candidate"), {}, (), 0, 0, None, 5.0))
    report.show(run)
    for text in (capsys.readouterr().out, report.markdown(run)):
        assert "0.0 MB" not in text and "0.00%" not in text, text
        assert text.count(report.NOT_TIMED) == 3, text
    assert "peak RSS: not measured: the counted regression ended the gate before any timed window" in report.markdown(
        run
    )


def test_a_decision_stopped_before_any_look_names_no_look():
    """A decision that stopped while counting (before any timed block) says only why; one stopped at a look says
    which look of how many, and the blocks measured."""
    run = replace(_decision(), looks=(6, 12), look=1)
    assert report.stop_line(replace(run, stopped="counted")) == "stopped: counted"
    assert report.stop_line(replace(run, stopped="settled")) == "stopped: settled at look 2 of 2 (12 blocks)"


def test_the_stop_line_lists_each_phase_of_half_a_second_or_more():
    """The time spent is listed by phase, in the measured order, joined by ', ', in whole seconds from one second
    and in tenths below it (half a second rounded to even would print as "0 s"); phases under half a second are
    left out, and with none left the line has no time part."""
    run = _decision()
    phases = {"count": 41.2, "warm-up": 1.0, "verify": 0.5, "stop": 0.49}
    line = report.stop_line(replace(run, measurement=replace(run.measurement, phases=phases)))
    assert line == "stopped: last look; time: count 41 s, warm-up 1 s, verify 0.5 s"
    quick = replace(run, measurement=replace(run.measurement, phases={"stop": 0.49}))
    assert report.stop_line(quick) == "stopped: last look"


def test_a_retry_names_each_unreached_gated_signal(capsys):
    """The retry line names the verdict, each gated signal that is rerun or inconclusive, and the new blocks."""
    run = _decision()
    decisions = {
        **run.decisions,
        "throughput": replace(run.decisions["throughput"], verdict="inconclusive"),
        "cpu": replace(run.decisions["cpu"], verdict="rerun"),
    }
    run = replace(run, decisions=decisions, verdict="inconclusive", gated=("throughput", "cpu", "rss"))
    report.retrying(run, 24)
    assert capsys.readouterr().err == (
        f"inconclusive: throughput {decisions['throughput'].summary()}; "
        f"cpu {decisions['cpu'].summary()}; retrying with 24 blocks\n"
    )


def test_what_the_gate_says_while_it_works_goes_to_standard_error(capsys):
    """The notes of a missing cost signal, an arm's setup, a cost regression's profile and a re-judged file are
    lines on standard error; standard output keeps only the decision."""
    report.no_cost_signal("valgrind is not installed")
    report.set_up("base", 1.25, Path("/tmp/base"))
    report.profiling("aiohttp/aiohttp json c32")
    report.rejudging("d.json", replace(GATE_POLICY, cells=2))
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.splitlines() == [
        "note: no cost signal (valgrind is not installed)",
        "base: perf_app_setup ran in 1.2 s in /tmp/base",
        "aiohttp/aiohttp json c32: counted cost regression; profiling both arms for the functions it came from",
        "re-judged d.json: alpha 0.01, 2 cells, min effect 0.03; no server started",
    ]


def test_the_decision_is_shown_on_the_stream_given(capsys):
    """show() prints on standard output, or on the stream given (bisect shows its confirming gate on stderr)."""
    run = _decision()
    report.show(run)
    printed = capsys.readouterr().out
    other = io.StringIO()
    report.show(run, file=other)
    assert other.getvalue() == printed and printed.startswith("✓ `json` under aiohttp: throughput +0.0% (")
    assert printed.splitlines()[1].startswith("aiohttp/aiohttp json c32: simultaneous")
    assert capsys.readouterr().out == ""
