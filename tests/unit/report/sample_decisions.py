"""Decisions as the judge makes them (its own functions on given pairs, no server), and cost records as
``pytest -m cost`` writes them (judge_cost on given counts): what the verdict line and the comment are made from."""

from __future__ import annotations

import math

from serverbench.judge.ab import COST, GATE_POLICY, SYSTEM, Judgement, decided, judge, judge_counted
from serverbench.judge.cost import Shift, judge_cost
from serverbench.records.cost import CostBaseline, CostRecord, FunctionCost
from serverbench.records.decisions import Decision, Measurement

BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7, 100.0, 100.4]
CELL = "waitress-t4/todo.app list c32"
OPENAT = "rose: +1.00 openat per request (3.00 -> 4.00)"
LIST_TODOS = Shift("python", "list_todos", "todo.app", "flask-todo", "app", 100.0, 191.0, 0.091)
SHIFTS = (Shift("c", "PyUnicode_Format", "libpython3.11.so", "cpython", "interpreter", 10.0, 40.0, 0.12), LIST_TODOS)


def timed(cand, base=BASE, cell=CELL):
    """A decision on saturated throughput and CPU per request, the candidate's throughput ``cand``."""
    pairs = {"throughput": (tuple(base), tuple(cand)), "cpu": (tuple(BASE), tuple(BASE))}
    measured = Measurement(
        "simultaneous", ("base", "candidate"), pairs, (), len(base), 0, None, 60.0, {"base": 0.0, "candidate": 0.0}, {}
    )
    return decided(cell, measured, judge(pairs, False, GATE_POLICY), policy=GATE_POLICY, max_error_rate=0.01)


def counted(base=(1000.0, 1001.0), cand=(1124.0, 1125.0), system=OPENAT):
    """A decision its counts ended: instructions per request 12.4% up, a system call more per request."""
    pairs = {COST: (tuple(base), tuple(cand))}
    decisions = {COST: judge_counted(base, cand)}
    if system:
        decisions[SYSTEM] = Decision("regression", 1.0, (1.0, 1.0), math.nan, 2, math.nan, False, system, "per request")
    measured = Measurement("simultaneous", ("base", "candidate"), pairs, (), 0, 0, None, 9.0, {}, {})
    return decided(
        CELL,
        measured,
        Judgement(decisions, tuple(decisions)),
        policy=GATE_POLICY,
        max_error_rate=0.01,
        stopped="counted",
    )


def noisy():
    """Pairs whose ratios swing ±30%: the machine too noisy to judge throughput (rerun)."""
    return timed([v * (1.3 if k % 2 else 0.75) for k, v in enumerate(BASE)])


def unheld(rate=100_000.0):
    """Throughput paired in every block, but the base arm held the fixed rate ``rate`` in none: every block's
    fixed-rate pair discarded, so no latency or CPU pair."""
    pairs = {"throughput": (tuple(BASE), tuple(BASE))}
    arms = {"base": 0.0, "candidate": 0.0}
    measured = Measurement("simultaneous", ("base", "candidate"), pairs, (), len(BASE), len(BASE), rate, 60.0, arms, {})
    return decided(CELL, measured, judge(pairs, True, GATE_POLICY), policy=GATE_POLICY, max_error_rate=0.01)


ENVIRONMENT = {
    "interpreter": "cpython-3.11.7",
    "isa": "x86-64-v3",
    "libc": "glibc-2.36",
    "valgrind": "3.19.0",
    "packages": {},
}


def cost_record(per_request, base=100_000.0, app=9.1, workload="list"):
    """A ``pytest -m cost`` record (with its verdict) of ``workload`` counted at ``per_request`` against ``base``."""
    view = FunctionCost("python", "list_todos", "todo.app", "flask-todo", "app", 100.0)
    record = CostRecord(
        f"tests/test_perf.py::test_cost[waitress-t4-todo.app-{workload}]",
        "waitress-t4",
        "todo.app",
        workload,
        "/todos",
        100,
        int(per_request * 100),
        (),
        (),
        ENVIRONMENT,
        1.0,
        python_functions=(FunctionCost("python", "list_todos", "todo.app", "flask-todo", "app", 100.0 + app),),
    )
    baseline = CostBaseline(record.key, base, {}, (), (view,), "2026-12-01")
    return record.to_record(judge_cost(record, baseline, 0.02).to_record())
