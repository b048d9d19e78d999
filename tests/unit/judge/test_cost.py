"""The cost judgement on synthetic counts: tolerance, package changes, attribution, spread."""

import math
import re
from dataclasses import replace

import pytest

from serverbench.judge.ab import COST, GATE_POLICY, judge
from serverbench.judge.cost import (
    COST_MIN_EFFECT,
    FAIL,
    NO_BASELINE,
    PASS,
    TOP,
    CostVerdict,
    Shift,
    attribute,
    by_package,
    diff,
    judge_cost,
    judge_counts,
    package_changes,
    spread,
)
from serverbench.records.cost import CostBaseline, CostRecord, CountSpread, FunctionCost, SystemCounts
from serverbench.records.decisions import Decision

PACKAGES = {"flask": "3.1.3", "werkzeug": "3.1.9"}


def fn(name, per_request, level="c", module="libpython3.11.so.1.0", package="cpython", role="interpreter"):
    return FunctionCost(level, name, module, package, role, per_request)


def record(per_request, functions=(), python_functions=(), packages=PACKAGES, requests=100):
    return CostRecord(
        "t::c",
        "gunicorn-sync-w2",
        "flask",
        "json",
        "/json",
        requests,
        int(per_request * requests),
        (),
        tuple(functions),
        {
            "interpreter": "cpython-3.11.7",
            "isa": "x86-64-v3",
            "libc": "glibc-2.36",
            "valgrind": "3.19.0",
            "packages": dict(packages),
        },
        1.0,
        python_functions=tuple(python_functions),
    )


def baseline(per_request, functions=(), python_functions=(), packages=PACKAGES):
    return CostBaseline("k", per_request, dict(packages), tuple(functions), tuple(python_functions), "2026-01-01")


def test_within_tolerance_passes():
    """A rise smaller than the tolerance passes and reports the change."""
    verdict = judge_cost(record(101_500), baseline(100_000), tolerance=0.02)
    assert verdict.status == PASS
    assert verdict.ratio == pytest.approx(1.015)
    assert "+1.50%" in verdict.message


def test_rise_beyond_tolerance_fails():
    """A rise larger than the tolerance fails."""
    verdict = judge_cost(record(102_100), baseline(100_000), tolerance=0.02)
    assert verdict.status == FAIL
    assert "beyond tolerance" in verdict.message


def test_tolerance_is_the_test_setting():
    """The same rise passes at a wider tolerance."""
    assert judge_cost(record(102_100), baseline(100_000), tolerance=0.03).status == PASS


def test_a_drop_passes():
    """Fewer instructions than the baseline is never a failure."""
    assert judge_cost(record(50_000), baseline(100_000), tolerance=0.02).status == PASS


def test_no_baseline_names_the_save_command():
    """Without a stored baseline the verdict says how to store one."""
    verdict = judge_cost(record(100_000), None, tolerance=0.02)
    assert verdict.status == NO_BASELINE
    assert "--perf-save-baseline" in verdict.message


FLASK_RAN = [fn("dispatch_request", 9_000, "python", "flask.app", "flask", "framework")]
CERTIFI_MOVED = {**PACKAGES, "certifi": "2026.10.19.post1"}
WITH_CERTIFI = {**PACKAGES, "certifi": "2026.10.18"}


def ran_baseline(per_request, packages, ran, python_functions=FLASK_RAN):
    return CostBaseline("k", per_request, dict(packages), (), tuple(python_functions), "2026-01-01", ran=frozenset(ran))


def test_a_package_that_never_ran_moved_is_judged_normally():
    """certifi moved but ran in neither window: the cell is judged and the move is not mentioned."""
    verdict = judge_cost(
        record(101_000, python_functions=FLASK_RAN, packages=CERTIFI_MOVED),
        ran_baseline(100_000, WITH_CERTIFI, {"flask"}),
        0.02,
    )
    assert verdict.status == PASS
    assert verdict.moved == ()
    assert "certifi" not in verdict.message and "after" not in verdict.message


def test_a_package_that_never_ran_moved_still_fails_a_rise():
    """A rise beyond the tolerance fails whatever moved among packages that never ran."""
    verdict = judge_cost(record(103_000, packages=CERTIFI_MOVED), ran_baseline(100_000, WITH_CERTIFI, {"flask"}), 0.02)
    assert verdict.status == FAIL
    assert "certifi" not in verdict.message


