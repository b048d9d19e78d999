"""Counting a real cell under valgrind (runs in the default test run: about 15 s)."""

import re
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.judge.cost import COST_MIN_EFFECT, FAIL, PASS, judge_cost
from serverbench.measure.counting import stagemount
from serverbench.measure.counting.cost import CostPlan, measure_cost
from serverbench.measure.counting.fixedpaths import SEEN, STAGE_PARENT, STAGE_PREFIX, claimed_stage
from serverbench.records.cost import CostBaseline

pytestmark = pytest.mark.skipif(
    shutil.which("valgrind") is None, reason="valgrind is not installed (`apt-get install valgrind`)"
)


def test_two_counts_at_once_see_one_stage_and_agree(apps_dir, no_leaks):
    """Two fresh counts of one cell at once, beside a third count's stage (held here): both servers are started through
    the one shared stage path (or, where no mount namespace can be made, through their own, and say why), agree within
    the default cost tolerance, and name their processes."""
    plan = CostPlan(
        registry()["waitress-t4"], APPS["raw-wsgi"], WORKLOADS["json"], requests=200, warmup=20, apps_dir=apps_dir
    )
    with claimed_stage(), ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(lambda _: measure_cost(plan), range(2))
    way = stagemount.available()
    for record in (first, second):
        stages = {re.search(rf"{STAGE_PARENT}/{STAGE_PREFIX}\d\d", p.command)[0] for p in record.processes}
        if isinstance(way, str):
            assert way in record.stage_note and str(SEEN) not in stages, (record.stage_note, stages)
        else:
            assert (stages, record.stage_note) == ({str(SEEN)}, ""), record.stage_note
    assert first.instructions > 50 * 10_000, f"implausibly few instructions: {first.instructions:,}"
    assert [p.command.split()[-1] for p in first.processes] == ["raw_wsgi_app:app"]
    assert first.functions[0].role == "interpreter"
    base = CostBaseline(first.key, first.per_request, first.packages, first.functions, (), first.timestamp)
    verdict = judge_cost(second, base, tolerance=0.02)
    assert verdict.status == PASS, verdict.report()
    # Below the 1% floor under which the gate never flags (COST_MIN_EFFECT).  Pairs agree within 0.06% at 50 and 200
    # requests, but a one-off event in one window (about 160,000 instructions: housekeeping, a collection) read
    # -1.008% at 50 requests beside other tests under xdist (2026-11-26 CI rehearsal); at 200 it is a quarter.
    assert abs(verdict.ratio - 1) < COST_MIN_EFFECT, f"two counts differ by {verdict.ratio - 1:+.3%}"


def test_the_ab_gate_counts_each_arm_and_flags_injected_work(apps_dir, no_leaks):
    """Two counted runs per arm (aiohttp /json): a candidate doing about 14% more work per request is a cost
    regression, judged against a limit built from each arm's own runs, which agree within a few percent."""
    from serverbench.catalog.matrix import Cell
    from serverbench.gate.loop import Counted
    from serverbench.gate.plan import ABPlan, Arm
    from serverbench.judge.cost import COST_MIN_EFFECT, judge_counts, spread
    from serverbench.measure.trials.ab import count_arms

    variant = registry()["aiohttp"]
    plan = ABPlan(
        Cell(variant, variant.default_app),
        WORKLOADS["json"],
        Arm("base", apps_dir=apps_dir, env={"SERVERBENCH_WORK_ITERS": "1"}),
        Arm("candidate", apps_dir=apps_dir, env={"SERVERBENCH_WORK_ITERS": "100"}),
        rate=None,
    )
    base, candidate = Counted(*count_arms(plan, 2)).counts
    assert len(base) == len(candidate) == 2
    decision = judge_counts(base, candidate)
    assert decision.verdict == "regression", decision.reason
    # The A/A spread is the arms' own: the wider arm's (max - min) / median, and so the limit is 3x it.
    assert decision.dispersion == max(spread(base), spread(candidate))
    # How far an arm's runs agree is measured by benchmarks/cost_spread.py (results/cost-spread.json), not bounded
    # here: at 50 requests a one-off event in one window (housekeeping, about 160,000 instructions) moved one run
    # by 1.17% on the CI's host (2026-11-27); 32 runs here spread 0.11% at most, with or without CPU burners beside
    # them (/tmp probe of measure_cost, 6-8 runs a batch, two at a time).  A gross disagreement is still a defect
    # (a worker forked after the tree was read served part of a window uncounted: counts fell by half), and the
    # injected ~14% stays a regression for any spread under 4.5%.
    assert decision.dispersion < 3 * COST_MIN_EFFECT, f"A/A spread {decision.dispersion:.3%} of counted runs"


