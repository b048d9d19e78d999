"""The pull request's comment (report.comment) on decisions the judge made and cost records judge_cost made: its
marker, heading, verdict lines, table, could-not-decide advice, runner line and folded statistics; an error's and a
not-measured change's comment."""

from serverbench.report import gate
from serverbench.report.comment import (
    Runner,
    cost_comment,
    error_comment,
    gate_comment,
    marker,
    not_measured_comment,
    signal_table,
    summary,
)
from tests.unit.report.sample_decisions import BASE, SHIFTS, cost_record, counted, noisy, timed, unheld

RUNNER = Runner("GitHub Actions 3", "Linux", "X64", "ubuntu24 20241201.1", "AMD EPYC 7763 64-Core Processor", 2)


def test_the_comment_leads_with_its_marker_heading_and_verdict_lines():
    """Marker first (the poster finds the comment by it), the worst verdict in the heading, then one line a cell."""
    text = gate_comment("shop", [(counted(), SHIFTS), (timed(BASE, cell="waitress-t4/todo.app add c32"), ())], RUNNER)
    lines = text.splitlines()
    assert lines[0] == "<!-- serverbench ci: shop -->" == marker("shop")
    assert lines[1] == "### serverbench gate of `shop`: ✗ regression"
    assert lines[3] == "2 cells: 1 ✗ regression, 1 ✓ pass"
    assert lines[5].startswith("- ✗ `list` under waitress-t4: +12.4% instructions per request (`todo.app.list_todos`")
    assert lines[6].startswith("- ✓ `add` under waitress-t4: throughput +0.0%")


def test_the_table_has_each_arms_value_the_change_and_the_limit():
    """One row per gated signal: the arms' medians in their unit, Δ, and the limit (the counted cost's from its
    counts: 3x their spread or the 1% floor)."""
    rows = signal_table([(timed([v * 0.9 for v in BASE]), ())])
    assert rows[:2] == ["| signal | base | head | Δ | limit |", "|---|---:|---:|---:|---:|"]
    assert rows[2] == "| throughput (rps), saturated | 100 req/s | 90.05 req/s | −10.0% | ±3.0% |"
    assert rows[3] == "| server CPU per request at the fixed rate | 100 µs CPU/req | 100 µs CPU/req | +0.0% | ±2.0% |"
    counted_rows = signal_table([(counted(), SHIFTS)])
    assert counted_rows[2] == (
        "| instructions per request (counted) | 1,000 instr/req | 1,124 instr/req | +12.4% | ±1.0% |"
    )
    assert counted_rows[3] == "| system calls | — | — | +1.000 per request | each figure's own |"


def test_the_statistics_and_functions_are_folded():
    """Today's step-summary table and the functions go inside <details>, after the runner line."""
    run = counted()
    text = gate_comment(".", [(run, SHIFTS)], RUNNER)
    assert text.splitlines()[1] == "### serverbench gate: ✗ regression"
    before, folded = text.split("<details><summary>", 1)
    assert gate.statistics(run, SHIFTS) in folded and "`todo.app.list_todos`" in folded
    assert "| signal | Δ | interval | p | n | dispersion | verdict |" not in before
    assert (
        "Base and head ran in one session, interleaved, on one runner `GitHub Actions 3` (Linux X64, image "
        "ubuntu24 20241201.1), AMD EPYC 7763 64-Core Processor, 2 cores." in before
    )
    assert folded.rstrip().endswith("</details>")


def test_could_not_decide_says_why_and_what_to_do():
    """A too-noisy cell: which signal, its dispersion, and the flags to try (--endpoint, --blocks, --retries)."""
    text = gate_comment(".", [(noisy(), ())], Runner())
    assert "### serverbench gate: ⚠ could not decide" in text
    assert (
        "**⚠ Could not decide** `list` under waitress-t4: throughput too noisy (dispersion 40.8%, limit 15.0%)." in text
    )
    assert "Not a pass and not a failure" in text
    assert "`--endpoint NAME`" in text and "`-- --blocks 32`" in text and "`-- --retries 1`" in text
    assert "on one machine" in text


def test_could_not_decide_at_a_rate_never_held_says_to_give_one_it_can_hold():
    """Every latency and CPU pair discarded at a fixed rate of 100,000 requests/s: the comment names the rate and
    asks for one the base can hold (`-- --rate N`, `-- --rate auto`), not for more blocks; a noisy cell keeps its
    advice without the rate's."""
    text = gate_comment(".", [(unheld(), ())], Runner())
    assert "### serverbench gate: ⚠ could not decide" in text and "Not a pass and not a failure." in text
    assert "latency p50: no pairs, the fixed rate held in no block" in text
    assert "fell short of the fixed rate (100,000 requests/s per arm) in every block" in text
    assert "`-- --rate N`" in text and "`-- --rate auto`" in text and "--blocks" not in text
    assert "fell short" not in gate_comment(".", [(noisy(), ())], Runner())
    both = gate_comment(".", [(unheld(), ()), (noisy(), ())], Runner())
    assert "`-- --rate auto`" in both and "`-- --blocks 32`" in both


def test_a_setup_error_posts_its_line_and_the_log_tail():
    """The error's first line after ✗, the rest of its message (the server's command and log tail) as code."""
    message = (
        "waitress-t4 did not start: exited with code 1\n  command: waitress-serve todo.app:app\n"
        "  last lines of its output:\n    ModuleNotFoundError: No module named 'todo'"
    )
    text = error_comment("todo", "gate", message)
    lines = text.splitlines()
    assert lines[:4] == [
        "<!-- serverbench ci: todo -->",
        "### serverbench gate of `todo`: ✗ error",
        "",
        "✗ error: waitress-t4 did not start: exited with code 1",
    ]
    assert "```\n  command: waitress-serve todo.app:app\n" in text and "ModuleNotFoundError" in text
    assert "```" not in error_comment(".", "ci", "--mode 'x' is not a mode: give --mode auto, gate or cost")


def test_not_measured_says_why():
    """A base without serverbench's settings: ○ and the reason."""
    text = not_measured_comment(".", "gate", "the base (abc) has no serverbench settings: this change adds them.")
    assert text.splitlines()[1:4] == [
        "### serverbench gate: ○ not measured",
        "",
        "○ not measured: the base (abc) has no serverbench settings: this change adds them.",
    ]


def test_the_summary_is_the_comment_without_its_marker():
    """The step summary: the same body, the hidden marker line left out."""
    text = not_measured_comment(".", "cost", "first commit")
    assert summary(text) == text.split("\n", 1)[1] and not summary(text).startswith("<!--")


def test_the_cost_comment_has_the_same_shape():
    """A push's counted cells: marker, heading, a line a cell, base | head | Δ | limit, the functions folded."""
    text = cost_comment(
        "todo", [cost_record(112_400), cost_record(100_100, workload="add")], RUNNER, "0123456789abcdef"
    )
    lines = text.splitlines()
    assert lines[:4] == [
        "<!-- serverbench ci: todo -->",
        "### serverbench cost of `todo`: ✗ regression",
        "",
        "2 cells: 1 ✓ pass, 1 ✗ regression",
    ]
    assert "- ✗ `list` under waitress-t4: +12.4% instructions per request (`todo.app.list_todos` +9.1%)" in lines
    assert "| `list` waitress-t4 | instructions per request | 100,000 | 112,400 | +12.4% | +2.0% |" in lines
    assert "The commit before the push (`0123456789ab`)" in text
    folded = text.split("<details>", 1)[1]
    assert "| +9.10% | +9 bytecodes | app | flask-todo | `todo.app.list_todos` |" in folded