def test_a_running_package_moved_is_judged_and_named():
    """flask ran and moved: the cell is still judged, and the verdict names the move and the top functions."""
    moved = {**PACKAGES, "flask": "3.1.2"}
    cand = [fn("dispatch_request", 13_100, "python", "flask.app", "flask", "framework")]
    verdict = judge_cost(
        record(104_100, python_functions=cand, packages=moved), ran_baseline(100_000, PACKAGES, {"flask"}), 0.02
    )
    assert verdict.status == FAIL
    assert verdict.moved == ("flask 3.1.3 -> 3.1.2",)
    assert "+4.10% after flask 3.1.3 -> 3.1.2" in verdict.message
    assert "top functions by change: flask flask.app.dispatch_request" in verdict.message
    assert verdict.to_record()["moved"] == ["flask 3.1.3 -> 3.1.2"]


def test_a_running_package_moved_within_tolerance_passes_named():
    """A move of a package that ran with a count inside the tolerance passes, and says what moved."""
    verdict = judge_cost(
        record(100_500, python_functions=FLASK_RAN, packages={**PACKAGES, "flask": "3.2.0"}),
        ran_baseline(100_000, PACKAGES, {"flask"}),
        0.02,
    )
    assert verdict.status == PASS
    assert "after flask 3.1.3 -> 3.2.0" in verdict.message


def test_a_package_that_ran_only_in_the_candidate_is_named():
    """A package that ran only in the candidate's window (its record says so) counts as having run."""
    blinker = [fn("send", 500, "python", "blinker.base", "blinker", "framework")]
    verdict = judge_cost(
        record(100_000, python_functions=FLASK_RAN + blinker, packages={**PACKAGES, "blinker": "1.9"}),
        ran_baseline(100_000, {**PACKAGES, "blinker": "1.8"}, {"flask"}),
        0.02,
    )
    assert verdict.moved == ("blinker 1.8 -> 1.9",)


def test_a_running_package_added_is_named():
    """A package that ran and was absent from the baseline's environment is named as added."""
    blinker = [fn("send", 500, "python", "blinker.base", "blinker", "framework")]
    verdict = judge_cost(
        record(100_000, python_functions=FLASK_RAN + blinker, packages={**PACKAGES, "blinker": "1.9"}),
        ran_baseline(100_000, PACKAGES, {"flask"}),
        0.02,
    )
    assert verdict.moved == ("blinker absent -> 1.9",)


def test_a_running_package_removed_is_named():
    """A package that ran in the baseline's window and is gone from the candidate's is named as removed."""
    verdict = judge_cost(
        record(100_000, python_functions=FLASK_RAN, packages=PACKAGES),
        ran_baseline(100_000, {**PACKAGES, "blinker": "1.9"}, {"flask", "blinker"}),
        0.02,
    )
    assert verdict.status == PASS
    assert verdict.moved == ("blinker 1.9 -> absent",)


def test_an_unknown_ran_set_names_every_move():
    """A baseline stored without a Python profile cannot say what ran: every move is named, the cell judged."""
    verdict = judge_cost(record(100_000, packages=CERTIFI_MOVED), baseline(100_000, packages=WITH_CERTIFI), 0.02)
    assert verdict.status == PASS
    assert verdict.moved == ("certifi 2026.10.18 -> 2026.10.19.post1",)


def test_failure_names_the_functions_that_grew():
    """A failing verdict lists the functions by change, with package and role, largest first."""
    base = [
        fn("_PyEval_EvalFrameDefault", 50_000),
        fn("match", 10_000, "python", "werkzeug.routing", "werkzeug", "framework"),
    ]
    cand = [
        fn("_PyEval_EvalFrameDefault", 51_000),
        fn("match", 21_000, "python", "werkzeug.routing", "werkzeug", "framework"),
    ]
    verdict = judge_cost(record(112_000, cand[:1], cand[1:]), baseline(100_000, base[:1], base[1:]), 0.02)
    assert verdict.status == FAIL
    top = verdict.shifts[0]
    assert (top.module, top.function, top.package, top.role) == ("werkzeug.routing", "match", "werkzeug", "framework")
    assert top.delta == pytest.approx(11_000)
    assert "werkzeug.routing.match" in verdict.report()
    assert verdict.to_record()["attribution"][0]["role"] == "framework"


