from types import SimpleNamespace

import pytest

from serverbench.gate import loop
from serverbench.judge.ab import GATE_POLICY, Looks
from serverbench.records.cost import CostRecord, SystemCounts


def _record(instructions, requests=100, calls=None, absent=""):
    system = None if calls is None else SystemCounts(calls, 154.0, 39.0, 0.01)
    return CostRecord(
        "t::c",
        "waitress-t4",
        "flask",
        "json",
        "/json",
        requests,
        instructions,
        (),
        (),
        {},
        1.0,
        system=system,
        system_absent=absent,
    )


SYNC = {"recvfrom": 1.0, "sendto": 1.0}


def test_counted_gives_per_request_pairs_and_the_last_run_of_each_arm():
    """Counted.counts is instructions per request per run, in run order; last is each arm's final run."""
    runs = loop.Counted((_record(100_000), _record(101_000)), (_record(120_000), _record(119_000)))
    assert runs.counts == ((1000.0, 1010.0), (1200.0, 1190.0))
    assert runs.last == (runs.base[1], runs.candidate[1])


@pytest.mark.parametrize(
    ("first", "calls", "counts"),
    [
        ((100_000, 130_000), 1, ((1000.0,), (1300.0,))),  # clear regression: one count per arm
        ((100_000, 100_500), 1, ((1000.0,), (1005.0,))),  # within the floor: a pass, one count
        ((100_000, 102_000), 2, ((1000.0, 1000.0), (1020.0, 1020.0))),  # ambiguous: each arm counted once more
    ],
)
def test_one_repeat_counts_again_only_when_the_first_pair_is_ambiguous(monkeypatch, first, calls, counts):
    """With cost_repeats=1 a second count per arm follows only an inconclusive first pair, appended in order."""
    asked = []

    def count_arms(plan, repeats, kept):
        asked.append(repeats)
        return (_record(first[0]),), (_record(first[1]),)

    monkeypatch.setattr(loop, "count_arms", count_arms)
    runs = loop.counted(SimpleNamespace(cost_repeats=1, cost_requests=50, kept_requests=1000))
    assert asked == [1] * calls and runs.counts == counts


@pytest.mark.parametrize(("cost_requests", "kept"), [(50, 1000), (199, 1000), (200, 0)])
def test_counts_too_short_to_judge_memory_kept_read_it_without_valgrind(monkeypatch, cost_requests, kept):
    """Below 200 counted requests each count's memory kept is read over the plan's kept_requests without valgrind;
    from 200 on the window's own is judged and no such run is asked for."""
    asked = []

    def count_arms(plan, repeats, kept_requests):
        asked.append(kept_requests)
        return (_record(100_000),), (_record(100_000),)

    monkeypatch.setattr(loop, "count_arms", count_arms)
    loop.counted(SimpleNamespace(cost_repeats=1, cost_requests=cost_requests, kept_requests=1000))
    assert asked == [kept]


def test_no_counted_signal_without_repeats(monkeypatch):
    """cost_repeats=0: nothing is counted and the decision has no counted runs."""
    monkeypatch.setattr(loop, "count_arms", lambda plan, repeats: pytest.fail("counted"))
    assert loop.counted(SimpleNamespace(cost_repeats=0)) is None


def test_counted_runs_judge_their_system_calls_by_name():
    """A candidate sleeping in each request (+1.00 clock_nanosleep) is a counted system regression, named."""
    runs = loop.Counted((_record(100_000, calls=SYNC),), (_record(100_700, calls={**SYNC, "clock_nanosleep": 1.0}),))
    assert runs.system.verdict == "regression"
    assert "+1.00 clock_nanosleep per request" in runs.system.reason and runs.system.delta == 1.0
    absent = loop.Counted((_record(100_000, absent="no trace for pid 7"),), (_record(100_000, calls=SYNC),))
    assert (
        absent.system.verdict == "inconclusive"
        and absent.system.reason == "system calls and memory kept not judged: no trace for pid 7"
    )


def test_a_system_call_regression_ends_the_decision_at_the_counts(monkeypatch):
    """Instructions within the 1% floor but one more system call per request: stopped 'counted', a regression,
    no timed block run."""
    monkeypatch.setattr(
        loop,
        "count_arms",
        lambda plan, repeats, kept: (
            (_record(100_000, calls=SYNC),),
            (_record(100_500, calls={**SYNC, "clock_nanosleep": 1.0}),),
        ),
    )
    monkeypatch.setattr(loop, "run_blocks", lambda *a, **k: pytest.fail("timed blocks ran"))
    plan = SimpleNamespace(
        cost_repeats=1,
        cost_requests=50,
        kept_requests=1000,
        name="flask json",
        mode="simultaneous",
        base=SimpleNamespace(label="base"),
        candidate=SimpleNamespace(label="candidate"),
        attempt_policy=GATE_POLICY,
        looks=Looks((8,)),
        max_error_rate=0.01,
    )
    decision, _ = loop.decide(plan)
    assert decision.verdict == "regression" and decision.stopped == "counted"
    assert decision.decisions["cost"].verdict == "pass" and decision.decisions["system"].verdict == "regression"
