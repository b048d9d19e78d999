"""measure.trials.ab: the ABBA order and its pairing, the rig's driver, and the arithmetic that turns windows into pairs
(no server starts)."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace

import pytest

from serverbench.catalog.matrix import Cell
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.gate.plan import ABPlan, Arm
from serverbench.measure.trials.ab import (
    Clock,
    _Collected,
    _cost_plan,
    _cpu_per_request,
    _geomean,
    _held,
    _pair_pss,
    _pair_rate,
    abba_order,
    pairs_from_abba,
)
from serverbench.records.decisions import Window
from tests.unit.sample_records import result

AIOHTTP = registry()["aiohttp"]
CELL = Cell(AIOHTTP, AIOHTTP.default_app)


def test_abba_order_and_pairs_round_trip():
    """abba_order builds ABBA blocks; pairs_from_abba recovers (base, cand) paired in order."""
    assert abba_order(2) == ["A", "B", "B", "A", "A", "B", "B", "A"]
    order = abba_order(3)
    base, cand = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [20.0, 21.0, 22.0, 23.0, 24.0, 25.0]
    values, ib, ic = [], iter(base), iter(cand)
    for label in order:
        values.append(next(ib) if label == "A" else next(ic))
    assert values[:4] == [10.0, 20.0, 21.0, 11.0]
    assert pairs_from_abba(order, values) == (base, cand)
    assert pairs_from_abba(list("BAAB"), [1.0, 2.0, 3.0, 4.0]) == ([2.0, 3.0], [1.0, 4.0])


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: abba_order(0), "blocks"),
        (lambda: abba_order(1.5), "blocks"),
        (lambda: pairs_from_abba(abba_order(1), [1.0, 2.0, 3.0]), "length"),
        (lambda: pairs_from_abba(list("ABB"), [1.0, 2.0, 3.0]), "multiple of 4"),
        (lambda: pairs_from_abba(list("AABB"), [1.0, 2.0, 3.0, 4.0]), "ABBA"),
        (lambda: pairs_from_abba(list("ABCA"), [1.0, 2.0, 3.0, 4.0]), "ABBA"),
    ],
)
def test_abba_helpers_validate(call, fragment):
    """abba_order and pairs_from_abba reject bad block counts, lengths and labels."""
    with pytest.raises(ValueError, match=fragment):
        call()


def test_the_runner_does_not_import_the_judge():
    """Data flows measure -> records -> judge: importing the A/B runner loads no serverbench.judge module."""
    probe = "import sys, serverbench.measure.trials.ab; print([m for m in sys.modules if m.startswith('serverbench.judge')])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_gates_closed_driver_times_out_as_the_perf_suite_sizes_the_cell():
    """gunicorn-sync-w2 on /sleep at 64 connections (a designed queue of 3.2 s) gets the cell's timeout, not the
    default 5 s; aiohttp on /json (no designed queue) keeps the default."""
    from serverbench.catalog.timeouts import DEFAULT_TIMEOUT_S, cell_timeout_s
    from serverbench.measure.trials.ab import _Rig

    sync = registry()["gunicorn-sync-w2"]
    plan = ABPlan(
        Cell(sync, sync.default_app), WORKLOADS["sleep"], Arm("base"), Arm("candidate"), connections=64, rate=None
    )
    rig = _Rig(plan, None)
    expected = cell_timeout_s(sync, WORKLOADS["sleep"], 64, plan.duration)  # wrk: no lead-in, no trail
    assert rig.driver.name == "wrk" and expected > DEFAULT_TIMEOUT_S and rig.driver.timeout_s == expected
    plain = _Rig(ABPlan(CELL, WORKLOADS["json"], Arm("base"), Arm("candidate"), rate=None), None)
    assert plain.driver.timeout_s == DEFAULT_TIMEOUT_S


def _window(rps=1000.0, cpu_s=2.0, pss=None, p50=1.0, p90=1.0):
    """A 5 s window of ``rps`` (5 * rps good requests) with this server CPU, peak PSS and latency."""
    w = result("ab::v/app/json/c32", rps)
    latency = {**w.load.latency_ms, "p50": p50, "p90": p90}
    return replace(w, server_cpu_s=cpu_s, server_pss_mb=pss, load=replace(w.load, latency_ms=latency))


def test_the_clock_sums_seconds_per_phase_and_counts_a_phase_that_raised():
    """add() accumulates per phase name; a phase left by an exception is still on the clock."""
    clock = Clock()
    clock.add("start", 1.5)
    clock.add("verify", 2.0)
    clock.add("start", 0.25)
    assert clock.seconds == {"start": 1.75, "verify": 2.0}
    with pytest.raises(RuntimeError, match="server died"), clock.phase("stop"):
        raise RuntimeError("server died")
    assert set(clock.seconds) == {"start", "verify", "stop"} and clock.seconds["stop"] >= 0.0


def test_collected_pairs_keep_the_order_they_came_in_per_signal():
    """add() appends base and candidate side by side per signal; pairs() freezes them; keep() labels each window."""
    out = _Collected()
    out.add("throughput", 1.0, 2.0)
    out.add("rss", 40.0, 41.0)
    out.add("throughput", 3.0, 4.0)
    assert out.pairs() == {"throughput": ((1.0, 3.0), (2.0, 4.0)), "rss": ((40.0,), (41.0,))}
    a, b = _window(100.0), _window(200.0)
    out.keep(Arm("base"), "rate", 3, [a, b])
    assert out.windows == [Window("base", "rate", 3, a), Window("base", "rate", 3, b)]


def test_geomean_of_values_and_a_zero_is_floored_not_an_error():
    """The geometric mean of 1 and 4 is 2; a zero counts as 1e-9 instead of failing in log()."""
    assert _geomean([1.0, 4.0]) == pytest.approx(2.0)
    assert _geomean([8.0]) == pytest.approx(8.0)
    assert _geomean([0.0, 1e-9]) == pytest.approx(1e-9)
    assert math.isfinite(_geomean([0.0, 5.0]))


def test_cpu_per_request_is_microseconds_over_all_windows_and_a_missing_cpu_counts_zero():
    """Server CPU summed over the windows, per good request summed, in microseconds; no request divides by 1."""
    a, b = _window(1000.0, cpu_s=2.0), _window(3000.0, cpu_s=6.0)  # 5,000 and 15,000 requests
    assert _cpu_per_request([a, b]) == pytest.approx(8.0 / 20_000 * 1e6)
    assert _cpu_per_request([a, replace(b, server_cpu_s=None)]) == pytest.approx(2.0 / 20_000 * 1e6)
    assert _cpu_per_request([_window(0.0, cpu_s=0.5)]) == pytest.approx(0.5 * 1e6)


def test_a_fixed_rate_is_held_from_95_percent_of_the_requests_asked_for():
    """At 200 requests/s over 5 s, 950 good requests hold the rate and 949 do not."""
    assert _held(_window(190.0), 200.0)  # 950 requests
    assert not _held(_window(189.8), 200.0)  # 949 requests
    assert _held(_window(400.0), 200.0)


def test_the_pss_pair_is_each_arms_peak_and_is_left_out_when_any_window_lacks_it():
    """Two windows per arm: the pair is each arm's highest PSS; one window without PSS adds no pair."""
    out = _Collected()
    _pair_pss(out, [_window(pss=50.0), _window(pss=52.0)], [_window(pss=61.0), _window(pss=60.0)])
    assert out.pairs() == {"pss": ((52.0,), (61.0,))}
    _pair_pss(out, [_window(pss=50.0), _window(pss=None)], [_window(pss=61.0), _window(pss=60.0)])
    assert out.pairs() == {"pss": ((52.0,), (61.0,))}