def test_attribution_keeps_the_top_ten():
    """At most ten functions are reported, ranked by the size of their change."""
    base = [fn(f"f{i}", 1_000) for i in range(20)]
    cand = [fn(f"f{i}", 1_000 + i * 10) for i in range(20)]
    shifts = attribute(baseline(20_000, base), record(21_900, cand))
    assert [s.function for s in shifts] == [f"f{i}" for i in range(19, 9, -1)]


def test_function_absent_from_base_counts_as_new_when_large():
    """A candidate function above the base's smallest stored one is new; a small one is left out."""
    shifts = diff([fn("a", 500), fn("b", 100)], [fn("a", 500), fn("b", 100), fn("big", 900), fn("tiny", 50)], 1_000)
    names = {s.function: s for s in shifts}
    assert names["big"].base is None and names["big"].share == pytest.approx(0.9)
    assert "tiny" not in names


def test_function_gone_from_candidate_is_a_negative_shift():
    """A stored function the candidate no longer spends anything on counts as a drop."""
    shifts = diff([fn("a", 500), fn("gone", 200)], [fn("a", 500)], 1_000)
    assert [(s.function, s.share) for s in shifts if s.function == "gone"] == [("gone", pytest.approx(-0.2))]


def test_by_package_sums_shares():
    """Shares add up per role and package."""
    shifts = diff(
        [fn("a", 100, package="werkzeug", role="framework"), fn("b", 100, package="werkzeug", role="framework")],
        [fn("a", 150, package="werkzeug", role="framework"), fn("b", 130, package="werkzeug", role="framework")],
        1_000,
    )
    assert by_package(shifts) == [("framework", "werkzeug", pytest.approx(0.08))]


def test_spread_is_range_over_median():
    """The A/A spread is (max - min) / median."""
    assert spread([100.0, 101.0, 99.0]) == pytest.approx(0.02)
    with pytest.raises(ValueError):
        spread([])


# Merged from test_cost_boundaries.py: The cost rules at their boundaries (issue 22): the stored-baseline tolerance,
# the A/B cost signal's limit from both arms' spread, package changes, and the attribution's ranking by the size of a
# change.
ENV = {
    "interpreter": "cpython-3.11.7",
    "isa": "x86-64-v3",
    "libc": "glibc-2.36",
    "valgrind": "3.19.0",
    "packages": {"flask": "3.1.3"},
}


def _record(per_request, functions=(), packages=None):
    """A counted record of ``per_request`` instructions a request (100 requests), its environment ENV's but for
    ``packages``."""
    env = ENV if packages is None else {**ENV, "packages": packages}
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


def _baseline(per_request, functions=()):
    return CostBaseline("k", per_request, dict(ENV["packages"]), tuple(functions), (), "2026-01-01")


def test_stored_baseline_tolerance_is_inclusive():
    """A rise of exactly the tolerance passes (1.02 x); just over it (1.0201 x) fails."""
    assert judge_cost(_record(102_000), _baseline(100_000), 0.02).status == PASS
    assert judge_cost(_record(102_010), _baseline(100_000), 0.02).status == FAIL


@pytest.mark.parametrize(
    "base, candidate, dispersion",
    [
        pytest.param(
            [1000.0, 1000.0, 1000.0],
            [1030.0, 1050.0, 1070.0],  # spread 40/1050 = 3.8%: limit 11.4%
            40 / 1050,
            id="a tight base and a noisy candidate: 3x the candidate's spread",
        ),
        pytest.param([980.0, 1000.0, 1020.0], [1050.0, 1050.0, 1050.0], 0.04, id="a noisy base: 3x the base's spread"),
    ],
)
def test_judge_counts_limit_follows_the_noisier_arms_spread(base, candidate, dispersion):
    """The limit is 3x the spread of the noisier arm, so a 5% rise passes."""
    d = judge_counts(base, candidate)
    assert d.verdict == "pass" and d.dispersion == pytest.approx(dispersion)


