"""The cost rules at their boundaries (issue 22): the stored-baseline tolerance, the A/B cost signal's limit
from both arms' spread, package changes, and the attribution's ranking by the size of a change."""

import math

import pytest

from serverbench.judge.cost import (
    COST_MIN_EFFECT,
    FAIL,
    PASS,
    Shift,
    attribute,
    diff,
    judge_cost,
    judge_counts,
    package_changes,
)
from serverbench.records.cost import CostBaseline, CostRecord, FunctionCost

ENV = {
    "interpreter": "cpython-3.11.7",
    "isa": "x86-64-v3",
    "libc": "glibc-2.36",
    "valgrind": "3.19.0",
    "packages": {"flask": "3.1.3"},
}


def _record(per_request, functions=()):
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
        ENV,
        1.0,
    )


def _baseline(per_request, functions=()):
    return CostBaseline("k", per_request, dict(ENV["packages"]), tuple(functions), (), "2026-01-01")


def test_stored_baseline_tolerance_is_inclusive():
    """A rise of exactly the tolerance passes (1.02 x); just over it (1.0201 x) fails."""
    assert judge_cost(_record(102_000), _baseline(100_000), 0.02).status == PASS
    assert judge_cost(_record(102_010), _baseline(100_000), 0.02).status == FAIL


def test_judge_counts_limit_follows_the_candidates_spread():
    """A tight base and a noisy candidate: the limit is 3x the candidate's spread, so a 5% rise passes."""
    base = [1000.0, 1000.0, 1000.0]
    candidate = [1030.0, 1050.0, 1070.0]  # spread 40/1050 = 3.8%: limit 11.4%
    d = judge_counts(base, candidate)
    assert d.verdict == "pass" and d.dispersion == pytest.approx(40 / 1050)


def test_judge_counts_limit_follows_the_bases_spread():
    """A noisy base and a tight candidate: the limit is 3x the base's spread, so a 5% rise passes."""
    d = judge_counts([980.0, 1000.0, 1020.0], [1050.0, 1050.0, 1050.0])
    assert d.verdict == "pass" and d.dispersion == pytest.approx(0.04)


def test_judge_counts_min_effect_floor_at_its_boundary():
    """Identical repeats (no spread): a rise of 0.9% passes, 1.1% is a regression, a 1.1% fall an improvement."""
    base = [1000.0, 1000.0]
    assert COST_MIN_EFFECT == 0.01
    assert judge_counts(base, [1009.0, 1009.0]).verdict == "pass"
    assert judge_counts(base, [1011.0, 1011.0]).verdict == "regression"
    assert judge_counts(base, [989.0, 989.0]).verdict == "improvement"
    assert judge_counts(base, [991.0, 991.0]).verdict == "pass"


def test_judge_counts_spread_factor_at_its_boundary():
    """A/A spread 1% in an arm: a rise of 2.9% passes (limit 3%), 3.1% is a regression."""
    base = [995.0, 1000.0, 1005.0]  # spread 10/1000 = 1%
    assert judge_counts(base, [1029.0] * 3).verdict == "pass"
    assert judge_counts(base, [1031.0] * 3).verdict == "regression"


def test_judge_counts_needs_two_counts_in_each_arm():
    """One count in either arm is inconclusive; two in each are judged."""
    assert judge_counts([1000.0], [1100.0, 1100.0]).verdict == "inconclusive"
    assert judge_counts([1000.0, 1000.0], [1100.0]).verdict == "inconclusive"
    d = judge_counts([1000.0, 1000.0], [1100.0, 1100.0])
    assert d.verdict == "regression" and d.n == 2 and math.isnan(d.p)


def test_package_changes_names_added_and_removed_packages():
    """A package only in the candidate is added (absent -> version), one only in the base removed."""
    assert package_changes({"a": "1"}, {"a": "1", "b": "2"}) == ["b absent -> 2"]
    assert package_changes({"a": "1", "b": "2"}, {"a": "1"}) == ["b 2 -> absent"]
    assert package_changes({"a": "1"}, {"a": "1.1"}) == ["a 1 -> 1.1"]
    assert package_changes({"a": "1"}, {"a": "1"}) == []