def test_a_planted_sleep_is_decided_by_system_calls_while_instructions_barely_move(apps_dir, no_leaks):
    """A 60 us time.sleep per request in flask's /json (the delay knob) under gunicorn sync: instructions move
    within the 2% tolerance, yet the cost verdict fails, naming +1.00 clock_nanosleep per request; the same
    run's memory kept, sockets and connections are counted too."""
    from dataclasses import replace

    plan = CostPlan(registry()["gunicorn-sync-w2"], APPS["flask"], WORKLOADS["json"], requests=200, apps_dir=apps_dir)
    base = measure_cost(plan)
    slept = measure_cost(replace(plan, env={"SERVERBENCH_DELAY_US": "60"}))
    assert base.system is not None, base.system_absent
    assert base.system.calls["recvfrom"] >= 1 and base.system.received > 0 and base.system.connections > 0
    assert base.kept_per_request is not None and abs(base.kept_per_request) < 256, base.kept_absent
    verdict = judge_cost(slept, CostBaseline.of(base), tolerance=0.02)
    assert abs(verdict.ratio - 1) < 0.02, f"instructions moved {verdict.ratio - 1:+.2%}"
    assert verdict.status == FAIL, verdict.report()
    assert [m.what for m in verdict.system.regressions] == ["clock_nanosleep"], verdict.report()
    assert "+1.00 clock_nanosleep per request" in verdict.message


def test_an_extra_redis_get_reads_as_calls_to_redis(apps_dir, no_leaks):
    """SERVERBENCH_REDIS_EXTRA_GET=1 on flask's /redis under gunicorn sync (one more GET round trip on the pooled
    connection): the cost verdict fails on system calls named by their peer, sendto and recvfrom to redis; the
    clients' calls do not move."""
    from dataclasses import replace

    from serverbench.backends.redis import start_redis

    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    redis = start_redis()
    try:
        plan = CostPlan(
            registry()["gunicorn-sync-w2"],
            APPS["flask"],
            WORKLOADS["redis"],
            requests=50,
            warmup=50,
            apps_dir=apps_dir,
            env={"SERVERBENCH_REDIS_URL": redis.url},
        )
        base = measure_cost(plan)
        extra = measure_cost(replace(plan, env={**plan.env, "SERVERBENCH_REDIS_EXTRA_GET": "1"}))
    finally:
        redis.stop()
    assert set(base.system.peers) == {"clients", "redis"}, base.system.peers
    verdict = judge_cost(extra, CostBaseline.of(base), tolerance=0.02)
    assert verdict.status == FAIL, verdict.report()
    assert "+1.00 sendto per request to redis" in verdict.message, verdict.message
    assert "recvfrom per request to redis" in verdict.message, verdict.message
    named = {m.what: m.peer for m in verdict.system.regressions}
    assert named["sendto"] == named["recvfrom"] == "redis" and "clients" not in named.values(), verdict.message
    assert "+2,0" in verdict.message and "bytes received per request to redis" in verdict.message  # a GET's answer


def test_the_gates_counts_decide_a_leak_of_1kb_a_request(apps_dir, no_leaks):
    """The A/B gate's counted phase (50 requests a count): a candidate keeping 1,000 bytes a request is a counted
    regression of memory kept, read over 1,000 requests without valgrind; the base keeps less than the floor."""
    from serverbench.catalog.matrix import Cell
    from serverbench.gate import loop
    from serverbench.gate.plan import ABPlan, Arm

    variant = registry()["gunicorn-sync-w2"]
    plan = ABPlan(
        Cell(variant, APPS["flask"]),
        WORKLOADS["json"],
        Arm("base", apps_dir=apps_dir),
        Arm("candidate", apps_dir=apps_dir, env={"SERVERBENCH_LEAK_BYTES": "1000"}),
        rate=None,
        cost_repeats=1,
    )
    runs = loop.counted(plan)  # one count an arm, or two where the first pair's instructions are ambiguous
    kept = ([r.kept_per_request for r in runs.base], [r.kept_per_request for r in runs.candidate])
    assert all((r.kept_over, r.kept_uninstrumented) == (1000, True) for r in runs.base + runs.candidate)
    assert all(k < 256 for k in kept[0]) and all(k > 900 for k in kept[1]), kept
    assert runs.system.verdict == "regression" and "memory kept" in runs.system.reason, runs.system.reason