@pytest.mark.parametrize(
    "base, candidate, verdict",
    [
        # Identical repeats (no spread): the COST_MIN_EFFECT floor of 1% either way.
        pytest.param([1000.0, 1000.0], [1009.0, 1009.0], "pass", id="no spread, +0.9%"),
        pytest.param([1000.0, 1000.0], [1011.0, 1011.0], "regression", id="no spread, +1.1%"),
        pytest.param([1000.0, 1000.0], [989.0, 989.0], "improvement", id="no spread, -1.1%"),
        pytest.param([1000.0, 1000.0], [991.0, 991.0], "pass", id="no spread, -0.9%"),
        # A/A spread 1% in an arm (10/1000): the limit is 3%.
        pytest.param([995.0, 1000.0, 1005.0], [1029.0] * 3, "pass", id="1% spread, +2.9%"),
        pytest.param([995.0, 1000.0, 1005.0], [1031.0] * 3, "regression", id="1% spread, +3.1%"),
    ],
)
def test_judge_counts_min_effect_floor_and_spread_factor_at_their_boundaries(base, candidate, verdict):
    """Just inside and just outside the 1% floor and the 3x spread: pass, regression or improvement."""
    assert COST_MIN_EFFECT == 0.01
    assert judge_counts(base, candidate).verdict == verdict


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


# Merged from test_cost_app_attribution.py: A cost failure always names the app's own functions (role app), even when
# others moved more. Pure.
def _c(name, n, role="interpreter"):
    return FunctionCost("c", name, "libpython.so", "cpython", role, n)


def test_app_function_is_named_beyond_the_top_rows():
    """Eleven interpreter functions moved more than the user's view; the view still follows the top ten."""
    base_c = tuple(_c(f"f{i}", 1000.0) for i in range(TOP + 1))
    cand_c = tuple(_c(f"f{i}", 5000.0) for i in range(TOP + 1))
    view = FunctionCost("python", "list_notes", "notes.views", "notes", "app", 10.0)
    base = CostBaseline("k", 11000.0, {}, base_c, (view,), "t", python_per_request=1000.0)
    record = CostRecord(
        "n",
        "v",
        "a",
        "w",
        "/",
        10,
        550000,
        (),
        cand_c,
        {},
        1.0,
        python_functions=(FunctionCost("python", "list_notes", "notes.views", "notes", "app", 12.0),),
    )
    shifts = attribute(base, record)
    assert len(shifts) == TOP + 1
    assert shifts[-1].function == "list_notes" and shifts[-1].role == "app"
    assert all(s.role == "interpreter" for s in shifts[:TOP])


# Merged from test_cost_gate.py: The A/B gate's counted cost signal, judged by its A/A spread (synthetic counts; no
# server).
def test_a_rise_beyond_one_percent_with_a_tight_spread_is_a_regression():
    """Counts 0.05% apart: a 1.5% higher candidate median is beyond the 1% floor."""
    d = judge_counts([100_000, 100_050, 100_020], [101_500, 101_520, 101_490])
    assert d.verdict == "regression" and d.delta == pytest.approx(0.01480, abs=1e-4)
    assert math.isnan(d.p) and "limit 1.00%" in d.reason


def test_the_limit_widens_with_the_measured_spread():
    """An arm spreading 1% sets a 3% limit: a 2% rise passes, a 4% rise does not."""
    base = [100_000, 101_000, 100_500]
    assert judge_counts(base, [102_500, 102_600, 102_550]).verdict == "pass"
    assert judge_counts(base, [104_600, 104_700, 104_650]).verdict == "regression"


def test_a_drop_is_an_improvement_and_equal_counts_pass():
    """The limit applies both ways."""
    assert judge_counts([100_000, 100_010], [97_000, 97_010]).verdict == "improvement"
    assert judge_counts([100_000, 100_010], [100_005, 100_008]).verdict == "pass"


def test_one_count_per_arm_is_inconclusive():
    """No spread can be measured from one count."""
    assert judge_counts([100_000], [120_000]).verdict == "inconclusive"