def test_a_rate_pair_is_the_geometric_mean_latency_and_the_cpu_per_request_of_each_arm():
    """p50 and p90 pair as the geometric mean over each arm's windows; cpu as CPU per request over them."""
    out = _Collected()
    base = [_window(100.0, cpu_s=1.0, p50=1.0, p90=2.0), _window(100.0, cpu_s=1.0, p50=4.0, p90=8.0)]
    cand = [_window(100.0, cpu_s=2.0, p50=3.0, p90=3.0), _window(100.0, cpu_s=2.0, p50=3.0, p90=12.0)]
    _pair_rate(out, base, cand)
    pairs = out.pairs()
    assert set(pairs) == {"p50", "p90", "cpu"}
    assert pairs["p50"] == (pytest.approx((2.0,)), pytest.approx((3.0,)))
    assert pairs["p90"] == (pytest.approx((4.0,)), pytest.approx((6.0,)))
    assert pairs["cpu"] == (pytest.approx((2.0 / 1000 * 1e6,)), pytest.approx((4.0 / 1000 * 1e6,)))


def test_an_arms_cost_plan_warms_up_as_long_as_it_counts_and_its_env_wins_over_the_backends():
    """The count runs the plan's cell from the arm's folder and interpreter; the arm's env overrides a backend's."""
    base = Arm("base", env={"SHARED": "base"})
    arm = Arm("candidate", env={"SERVERBENCH_WORK_ITERS": "3", "SHARED": "arm"})
    plan = ABPlan(CELL, WORKLOADS["json"], base, arm, cost_requests=40, backend_env={"SHARED": "backend", "B": "1"})
    cost = _cost_plan(plan, arm)
    assert (cost.variant, cost.app, cost.workload) == (AIOHTTP, AIOHTTP.default_app, WORKLOADS["json"])
    assert (cost.requests, cost.warmup, cost.nodeid) == (40, 40, "ab::candidate::cost")
    assert (cost.apps_dir, cost.python) == (arm.apps_dir, arm.python)
    assert dict(cost.env) == {"SHARED": "arm", "B": "1", "SERVERBENCH_WORK_ITERS": "3"}
    assert dict(_cost_plan(plan, base).env) == {"SHARED": "base", "B": "1"}
