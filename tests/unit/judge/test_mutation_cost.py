"""The cost judgement's exact outputs (issue 22, mutation survivors): a shift's line and record, a failure's
report, the A/B cost signal's fields and its limit at equality, and the edges of the attribution."""

import math

import pytest

from serverbench.judge.cost import (
    FAIL,
    PASS,
    CostVerdict,
    Shift,
    attribute,
    by_package,
    diff,
    judge_cost,
    judge_counts,
    spread,
)
from serverbench.records.cost import CostBaseline, CostRecord, FunctionCost

ENV = {
    "interpreter": "cpython-3.11.7",
    "isa": "x86-64-v3",
    "libc": "glibc-2.36",
    "valgrind": "3.19.0",
    "packages": {"flask": "3.1.3"},
}
C_SHIFT = Shift("c", "PyEval", "libpython3.11.so.1.0", "cpython", "interpreter", 1000.0, 1500.0, 0.05)
PY_SHIFT = Shift("python", "view", "app.views", "app", "app", None, 20.0, 0.1)


def _record(per_request):
    return CostRecord(
        "t::c", "gunicorn-sync-w2", "flask", "json", "/json", 100, int(per_request * 100), (), (), ENV, 1.0
    )


def _baseline(per_request):
    return CostBaseline("k", per_request, dict(ENV["packages"]), (), (), "2026-01-01")


def _fn(name, per_request, package="pkg", role="server"):
    return FunctionCost("c", name, "m.so", package, role, per_request)


def test_shift_line_of_a_c_function():
    """A C function's line: share, change and counts in instructions, role, package, module:function."""
    assert C_SHIFT.line() == (
        " +5.00% of the cell          +500 instr/req (1,000 -> 1,500)  "
        "interpreter: cpython  libpython3.11.so.1.0:PyEval"
    )


def test_shift_line_of_a_new_python_function():
    """A Python function absent from the base: bytecodes, 'new' for the base, module.function."""
    assert PY_SHIFT.line() == "+10.00% of the cell           +20 bytecodes/req (new -> 20)  app: app  app.views.view"


def test_shift_record_has_every_field_rounded():
    """A shift's record names level, function, module, package, role, base, candidate, delta and share."""
    assert C_SHIFT.to_record() == {
        "level": "c",
        "function": "PyEval",
        "module": "libpython3.11.so.1.0",
        "package": "cpython",
        "role": "interpreter",
        "base": 1000.0,
        "candidate": 1500.0,
        "delta": 500.0,
        "share": 0.05,
    }
    assert PY_SHIFT.to_record()["base"] is None


def test_failure_report_lists_each_shift_and_the_packages():
    """A failure's report: the message, a header, one indented line per shift, then the sum by package."""
    lines = CostVerdict(FAIL, "cost rose", shifts=(C_SHIFT, PY_SHIFT)).report().split("\n")
    assert lines[0] == "cost rose" and lines[1].startswith("where it came from (top 2 functions")
    assert lines[2:4] == ["  " + C_SHIFT.line(), "  " + PY_SHIFT.line()]
    assert lines[4] == "by package: app app +10.00%, interpreter cpython +5.00%"
    assert CostVerdict(PASS, "fine").report() == "fine"


def test_report_names_at_most_five_packages():
    """The by-package line stops at the five largest."""
    shifts = tuple(Shift("c", f"f{i}", "m.so", f"p{i}", "server", 1.0, 2.0, i / 100) for i in range(1, 7))
    assert CostVerdict(FAIL, "m", shifts=shifts).report().split("\n")[-1] == (
        "by package: server p6 +6.00%, server p5 +5.00%, server p4 +4.00%, server p3 +3.00%, server p2 +2.00%"
    )


def test_by_package_ranks_by_size_of_change_not_by_name():
    """A fall of 30% ranks above a rise of 20%, which ranks above a rise of 10%, whatever the names."""
    shifts = [
        Shift("c", "f", "m", "a", "server", 1.0, 2.0, 0.1),
        Shift("c", "g", "m", "b", "server", 1.0, 0.0, -0.3),
        Shift("c", "h", "m", "c", "server", 1.0, 2.0, 0.2),
    ]
    assert [p for _, p, _ in by_package(shifts)] == ["b", "c", "a"]