def test_cost_gates_the_decision_even_when_timing_passes():
    """A cost regression makes the whole verdict a regression; without counts the verdict is the timed one."""
    pairs = {
        "throughput": ([1000.0] * 12, [1001.0] * 12),
        "cpu": ([1.0] * 12, [1.0] * 12),
        "rss": ([10.0] * 12, [10.0] * 12),
    }
    timed = judge(pairs, False, GATE_POLICY)
    assert COST not in timed.decisions and timed.verdict != "regression"
    counted = judge({**pairs, COST: ((100_000.0, 100_010.0), (103_000.0, 103_020.0))}, False, GATE_POLICY)
    assert COST in counted.gated and counted.verdict == "regression"


def test_a_counted_decision_round_trips_with_no_p_value():
    """NaN p is stored as null (strict JSON) and read back as NaN."""
    d = judge_counts([100_000, 100_010], [101_500, 101_520])
    back = Decision.from_record(d.to_record())
    assert d.to_record()["p"] is None and math.isnan(back.p) and back.verdict == d.verdict


# Merged from test_mutation_cost.py: The cost judgement's exact outputs (issue 22, mutation survivors): a shift's line
# and record, a failure's report, the A/B cost signal's fields and its limit at equality, and the edges of the
# attribution.
C_SHIFT = Shift("c", "PyEval", "libpython3.11.so.1.0", "cpython", "interpreter", 1000.0, 1500.0, 0.05)
PY_SHIFT = Shift("python", "view", "app.views", "app", "app", None, 20.0, 0.1)


def _plain_record(per_request):
    return CostRecord(
        "t::c", "gunicorn-sync-w2", "flask", "json", "/json", 100, int(per_request * 100), (), (), ENV, 1.0
    )


def _plain_baseline(per_request):
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
    ok, bad = (
        judge_cost(_plain_record(100), _plain_baseline(100.0), 0.02),
        judge_cost(_plain_record(200), _plain_baseline(100.0), 0.02),
    )
    assert (ok.status, ok.baseline_per_request, ok.ratio) == (PASS, 100.0, 1.0)
    assert (bad.status, bad.baseline_per_request, bad.ratio) == (FAIL, 100.0, 2.0)


def test_judge_cost_of_a_baseline_of_one_instruction_is_a_ratio():
    """A baseline of 1 instruction per request is divided by, not treated as empty."""
    assert judge_cost(_plain_record(1), _plain_baseline(1.0), 0.02).ratio == 1.0


def test_judge_cost_of_an_empty_baseline_fails_with_an_infinite_ratio():
    """A stored baseline of zero instructions: any count is an infinite rise and fails."""
    verdict = judge_cost(_plain_record(10), _plain_baseline(0.0), 0.02)
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


def test_diff_floor_is_the_smallest_of_the_largest_not_a_small_stored_app_function():
    """The app's own functions are stored however small: they do not lower the floor below which a function
    missing from the base is left out (it was cut, not new), and a stored one's rise is diffed from its base."""
    view = FunctionCost("python", "api", "notes.views", "notes", "app", 1.0)
    shifts = diff([_fn("kept", 5.0), view], [_fn("cut", 3.0), _fn("kept", 5.0), replace(view, per_request=42.0)], 100.0)
    assert [(s.function, s.base, s.candidate) for s in shifts] == [("kept", 5.0, 5.0), ("api", 1.0, 42.0)]


def test_diff_of_a_function_gone_keeps_its_identity():
    """A stored function absent from the candidate: its level, module, package and role, base, 0 now."""
    gone = FunctionCost("python", "f", "mod", "pkg", "app", 4.0)
    assert diff([gone, _fn("k", 1.0)], [_fn("k", 1.0)], 0.0) == [
        Shift("c", "k", "m.so", "pkg", "server", 1.0, 1.0, 0.0),
        Shift("python", "f", "mod", "pkg", "app", 4.0, 0.0, 0.0),
    ]


def test_a_pass_without_a_move_carries_no_attribution():
    """Within tolerance and nothing moved: no functions are attributed, though their counts differ."""
    base = CostBaseline("k", 100.0, dict(ENV["packages"]), (_fn("f", 50.0),), (), "2026-01-01")
    verdict = judge_cost(_record(101, [_fn("f", 51.0)], dict(ENV["packages"])), base, 0.02)
    assert verdict.status == PASS and verdict.shifts == ()


