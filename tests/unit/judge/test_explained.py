"""Timeouts the kernel's SYN drops explain do not fail a cell; every other error still does (judge.explained)."""

from dataclasses import replace

from serverbench.config.options import Thresholds
from serverbench.judge.explained import SYN_RETRY_S, judged_error_rate, syn_drop_errors, syn_tries
from serverbench.judge.verdict import FAIL, NO_BASELINE, PASS, BaselineCheck
from serverbench.records.baselines import Baseline
from serverbench.report.terminal import summary_table

LIMIT = Thresholds(tolerance=0.2, max_error_rate=0.01)


def _cell(make_result, timeouts, drops, timeout_s=5, **errors):
    """wsgiref-like: 1,000 rps for 5 s with ``timeouts`` timeouts, ``drops`` listen drops counted in the window."""
    r = make_result(rps=1000, errors={"timeout": timeouts, **errors}, variant="wsgiref")
    return replace(
        r,
        kernel={"listen_overflows": drops, "listen_drops": drops},
        generator=replace(r.generator, timeout_s=timeout_s),
    )


def test_syn_tries_count_the_first_syn_and_each_retry_before_the_timeout():
    """Retries at 1, 3, 7, 15 s after the first: 3 SYNs before 5 s, a retry at the timeout itself is too late."""
    assert SYN_RETRY_S[:4] == (1.0, 3.0, 7.0, 15.0)
    assert [syn_tries(t) for t in (1, 1.001, 3, 3.001, 5, 7, 7.001, 13, 30)] == [1, 2, 2, 3, 3, 3, 4, 4, 5]


def test_drops_explain_at_most_one_timeout_per_syn_tries_drops(make_result):
    """237 drops explain 79 timeouts at 5 s (3 each); 236 explain 78; one more timeout than drops allow counts."""
    assert syn_drop_errors(_cell(make_result, 79, 237)).errors == 79
    assert syn_drop_errors(_cell(make_result, 79, 236)).errors == 78
    assert syn_drop_errors(_cell(make_result, 79, 10_000)).errors == 79  # never more than the timeouts
    assert syn_drop_errors(_cell(make_result, 79, 237, timeout_s=13)).errors == 59  # 4 SYNs before 13 s


def test_nothing_is_explained_without_drops_timeouts_or_enough_drops(make_result):
    """No drop, no timeout, or fewer drops than one timeout needs: no explanation (None)."""
    assert syn_drop_errors(_cell(make_result, 79, 0)) is None
    assert syn_drop_errors(_cell(make_result, 0, 498)) is None
    assert syn_drop_errors(_cell(make_result, 79, 2)) is None
    assert syn_drop_errors(_cell(make_result, 79, 3)).errors == 1


def _run_cell(make_result, timeouts, run_timeouts, run_drops, drops=0, timeout_s=61):
    """wsgiref /upstream on oha: the window's ``timeouts`` taken from the run's ``run_timeouts``; the kernel counted
    ``drops`` in the window and ``run_drops`` over the run."""
    r = _cell(make_result, timeouts, drops, timeout_s=timeout_s)
    run_errors = {"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": run_timeouts}
    return replace(
        r,
        load=replace(r.load, run_errors=run_errors, error_attribution="timeouts x 0.667"),
        kernel={**r.kernel, "run_listen_drops": run_drops, "run_listen_overflows": run_drops},
    )


def test_timeouts_taken_from_a_run_are_judged_on_the_runs_drops(make_result):
    """wsgiref /upstream, 61 s timeout (6 SYNs each): 49 window timeouts of the run's 74; 221 drops in the window
    explain 36, but a request sent in the window drops its SYNs up to 61 s after it: the run's 444 drops explain all
    74 of its timeouts, so all 49; 300 explain 50 of 74, so 49 x 50 / 74 = 33 of the window's."""
    full = syn_drop_errors(_run_cell(make_result, 49, 74, 444, drops=221))
    assert full.errors == 49
    assert "its 444 listen drops at 6 dropped SYNs each before the 61 s timeout explain 74 of its 74" in full.cause
    assert syn_drop_errors(_run_cell(make_result, 49, 74, 300, drops=221)).errors == 33
    assert syn_drop_errors(_run_cell(make_result, 49, 74, 443, drops=221)).errors == 48  # 73 of 74: 48.3
    assert syn_drop_errors(_run_cell(make_result, 49, 74, 10_000)).errors == 49  # never more than the window's
    assert syn_drop_errors(_run_cell(make_result, 49, 74, 5, drops=221)) is None  # no run timeout explained
    # No run count of drops (a record before them), or no run timeout: the window's drops against its timeouts.
    assert syn_drop_errors(_run_cell(make_result, 49, 74, 0, drops=221)).errors == 36
    assert syn_drop_errors(_run_cell(make_result, 49, 0, 444, drops=221)).errors == 36
    assert syn_drop_errors(_run_cell(make_result, 49, 0, 444, drops=0)) is None
    assert (
        "6 dropped SYNs each before the 61 s timeout)" in syn_drop_errors(_run_cell(make_result, 49, 0, 0, 221)).cause
    )
    # Run errors that name no timeout (only connect errors): the window's drops too.
    cell = _run_cell(make_result, 49, 0, 444, drops=221)
    cell = replace(cell, load=replace(cell.load, run_errors={"connect": 3}))
    assert syn_drop_errors(cell).errors == 36