def test_judge_cost_records_the_baseline_and_ratio_either_way():
    """Pass and fail verdicts both carry the baseline's count per request and the ratio."""
    ok, bad = judge_cost(_record(100), _baseline(100.0), 0.02), judge_cost(_record(200), _baseline(100.0), 0.02)
    assert (ok.status, ok.baseline_per_request, ok.ratio) == (PASS, 100.0, 1.0)
    assert (bad.status, bad.baseline_per_request, bad.ratio) == (FAIL, 100.0, 2.0)


def test_judge_cost_of_a_baseline_of_one_instruction_is_a_ratio():
    """A baseline of 1 instruction per request is divided by, not treated as empty."""
    assert judge_cost(_record(1), _baseline(1.0), 0.02).ratio == 1.0


def test_judge_cost_of_an_empty_baseline_fails_with_an_infinite_ratio():
    """A stored baseline of zero instructions: any count is an infinite rise and fails."""
    verdict = judge_cost(_record(10), _baseline(0.0), 0.02)
    assert verdict.status == FAIL and verdict.ratio == math.inf


def test_judge_counts_inconclusive_carries_no_statistics():
    """Fewer than two counts: NaN delta, interval, p and dispersion; n the smaller arm; not borderline."""
    d = judge_counts([1000.0], [1000.0, 1000.0, 1000.0])
    assert d.verdict == "inconclusive" and d.n == 1 and d.borderline is False
    assert all(math.isnan(x) for x in (d.delta, d.ci[0], d.ci[1], d.p, d.dispersion))
    assert d.reason == "cost: fewer than two counts in an arm, no A/A spread to judge by"


def test_judge_counts_at_exactly_the_limit_passes():
    """A change of exactly the limit either way passes: only beyond it is a regression or an improvement."""
    assert judge_counts([2.0, 2.0], [3.0, 3.0], min_effect=0.5).verdict == "pass"
    assert judge_counts([2.0, 2.0], [1.0, 1.0], min_effect=0.5).verdict == "pass"


def test_judge_counts_interval_spans_the_extremes_of_both_arms():
    """The interval runs from the lowest candidate over the highest base to the highest over the lowest."""
    d = judge_counts([100.0, 125.0], [150.0, 200.0, 160.0])
    assert d.ci == (pytest.approx(150 / 125 - 1), pytest.approx(200 / 100 - 1))
    assert d.n == 2 and d.borderline is False and math.isnan(d.p)


def test_spread_of_a_zero_median_is_zero():
    """Counts whose median is zero have no relative spread: 0, not a division by zero."""
    assert spread([0.0, 0.0, 0.0]) == 0.0
    assert spread([-1.0, 0.0, 1.0]) == 0.0


def test_diff_of_an_empty_base_counts_every_function_as_new():
    """With no stored functions, every candidate function with a count is new, even below one per request."""
    shifts = diff([], [_fn("small", 0.5)], 10.0)
    assert [(s.function, s.base, s.share) for s in shifts] == [("small", None, 0.05)]


def test_diff_leaves_out_a_new_function_at_the_floor_but_goes_on():
    """A new function no larger than the smallest stored one is left out; the functions after it still count."""
    base = [_fn("kept", 5.0)]
    shifts = diff(base, [_fn("tiny", 5.0), _fn("kept", 7.0)], 100.0)
    assert [(s.function, s.base, s.candidate) for s in shifts] == [("kept", 5.0, 7.0)]


def test_diff_of_a_function_gone_keeps_its_identity():
    """A stored function absent from the candidate: its level, module, package and role, base, 0 now."""
    gone = FunctionCost("python", "f", "mod", "pkg", "app", 4.0)
    assert diff([gone, _fn("k", 1.0)], [_fn("k", 1.0)], 0.0) == [
        Shift("c", "k", "m.so", "pkg", "server", 1.0, 1.0, 0.0),
        Shift("python", "f", "mod", "pkg", "app", 4.0, 0.0, 0.0),
    ]