def test_a_move_names_every_package_and_the_top_three_functions():
    """Two moved packages are joined by '; ', and at most three functions are named; none is 'none'."""
    base = CostBaseline("k", 100.0, {"a": "1", "b": "1"}, tuple(_fn(f"f{i}", 10.0) for i in range(4)), (), "2026-01-01")
    grown = [_fn(f"f{i}", 10.0 + i + 1) for i in range(4)]
    verdict = judge_cost(_record(101, grown, {"a": "2", "b": "2"}), base, 0.02)
    assert verdict.status == PASS and len(verdict.shifts) == 4
    assert verdict.message == (
        "+1.00% after a 1 -> 2; b 1 -> 2: 101 instructions/request vs baseline 100 "
        "(tolerance 2.0%, a constant: the baseline keeps no measured spread); top functions by change: "
        "pkg m.so:f3 +4.00%, "
        "pkg m.so:f2 +3.00%, pkg m.so:f1 +2.00%"
    )
    assert judge_cost(
        _record(100, [], {"a": "2", "b": "1"}), CostBaseline("k", 100.0, {"a": "1", "b": "1"}, (), (), "x"), 0.02
    ).message.endswith("top functions by change: none")


def test_a_pass_without_a_move_has_no_after_clause():
    """Nothing moved: the message starts with the change and has no 'after' clause."""
    assert judge_cost(_plain_record(100), _plain_baseline(100.0), 0.02).message == (
        "+0.00%: 100 instructions/request vs baseline 100 (tolerance 2.0%, a constant: the baseline keeps no measured "
        "spread)"
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
        "system": None,
        "tolerance": None,
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


SYSTEM = SystemCounts({"recvfrom": 1.0, "sendto": 1.0, "clock_gettime": 11.0}, 154.0, 39.0, 0.005)
SLEPT = SystemCounts(
    {"recvfrom": 1.0, "sendto": 1.0, "clock_nanosleep": 1.0, "clock_gettime": 14.0}, 154.0, 39.0, 0.005
)


def test_a_sleep_in_the_view_fails_the_cell_by_its_system_call_while_instructions_pass():
    """Instructions +0.7% (within 2%), one clock_nanosleep per request more: a failure that names it."""
    base = replace(baseline(100_000.0), system=SYSTEM, kept_per_request=0.0)
    verdict = judge_cost(replace(record(100_700.0), system=SLEPT, kept_per_request=0.0), base, 0.02)
    assert verdict.status == FAIL
    assert "system calls and memory rose: +1.00 clock_nanosleep per request (0.00 -> 1.00)" in verdict.message
    assert "instructions +0.70%" in verdict.message
    assert verdict.to_record()["system"]["regressions"] == [
        {"what": "clock_nanosleep", "base": 0.0, "candidate": 1.0, "limit": 1.0}
    ]


def test_an_old_baseline_without_system_calls_judges_instructions_only_and_says_so():
    """A baseline stored before system calls were counted: the cell passes on instructions, and the report
    says why its system calls were not judged (never as if they were zero)."""
    verdict = judge_cost(replace(record(100.0), system=SLEPT, kept_per_request=0.0), baseline(100.0), 0.02)
    assert verdict.status == PASS
    assert (
        "system calls and memory kept not judged: the baseline was stored before system calls were" in verdict.report()
    )


def test_a_baseline_whose_counts_fell_apart_is_judged_with_three_times_their_spread_and_says_so():
    """5 counts 0.8% apart: tolerance ±2.4% (3x), wider than 2%, stated; +2.3% passes, +2.5% fails."""
    spread_baseline = replace(baseline(100_000.0), spread=CountSpread(5, 0.008))
    verdict = judge_cost(record(102_300), spread_baseline, 0.02)
    assert verdict.status == PASS
    assert "(tolerance ±2.4% from 5 counts' spread (3x 0.80%, wider than 2.0%))" in verdict.message
    assert verdict.to_record()["tolerance"] == {"value": 0.024, "constant": 0.02, "counts": 5, "spread": 0.008}
    assert judge_cost(record(102_500), spread_baseline, 0.02).status == FAIL


def test_a_narrow_spread_keeps_the_constant_and_states_the_spread():
    """5 counts 0.1% apart: 3x is below the 2% asked for, so 2% it is; the verdict gives the spread."""
    verdict = judge_cost(record(102_100), replace(baseline(100_000.0), spread=CountSpread(5, 0.001)), 0.02)
    assert verdict.status == FAIL
    assert "(tolerance 2.0%; 5 counts' spread 0.10%, 3x it within)" in verdict.message
    assert verdict.tolerance.value == 0.02 and not verdict.tolerance.from_spread


def test_a_baseline_without_a_spread_is_judged_with_the_constant_and_says_so():
    """An entry stored from one count, or before spreads were kept: today's constant, said to be one."""
    verdict = judge_cost(record(101_000), baseline(100_000.0), 0.04)
    assert verdict.tolerance.counts is None and verdict.tolerance.value == 0.04
    assert "(tolerance 4.0%, a constant: the baseline keeps no measured spread)" in verdict.message


def test_a_stored_baseline_shows_an_irregular_call_and_judges_a_whole_one():
    """Against a stored baseline (counted at another time) futex's 2.90 -> 6.88 a request is shown, not judged, while
    a whole call that rose by one is a regression by name."""
    base = SystemCounts({"futex": 2.90, "sendto": 2.0}, 100.0, 40.0, 1.0)
    now = SystemCounts({"futex": 6.88, "sendto": 3.0}, 100.0, 40.0, 1.0)
    verdict = judge_cost(replace(record(1_000_000), system=now), replace(baseline(1_000_000), system=base), 0.02)
    assert [m.what for m in verdict.system.regressions] == ["sendto"]
    assert "futex" in [m.what for m in verdict.system.shown]
    calm = judge_cost(
        replace(record(1_000_000), system=replace(now, calls={"futex": 6.88, "sendto": 2.0})),
        replace(baseline(1_000_000), system=base),
        0.02,
    )
    assert calm.system.verdict == "pass" and calm.system.regressions == ()


def test_a_count_without_system_calls_says_why_once_and_a_regression_is_said_once():
    """No system counts on the count's side: the reason it gives, else "not counted", and no figure judged; a system
    regression alone fails the cell with the calls named first, and the report does not say it twice."""
    base = SystemCounts({"sendto": 2.0}, 100.0, 40.0, 1.0)
    absent = judge_cost(
        replace(record(1_000_000), system_absent="no trace for pid 7"), replace(baseline(1_000_000), system=base), 0.02
    )
    assert "no trace for pid 7" in absent.system.message() and absent.system.verdict == "inconclusive"
    bare = judge_cost(record(1_000_000), replace(baseline(1_000_000), system=base), 0.02)
    assert re.search(r"\bnot counted\b", bare.system.message())
    both = judge_cost(replace(record(1_000_000), system=base), replace(baseline(1_000_000), system=base), 0.02)
    assert both.system.verdict == "pass" and "stored before" not in both.system.message()
    rose = replace(base, calls={"sendto": 3.0})
    failed = judge_cost(replace(record(1_000_000), system=rose), replace(baseline(1_000_000), system=base), 0.02)
    assert failed.status == FAIL and failed.message.startswith("cost rose beyond tolerance: system calls and memory")
    assert failed.report().count("sendto") == 1
    both_fail = judge_cost(replace(record(1_100_000), system=rose), replace(baseline(1_000_000), system=base), 0.02)
    assert both_fail.message.startswith("cost rose beyond tolerance: +10.00%")


def test_memory_kept_over_fewer_than_200_requests_is_shown_not_judged():
    """A stored baseline and a count of 50 requests whose memory kept rose by 2 KB a request: shown, not judged (over
    so few the heap is still settling); over 1,000 requests read without valgrind it is judged."""
    base = SystemCounts({"sendto": 2.0}, 100.0, 40.0, 1.0)
    stored = replace(baseline(1_000_000), system=base, kept_per_request=0.0)
    few = replace(record(1_000_000, requests=50), system=base, kept_per_request=2048.0)
    assert judge_cost(few, stored, 0.02).system.verdict != "regression"
    many = replace(few, kept_requests=1000, kept_uninstrumented=True)
    assert judge_cost(many, stored, 0.02).system.verdict == "regression"