def test_the_run_drops_read_the_larger_of_drops_and_overflows(make_result):
    """As in the window: the run's drops are the larger of its two counters."""
    cell = _run_cell(make_result, 49, 74, 0, drops=221)
    more = replace(cell, kernel={**cell.kernel, "run_listen_overflows": 444})
    assert syn_drop_errors(more).errors == 49
    more = replace(cell, kernel={**cell.kernel, "run_listen_drops": 444})
    assert syn_drop_errors(more).errors == 49


def test_a_record_without_its_timeout_is_read_at_the_default(make_result):
    """Records written before generator.timeout_s: the drivers' 5 s (3 SYNs per timeout)."""
    cell = _cell(make_result, 10, 30)
    cell = replace(cell, generator=replace(cell.generator, timeout_s=None))
    assert syn_drop_errors(cell).errors == 10 and "5 s timeout" in syn_drop_errors(cell).cause


def test_the_judged_rate_drops_only_the_explained_errors(make_result):
    """Explained errors leave the rate's denominator alone; the rest keep their share."""
    cell = _cell(make_result, 80, 150, read=20)  # 50 of 80 timeouts explained
    explained = syn_drop_errors(cell)
    assert explained.errors == 50
    assert judged_error_rate(cell, explained) == cell.error_rate * 50 / 100
    assert judged_error_rate(cell, None) == cell.error_rate


def test_a_cell_whose_timeouts_the_drops_explain_passes_and_names_the_cause(make_result):
    """wsgiref on /json in the census: 79 timeouts, 498 drops: passes (no baseline) with the cause in one line."""
    verdict = BaselineCheck().judge(_cell(make_result, 79, 498), None, LIMIT)
    assert verdict.status == NO_BASELINE
    assert "79 of 79 timeouts are the kernel's 498 listen drops" in verdict.message
    with_baseline = BaselineCheck().judge(_cell(make_result, 79, 498), _baseline(), LIMIT)
    assert with_baseline.status == PASS and "listen drops" in with_baseline.message


def test_the_same_errors_fail_when_nothing_explains_them(make_result):
    """No drops, or read errors beside the drops: the error rate fails the cell, the timeout used named."""
    verdict = BaselineCheck().judge(_cell(make_result, 79, 0), None, LIMIT)
    assert verdict.status == FAIL and "timeout 79" in verdict.message and "timeout 5 s" in verdict.message
    mixed = BaselineCheck().judge(_cell(make_result, 79, 498, read=80), None, LIMIT)
    assert mixed.status == FAIL and "read 80" in mixed.message and "not counted: 79 of 79" in mixed.message


def test_the_unexplained_rest_is_judged_at_the_limit(make_result):
    """5,000 answers: 50 unexplained timeouts (1.00%) pass, 51 fail; drops explain the others."""
    at = _cell(make_result, 50 + 20, 60)  # 20 explained, 50 left
    over = _cell(make_result, 51 + 20, 60)
    assert at.load.requests == 5000 and syn_drop_errors(at).errors == 20
    assert BaselineCheck().judge(at, None, LIMIT).status == NO_BASELINE
    assert BaselineCheck().judge(over, None, LIMIT).status == FAIL


def test_the_summary_does_not_show_an_explained_cells_latency_as_its_speed(make_result):
    """SYN in place of p50 and p99, and one line naming the cause under the table."""
    cell = _cell(make_result, 79, 498)
    text = summary_table([(cell, BaselineCheck().judge(cell, None, LIMIT))], [], 200)
    row = next(line for line in text.splitlines() if line.startswith("│ wsgiref"))
    assert row.count("SYN") == 2
    assert "SYN wsgiref/- json c64: 79 of 79 timeouts are the kernel's 498 listen drops" in text
    plain = make_result(variant="wsgiref")
    assert "SYN" not in summary_table([(plain, BaselineCheck().judge(plain, None, LIMIT))], [], 200)


def _baseline():
    return Baseline("test_x::wsgiref/json/c64", rps=1000.0, error_rate=0.0, p50_ms=1.0, p99_ms=2.0, recorded_at="x")


def test_either_kernel_counter_alone_explains_and_a_missing_one_counts_no_drop(make_result):
    """ListenDrops alone or ListenOverflows alone (30 each: 10 timeouts at 5 s) explain; a record that lacks a
    counter reads it as no drop, even where one drop would explain a timeout (a 1 s timeout: one SYN)."""
    r = _cell(make_result, 10, 0)
    assert syn_drop_errors(replace(r, kernel={"listen_drops": 30, "listen_overflows": 0})).errors == 10
    assert syn_drop_errors(replace(r, kernel={"listen_drops": 0, "listen_overflows": 30})).errors == 10
    one_syn = replace(r, generator=replace(r.generator, timeout_s=1))
    assert syn_drop_errors(replace(one_syn, kernel={"listen_overflows": 0})) is None
    assert syn_drop_errors(replace(one_syn, kernel={"listen_drops": 0})) is None
    assert syn_drop_errors(replace(one_syn, kernel={"listen_drops": 1})).errors == 1


def test_a_no_baseline_verdict_names_no_cause_when_nothing_was_explained(make_result):
    """Without explained errors the no-baseline message ends at the command that stores one."""
    v = BaselineCheck().judge(_cell(make_result, 0, 0), None, LIMIT)
    assert v.status == NO_BASELINE and v.message.endswith("`") and "not counted" not in v.message
