"""A decision in one line of words (report.verdict), from decisions the judge made on given pairs and from cost
records judge_cost made: each verdict's symbol and the numbers that decided it."""

from dataclasses import replace

from serverbench.report.verdict import cost_line, decision_line, overall, verdict_of, where
from tests.unit.report.sample_decisions import BASE, SHIFTS, cost_record, counted, noisy, timed, unheld


def test_a_counted_regression_names_its_functions_and_system_calls():
    """The counted cost's Δ, the app's function first, then a system call more per request, by name."""
    assert decision_line(counted(), SHIFTS) == (
        "✗ `list` under waitress-t4: +12.4% instructions per request (`todo.app.list_todos` +9.1%, "
        "`libpython3.11.so:PyUnicode_Format` +12.0%), +1.00 `openat` per request"
    )


def test_a_timed_regression_gives_its_change_and_interval():
    """A 10% drop of throughput: its Δ and interval, with minus signs."""
    assert decision_line(timed([v * 0.9 for v in BASE])) == (
        "✗ `list` under waitress-t4: throughput −10.0% (−10.0 … −10.0%)"
    )


def test_an_improvement_and_a_pass_have_their_own_symbols():
    """⚡ for an improvement (the improved signal), ✓ for a pass (throughput, the counted cost when there is one)."""
    assert (
        decision_line(timed([v * 1.1 for v in BASE]))
        == "⚡ `list` under waitress-t4: throughput +10.0% (+10.0 … +10.0%)"
    )
    assert decision_line(timed(BASE)).startswith("✓ `list` under waitress-t4: throughput +0.0% (")


def test_could_not_decide_names_the_signal_and_its_dispersion():
    """A rerun is ⚠ and says which signal was too noisy, its dispersion and the limit."""
    run = noisy()
    assert run.verdict == "rerun" and verdict_of(run) == "could not decide"
    assert decision_line(run) == (
        "⚠ `list` under waitress-t4: could not decide: throughput too noisy (dispersion 40.8%, limit 15.0%)"
    )


def test_could_not_decide_at_a_rate_never_held_says_so_for_each_signal():
    """Latency and CPU per request without a pair (the base arm held the fixed rate in no block): ⚠, each signal
    named with that reason, not "too few to judge"; throughput, which passed, is not named."""
    run = unheld()
    assert run.exit_status == 3 and verdict_of(run) == "could not decide"
    said = "no pairs, the fixed rate held in no block"
    assert decision_line(run) == (
        f"⚠ `list` under waitress-t4: could not decide: latency p50: {said}, latency p90: {said}, "
        f"CPU per request: {said}"
    )


def test_an_error_rate_over_the_limit_is_a_regression_said_as_such():
    """A pass whose candidate failed 5% of its requests exits 1: the line says the error rate failed it."""
    run = timed(BASE)
    failed = replace(
        run,
        exit_status=1,
        measurement=replace(run.measurement, error_rate={"base": 0.0, "candidate": 0.05}),
        gated=(),
    )
    assert verdict_of(failed) == "regression"
    assert decision_line(failed) == (
        "✗ `list` under waitress-t4: error rate over the limit 1.00% (base 0.00%, candidate 5.00%)"
    )


def test_the_cell_names_its_endpoint_and_variant():
    """``VARIANT/APP ENDPOINT cN`` reads as the endpoint and the variant."""
    assert where("waitress-t4/todo.app list c32") == ("list", "waitress-t4")


def test_cost_lines_say_each_cells_verdict():
    """A counted cell: a rise beyond its tolerance ✗ with its function, a pass ✓, a fall ⚡, no baseline ○."""
    assert cost_line(cost_record(112_400)) == (
        "✗ `list` under waitress-t4: +12.4% instructions per request (`todo.app.list_todos` +9.1%)"
    )
    assert cost_line(cost_record(100_500)) == "✓ `list` under waitress-t4: +0.5% instructions per request"
    assert cost_line(cost_record(90_000, app=-5.0)).startswith("⚡ `list` under waitress-t4: −10.0% instructions")
    record = cost_record(100_000)
    record["verdict"] = {"status": "no-baseline", "message": "no stored cost baseline"}
    assert cost_line(record) == "○ `list` under waitress-t4: not measured: no stored cost baseline"


def test_the_worst_verdict_is_the_whole_one():
    """An error over a regression over could-not-decide over an improvement over a pass; none: not measured."""
    assert overall(["pass", "could not decide", "improvement"]) == "could not decide"
    assert overall(["pass", "regression", "could not decide"]) == "regression"
    assert overall(["improvement", "pass"]) == "improvement"
    assert overall([]) == "not measured"


def test_too_few_pairs_and_an_ambiguous_count_say_so():
    """An inconclusive throughput names its pairs; an inconclusive counted cost gives the judge's reason."""
    few = timed(BASE[:3], base=BASE[:3])
    assert few.verdict == "inconclusive"
    assert decision_line(few) == "⚠ `list` under waitress-t4: could not decide: throughput: 3 pairs, too few to judge"
    ambiguous = counted(base=(1000.0,), cand=(1020.0,), system="")
    assert decision_line(ambiguous) == (
        "⚠ `list` under waitress-t4: could not decide: instructions per request: counted once per arm: 1,020 vs "
        "1,000 instructions/request (+2.00%), between the 1% floor and 3%: each arm is counted once more"
    )