def _moved_record(per_request, functions, packages):
    env = {**ENV, "packages": packages}
    return CostRecord(
        "t::c",
        "gunicorn-sync-w2",
        "flask",
        "json",
        "/json",
        100,
        int(per_request * 100),
        (),
        tuple(functions),
        env,
        1.0,
    )


def test_a_pass_without_a_move_carries_no_attribution():
    """Within tolerance and nothing moved: no functions are attributed, though their counts differ."""
    base = CostBaseline("k", 100.0, dict(ENV["packages"]), (_fn("f", 50.0),), (), "2026-01-01")
    verdict = judge_cost(_moved_record(101, [_fn("f", 51.0)], dict(ENV["packages"])), base, 0.02)
    assert verdict.status == PASS and verdict.shifts == ()


def test_a_move_names_every_package_and_the_top_three_functions():
    """Two moved packages are joined by '; ', and at most three functions are named; none is 'none'."""
    base = CostBaseline("k", 100.0, {"a": "1", "b": "1"}, tuple(_fn(f"f{i}", 10.0) for i in range(4)), (), "2026-01-01")
    grown = [_fn(f"f{i}", 10.0 + i + 1) for i in range(4)]
    verdict = judge_cost(_moved_record(101, grown, {"a": "2", "b": "2"}), base, 0.02)
    assert verdict.status == PASS and len(verdict.shifts) == 4
    assert verdict.message == (
        "+1.00% after a 1 -> 2; b 1 -> 2: 101 instructions/request vs baseline 100 "
        "(tolerance 2.0%); top functions by change: pkg m.so:f3 +4.00%, "
        "pkg m.so:f2 +3.00%, pkg m.so:f1 +2.00%"
    )
    assert judge_cost(
        _moved_record(100, [], {"a": "2", "b": "1"}), CostBaseline("k", 100.0, {"a": "1", "b": "1"}, (), (), "x"), 0.02
    ).message.endswith("top functions by change: none")


def test_a_pass_without_a_move_has_no_after_clause():
    """Nothing moved: the message starts with the change and has no 'after' clause."""
    assert judge_cost(_record(100), _baseline(100.0), 0.02).message == (
        "+0.00%: 100 instructions/request vs baseline 100 (tolerance 2.0%)"
    )


def test_cost_verdict_record_names_every_field():
    """The stored cost verdict: status, message, baseline, ratio (6 places), attribution and moves."""
    verdict = CostVerdict(FAIL, "m", 100.0, 1.23456789, (C_SHIFT,), ("a 1 -> 2",))
    assert verdict.to_record() == {
        "status": FAIL,
        "message": "m",
        "baseline_per_request": 100.0,
        "ratio": 1.234568,
        "attribution": [C_SHIFT.to_record()],
        "moved": ["a 1 -> 2"],
    }


def test_shift_short_names_c_and_python_functions_differently():
    """A C function is module:function, a Python one module.function, each with its share."""
    assert C_SHIFT.short() == "cpython libpython3.11.so.1.0:PyEval +5.00%"
    assert PY_SHIFT.short() == "app app.views.view +10.00%"


def test_an_app_function_that_changed_by_half_an_instruction_is_named():
    """Below the top, an app function whose count moved by exactly 0.5 per request is still named."""
    app = FunctionCost("python", "view", "app.views", "app", "app", 1.0)
    moved = FunctionCost("python", "view", "app.views", "app", "app", 1.5)
    big = [FunctionCost("c", f"f{i}", "m.so", "p", "server", 100.0) for i in range(2)]
    bigger = [FunctionCost("c", f"f{i}", "m.so", "p", "server", 200.0) for i in range(2)]
    base = CostBaseline("k", 1000.0, {}, tuple(big), (app,), "x", python_per_request=1000.0)
    record = CostRecord(
        "t::c", "v", "flask", "json", "/json", 100, 100_000, (), tuple(bigger), ENV, 1.0, python_functions=(moved,)
    )
    assert [s.function for s in attribute(base, record, top=2)] == ["f0", "f1", "view"]
