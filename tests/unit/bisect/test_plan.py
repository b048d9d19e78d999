"""bisect.plan: what a bisection is refused for before anything starts, every problem at once, each naming its fix.

The plans are real: each asks its --python (this interpreter, unless a test gives another) which packages it lacks,
and looks up valgrind and a variant's programs on PATH (tests/unit/cli/test_bisect.py takes valgrind away).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverbench.bisect.plan import DEFAULT_THRESHOLD, BisectPlan, default_threshold
from serverbench.catalog.apps import APPS
from serverbench.catalog.contract import ENDPOINTS
from serverbench.catalog.matrix import Cell
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.errors import ConfigError
from serverbench.measure.trees.commits import Commit
from tests.unit.fuzzing import fuzz

VARIANT = registry()["waitress-t4"]
FLASK = APPS["flask"]
ABSENT = "serverbench_absent_module"
ONE_URL = [w for w in WORKLOADS.values() if not w.mix]


def commits(n: int) -> tuple[Commit, ...]:
    return tuple(Commit(f"{i:x}" * 40, f"c{i}", f"lock{i}") for i in range(n))


def make(*, variant=VARIANT, app=None, workload=WORKLOADS["json"], threshold=0.02, n=3, **fields) -> BisectPlan:
    """A bisection of ``variant`` serving ``app`` (its default app) over ``n`` commits."""
    return BisectPlan(
        Path("/repo"), commits(n), Cell(variant, app or variant.default_app), workload, threshold, **fields
    )


def problems(**changes) -> list[str]:
    """The problems a plan with these changes is refused for, one per line of its error ([] when it is made)."""
    try:
        make(**changes)
    except ConfigError as exc:
        head, *rest = str(exc).split("\n  ")
        if not rest:
            return [head]
        assert head == f"the bisection has {len(rest)} problems:"
        return rest
    return []


def test_a_plan_names_its_cell_its_last_commit_and_its_app_folder():
    """The cell as records name it, the index of the bad end, and the app folder under any checkout."""
    plan = make(n=5, app_folder="examples/app")
    assert plan.name == "waitress-t4/flask json"
    assert plan.last == 4
    assert plan.app_dir("/checkouts/c3") == Path("/checkouts/c3/examples/app")
    assert make().app_dir(Path("/c")) == Path("/c/apps")


def test_the_default_threshold_is_the_cost_gates_unless_the_variant_needs_a_wider_one():
    """2% (the cost gate's tolerance), or the variant's own floor when that is wider; a narrower floor is not used."""
    assert DEFAULT_THRESHOLD == 0.02
    assert default_threshold(Cell(VARIANT, FLASK)) == 0.02
    assert default_threshold(Cell(replace(VARIANT, cost_tolerance=0.04), FLASK)) == 0.04
    assert default_threshold(Cell(replace(VARIANT, cost_tolerance=0.01), FLASK)) == 0.02


@pytest.mark.parametrize("threshold", [0.0, -0.01, 1.0, 1.5, 2.0, float("inf"), float("nan"), 1, Fraction(1, 50)])
def test_a_threshold_outside_0_to_1_or_not_a_float_is_refused_naming_the_fix(threshold):
    """The threshold is a float strictly between 0 and 1: each bound, past it, and a number of another type."""
    assert problems(threshold=threshold) == [
        f"--threshold {threshold!r}: give a fraction in (0, 1), such as 0.02 for 2%"
    ]


@pytest.mark.parametrize("threshold", [5e-324, 0.02, 0.9999999999999999])
def test_a_threshold_just_inside_0_to_1_is_taken(threshold):
    """The smallest float above 0 and the largest below 1 are fractions in (0, 1)."""
    assert make(threshold=threshold).threshold == threshold


@pytest.mark.parametrize("n, refused", [(0, True), (1, True), (2, False), (3, False)])
def test_the_range_needs_a_commit_after_the_good_end(n, refused):
    """The good end alone (or nothing) is refused with the fix; the good end and one commit after it is a range."""
    expected = ["the range holds no commit after the good end: give a --bad newer than --good"] if refused else []
    assert problems(n=n) == expected


@fuzz(25)
@given(
    threshold=st.one_of(st.just(0.02), st.floats()),
    requests=st.one_of(st.just(200), st.integers(-5, 200_000)),
    n=st.integers(0, 4),
)
def test_every_problem_of_the_numbers_and_the_range_is_named_at_once(threshold, requests, n):
    """For any threshold, request count and range length, the error names exactly the ones that are wrong, in
    order, each with its fix (one problem: its line alone; more: how many, then each), and a plan with none is made."""
    expected = []
    if not 0 < threshold < 1:
        expected.append(f"--threshold {threshold!r}: give a fraction in (0, 1), such as 0.02 for 2%")
    if not 10 <= requests <= 100_000:
        expected.append(f"--requests {requests!r}: expected a whole number from 10 to 100000, got {requests}")
    if n < 2:
        expected.append("the range holds no commit after the good end: give a --bad newer than --good")
    assert problems(threshold=threshold, requests=requests, n=n) == expected


@fuzz(15)
@given(served=st.sets(st.sampled_from(sorted(ENDPOINTS))), workload=st.sampled_from(ONE_URL))
def test_an_app_is_refused_for_exactly_the_endpoints_the_workload_checks_that_it_does_not_serve(served, workload):
    """For any endpoints an app serves, the refusal names each URL kind the workload checks (its own and those it
    verifies beside it) that the app lacks, in the workload's order, and none when it serves them all."""
    lacking = [e.name for e in workload.specs if e.name not in served]
    expected = [f"flask does not serve {', '.join(lacking)}: pick another --workload"] if lacking else []
    assert problems(app=replace(FLASK, endpoints=tuple(sorted(served))), workload=workload) == expected


def test_a_variant_that_cannot_load_the_app_and_a_mix_are_named_together():
    """A WSGI server given an aiohttp app, and a workload of many URLs: both problems, each naming what to pick."""
    assert problems(app=APPS["aiohttp"], workload=WORKLOADS["site"]) == [
        "waitress-t4 loads wsgi apps and aiohttp is aiohttp: pick another --variant",
        "workload site is a mix of URLs; a count sends one: pick a one-URL --workload",
    ]


def test_an_unsupported_variant_is_named_with_the_reason_found():
    """A variant kept as a row that cannot run here is refused with its reason, besides the package --python lacks."""
    cyclone = registry()["cyclone"]
    found = problems(variant=cyclone)
    assert f"cyclone is not supported: {cyclone.unsupported}" in found
    assert (
        f"{sys.executable} cannot import cyclone, which cyclone/tornado needs: install them there (pip install "
        "cyclone) or give --python an environment that has them"
    ) in found


def test_a_program_not_on_path_is_named_and_one_that_is_there_is_no_problem():
    """A variant's executables are looked up on PATH: a missing one is named with the install line; when all are
    there the variant is countable."""
    absent = replace(VARIANT, programs=("serverbench-no-such-program",))
    assert problems(variant=absent) == [
        "waitress-t4 needs serverbench-no-such-program on PATH, which is not there: install pip install waitress"
    ]
    assert problems(variant=replace(VARIANT, programs=(sys.executable,))) == []


def test_a_package_missing_is_asked_of_python_and_named_with_the_install_line():
    """The packages the cell needs are --python's question, not this interpreter's: a module it lacks is named once,
    with the variant's install line and the other way out (another --python)."""
    app = replace(FLASK, requires=(*FLASK.requires, ABSENT))
    assert problems(app=app) == [
        f"{sys.executable} cannot import {ABSENT}, which waitress-t4/flask needs: install them there (pip install "
        "waitress) or give --python an environment that has them"
    ]


def test_a_variant_with_programs_is_also_checked_for_the_cells_own_app():
    """Where a variant runs programs, whether it can run here is asked for the cell's app (its modules), not the
    variant's default app."""
    app = replace(FLASK, requires=(*FLASK.requires, ABSENT))
    found = problems(variant=replace(VARIANT, programs=(sys.executable,)), app=app)
    assert any(p.startswith(f"waitress-t4/flask needs {ABSENT} which {sys.executable} cannot import") for p in found)


def test_a_python_that_cannot_run_is_named_with_the_other_problems():
    """A --python that does not exist is named with the fix, after the problems found before it."""
    found = problems(python="/nonexistent/bin/python", workload=WORKLOADS["site"])
    assert found[0] == "workload site is a mix of URLs; a count sends one: pick a one-URL --workload"
    assert found[1].startswith("the interpreter /nonexistent/bin/python cannot be run (")
    assert found[1].endswith("); give a python executable")
    assert len(found) == 2