def test_attribution_ranks_by_the_size_of_a_change_either_way():
    """A function that lost 30% of the cell ranks above one that gained 10%: ranked by |share|."""
    fn = lambda name, n: FunctionCost("c", name, "m.so", "pkg", "server", n)  # noqa: E731
    shifts = attribute(
        _baseline(1_000, [fn("shrank", 400), fn("grew", 100)]),
        _record(1_000, [fn("shrank", 100), fn("grew", 200)]),
        top=1,
    )
    assert [(s.function, round(s.share, 3)) for s in shifts] == [("shrank", -0.3)]


def test_a_shift_of_a_new_function_counts_from_zero():
    """A function absent from the base: its delta is its whole candidate count."""
    assert Shift("c", "f", "m", "p", "server", None, 50.0, 0.05).delta == 50.0


def test_a_shift_is_stored_and_printed_with_its_numbers():
    """A shift's record rounds counts to 0.1 and the share to 5 places; its line shows level, unit and place."""
    c = Shift("c", "memcpy", "libc.so.6", "glibc", "system", 1000.04, 1500.06, 0.123456)
    assert c.to_record() == {
        "level": "c",
        "function": "memcpy",
        "module": "libc.so.6",
        "package": "glibc",
        "role": "system",
        "base": 1000.0,
        "candidate": 1500.1,
        "delta": 500.0,
        "share": 0.12346,
    }
    assert c.line() == ("+12.35% of the cell          +500 instr/req (1,000 -> 1,500)  system: glibc  libc.so.6:memcpy")
    py = Shift("python", "match", "werkzeug.routing", "werkzeug", "framework", None, 40.0, -0.01)
    assert py.to_record()["base"] is None
    assert py.line() == (
        " -1.00% of the cell           +40 bytecodes/req (new -> 40)  framework: werkzeug  werkzeug.routing.match"
    )


def test_diff_keeps_every_field_of_a_grown_and_a_gone_function():
    """A grown function and a vanished one: each shift names its level, function, module, package, role and counts."""
    grown = FunctionCost("python", "match", "werkzeug.routing", "werkzeug", "framework", 100.0)
    gone = FunctionCost("c", "memcpy", "libc.so.6", "glibc", "system", 50.0)
    shifts = {
        s.function: s
        for s in diff(
            [grown, gone], [FunctionCost("python", "match", "werkzeug.routing", "werkzeug", "framework", 150.0)], 1_000
        )
    }
    assert shifts["match"] == Shift("python", "match", "werkzeug.routing", "werkzeug", "framework", 100.0, 150.0, 0.05)
    assert shifts["memcpy"] == Shift("c", "memcpy", "libc.so.6", "glibc", "system", 50.0, 0.0, -0.05)


def test_diff_new_function_at_the_floor_is_left_out_and_later_ones_still_counted():
    """A new function spending exactly the base's smallest stored count is left out; one above it, listed after, is kept;
    with no stored base every new function counts."""
    base = [fn_("a", 500.0), fn_("b", 100.0)]
    shifts = diff(base, [fn_("a", 500.0), fn_("b", 100.0), fn_("at", 100.0), fn_("above", 100.5)], 1_000)
    assert {s.function for s in shifts} == {"a", "b", "above"}
    assert [s.function for s in diff([], [fn_("x", 0.5)], 1_000)] == ["x"]
    assert diff(base, [], 1_000) == []


def test_a_cell_with_one_count_per_arm_is_inconclusive_with_n():
    """Fewer than two counts: inconclusive, n is the smaller arm's count, not borderline."""
    d = judge_counts([1000.0], [1000.0, 1000.0, 1000.0])
    assert (d.verdict, d.n, d.borderline) == ("inconclusive", 1, False)


def fn_(name, n):
    return FunctionCost("c", name, "m.so", "pkg", "server", n)
