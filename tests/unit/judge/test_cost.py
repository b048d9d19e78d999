"""The cost judgement on synthetic counts: tolerance, package changes, attribution, spread."""

import pytest

from serverbench.judge.cost import FAIL, NO_BASELINE, PASS, attribute, by_package, diff, judge_cost, spread
from serverbench.records.cost import CostBaseline, CostRecord, FunctionCost

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
