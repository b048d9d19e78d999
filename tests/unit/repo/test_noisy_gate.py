"""benchmarks/noisy_gate.py: the noisy-runner proof's trials, sized and judged as its docstring says, and
docs/lab/gate.md's block rendered from its results file."""

from __future__ import annotations

import os
import time

import pytest

from tests.unit.repo.benchmark_scripts import script, stale_renders


def _aa(counts: str, status: int, delta: float, cpu: float | None = 140.0) -> dict:
    verdict = {0: "pass", 1: "regression", 3: "rerun"}[status]
    return {
        "key": f"gate|A/A|{counts}|{status}{delta}",
        "kind": "gate",
        "what": "A/A",
        "label": "A/A",
        "counts": counts,
        "workload": "json",
        "cand_env": {},
        "exit_status": status,
        "verdict": verdict,
        "seconds": 60.0,
        "signals": {"throughput": {"verdict": verdict, "delta": delta}},
        "base_cpu_us": cpu,
        "noise": {"neighbours": 2, "busy_s": [0.05, 1.0], "idle_s": [0.05, 1.0], "seed": 1, "cpu_share": 0.4},
        "machine": {"cpu": "AMD EPYC", "cores": 2},
        "started": "2026-12-02T01:00:00+00:00",
        "argv": ["run"],
    }


def test_the_committed_block_is_the_rendered_one():
    """Rendering docs/lab/gate.md from benchmarks/results/noisy-gate.jsonl changes nothing: no figure typed by hand."""
    stale = stale_renders(script("noisy_table.py"))
    assert not stale, f"{stale}: run `python benchmarks/noisy_gate.py render` and commit the result"


def test_the_burn_is_five_percent_of_the_base_cpu_per_request_over_the_aa_decisions():
    """The burn is 5% of the median of the A/A decisions' base CPU per request; none before an A/A measured it."""
    burn_us = script("noisy_gate.py").burn_us
    lines = [_aa("on", 0, 0.0, 120.0), _aa("off", 0, 0.0, 140.0), _aa("off", 0, 0.0, 200.0)]
    assert burn_us(lines) == (7, {"base_cpu_us_per_request": 140.0, "aa_decisions": 3})
    assert burn_us([_aa("on", 0, 0.0, None)]) is None


def test_a_sequential_compare_alarms_as_a_stored_point_compare_does():
    """The alarm is first / second over 1 + threshold: a 6% drop alarms at 5%, not at 10%; a rise never."""
    alarms = script("noisy_gate.py").alarms
    assert alarms(100.0, 94.0) == {"0.05": True, "0.1": False}
    assert alarms(100.0, 130.0) == {"0.05": False, "0.1": False}


def test_the_base_cpu_comes_from_the_base_arms_saturated_windows():
    """Only the base arm's saturated windows count towards its CPU per request."""
    window = lambda arm, phase, us: {"arm": arm, "phase": phase, "server": {"cpu_us_per_request": us}}  # noqa: E731
    decision = {"windows": [window("base", "saturated", 100.0), window("base", "saturated", 120.0)]}
    decision["windows"] += [window("candidate", "saturated", 500.0), window("base", "rate", 900.0)]
    assert script("noisy_gate.py").base_cpu_us(decision) == 110.0


def test_the_table_counts_false_regressions_and_could_not_decide_per_method():
    """An A/A exit 1 is a false regression, an exit 3 could not decide; a sequential alarm is a false regression;
    the gate's decisions are counted apart by counts on or off and by which gate made them (the one that doubled its
    windows, tried and taken out, each in rows of its own), and the sentence above the table counts the shipped gate's
    alone."""
    pair = {**_aa("on", 0, 0.0), "key": "sequential|A/A|0", "kind": "sequential", "counts": None}
    pair |= {"delta": -0.07, "alarm": {"0.05": True, "0.1": False}, "verdict": "alarm"}
    tried = [{**_aa("on", 3, 0.03), "widening": True}, {**_aa("off", 0, 0.0), "window_s": [1, 2]}]
    text = script("noisy_table.py").table([_aa("on", 0, 0.01), _aa("on", 3, -0.02), _aa("off", 1, -0.05), pair, *tried])
    shipped, taken_out = "as it ships (1 s windows)", "tried and taken out: windows doubled after a too-noisy look"
    assert f"| `serverbench gate`, counts on (the default); {shipped} | **0 / 2** (≤ 78%) | 1 / 2 (50%) | 1 |" in text
    assert f"| `serverbench gate`, timed signals alone; {shipped} | **1 / 1** (≤ 100%) | 0 / 1 (0%) | 0 |" in text
    assert (
        f"| `serverbench gate`, counts on (the default); {taken_out} | **0 / 1** (≤ 95%) | 1 / 1 (100%) | 0 |" in text
    )
    assert f"| `serverbench gate`, timed signals alone; {taken_out} | **0 / 1** (≤ 95%) | 0 / 1 (0%) | 1 |" in text
    assert text.startswith(
        "Over 3 A/A decisions of the gate as it ships, it raised 1 false regressions and could not decide 1 (33%); "
        "two plain runs one after the other raised false alarms in 1 at 5% and 0 at 10% of 1 pairs."
    )
    assert "| two `pytest -m perf` runs, alarm at 5% | **1 / 1** (≤ 100%) | never (always answers) | 0 |" in text
    assert "| two `pytest -m perf` runs, alarm at 10% | **0 / 1** (≤ 95%) |" in text


def test_the_neighbours_take_cpu_and_are_gone_after_the_block():
    """One neighbour per core spins while the block runs, and none is left once it ends."""
    with script("neighbours.py").Noise(7, cores=1, low=0.05, high=0.1) as noise:
        time.sleep(0.5)
        pids = [p.pid for p in noise.processes]
    assert noise.record()["cpu_share"] > 0.1
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_the_readme_claim_counts_the_shipped_gates_aa_its_plants_and_the_lowest_thresholds_alarms():
    """The README's sentence counts false regressions and could-not-decide over the shipped gate's A/A decisions
    only (not the gate tried and taken out), the planted changes decided a regression among all of them, names each
    plant once, and the sequential pairs' false alarms at the lowest threshold, with the noise's range of shares."""
    plant = {**_aa("on", 1, -0.2), "what": "sleep", "label": "a 60 µs sleep", "key": "gate|sleep|on|0"}
    missed = {**_aa("off", 0, 0.0), "what": "sleep", "label": "a 60 µs sleep", "key": "gate|sleep|off|0"}
    other = {**_aa("on", 1, -0.1), "what": "burn", "label": "a 5% CPU burn", "key": "gate|burn|on|0"}
    other["noise"] = {**other["noise"], "cpu_share": 0.25}
    pair = {**_aa("on", 0, 0.0), "key": "sequential|A/A|0", "kind": "sequential", "counts": None}
    pair |= {"delta": -0.07, "alarm": {"0.1": False, "0.05": True}, "verdict": "alarm"}
    tried = {**_aa("on", 1, 0.03), "widening": True}
    lines = [_aa("on", 1, 0.01), _aa("off", 3, 0.0), _aa("on", 0, 0.0), tried, plant, missed, other, pair]
    text = script("noisy_table.py").claim(lines)
    assert text.startswith("On a 2-core machine with neighbours stealing 25%–40% of its CPU in random bursts"), text
    assert 'the gate gave 1 false regressions and 1 "could not decide" in 3 A/A decisions' in text, text
    assert "decided 2 of 3 planted changes (a 60 µs sleep, a 5% CPU burn, each with" in text, text
    assert "compared at 5%, raised false alarms in 1 of 1 pairs" in text, text
    assert script("noisy_table.py").claim([pair]) == script("noisy_table.py").NOT_YET
