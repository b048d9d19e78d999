"""Growth as a gated A/B signal (judge.memory.judge_growth, growth_pairs), and the soak's other columns: sockets
and the Python heap a server writes (measure.sampling), each judged for growth like PSS (no server)."""

from __future__ import annotations

import dataclasses
import json
import os
import socket

import pytest

from serverbench.judge.ab import GATE_POLICY, judge, rejudge
from serverbench.judge.decision import Policy
from serverbench.judge.memory import GROWTH_MIN_EFFECT, GROWTH_UNIT, growth_pairs, judge_growth, series_growth
from serverbench.measure.sampling import TreeSampler, descriptors, heap_file
from serverbench.records.decisions import ABDecision, Decision, Measurement, Window
from tests.unit.sample_records import result

POLICY = Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)
# No two pairs' differences equal in size: scipy's Wilcoxon takes its exact path, not a 4,096-way permutation
# test (about 3 s a call, which made each mutant of judge_growth a minute's work).
NOISE = [0.05, -0.05, 0.02, -0.02, 0.005, 0.03, -0.03, 0.01, -0.01, 0.04, -0.04, -0.005]  # a clean pair's spread


def _pairs(diff: float, noise=NOISE) -> tuple[list[float], list[float]]:
    """Twelve pairs whose base slopes wander and whose candidate is ``diff`` above, plus noise."""
    base = [-0.5 + 0.1 * i for i in range(len(noise))]
    return base, [b + diff + e for b, e in zip(base, noise)]


def test_a_candidate_growing_faster_by_the_min_effect_is_a_regression():
    """Every pair's candidate ~1.0 MB/10k above the base (mean exactly the minimum effect): regression."""
    d = judge_growth(*_pairs(GROWTH_MIN_EFFECT), POLICY)
    assert d.verdict == "regression" and d.delta == pytest.approx(GROWTH_MIN_EFFECT) and d.unit == GROWTH_UNIT


def test_a_significant_difference_just_under_the_min_effect_passes():
    """0.9 MB/10k faster in every pair is significant but below the minimum effect: pass."""
    d = judge_growth(*_pairs(0.9 * GROWTH_MIN_EFFECT), POLICY)
    assert d.p < POLICY.cell_alpha and d.ci[1] < GROWTH_MIN_EFFECT and d.verdict == "pass" and not d.borderline


def test_a_large_difference_that_is_not_significant_passes():
    """A mean 1.2 MB/10k above, but half the pairs below the base: not significant, pass."""
    noise = [3.0 + 0.01 * k if k % 2 == 0 else -2.6 - 0.01 * (k - 1) for k in range(12)]
    d = judge_growth(*_pairs(1.2, noise), POLICY)
    assert d.delta == pytest.approx(1.4) and d.p > POLICY.cell_alpha and d.verdict == "pass"


def test_a_candidate_that_stops_a_leak_is_an_improvement():
    """A candidate 3 MB/10k below the base in every pair: improvement."""
    assert judge_growth(*_pairs(-3.0), POLICY).verdict == "improvement"


def test_identical_differences_reach_the_wilcoxon_floor():
    """All pairs exactly 2 MB/10k apart (no variance): regression at the exact floor; all equal: pass."""
    base = [0.0] * 12
    d = judge_growth(base, [2.0] * 12, POLICY)
    assert d.verdict == "regression" and d.p == pytest.approx(0.5**12) and d.dispersion == 0.0
    assert judge_growth(base, base, POLICY).verdict == "pass"


def test_too_few_soak_pairs_are_inconclusive():
    """Six pairs cannot reach the 1% level (Wilcoxon floor 0.5**6 > 0.01): inconclusive, naming how many."""
    d = judge_growth([0.0] * 6, [5.0] * 6, POLICY)
    assert d.verdict == "inconclusive" and "at least 7 needed" in d.reason


def test_the_gate_gates_growth_when_soak_pairs_are_there_and_keeps_it_on_rejudge():
    """With growth pairs the gate judges and gates them (in MB/10k); the decision file keeps them, --rejudge too."""
    n = 12
    same = ([1000.0 + i for i in range(n)], [1000.0 + i for i in range(n)])
    cpu = ([100.0 + i % 3 for i in range(n)], [100.0 + i % 3 for i in range(n)])
    pairs = {"throughput": same, "cpu": cpu, "growth": _pairs(3.0)}
    judged = judge(pairs, rate=False, policy=GATE_POLICY)
    assert "growth" in judged.gated and judged.decisions["growth"].verdict == "regression"
    assert judged.verdict == "regression"
    assert "growth" not in judge({"throughput": same, "cpu": cpu}, rate=False, policy=GATE_POLICY).decisions
    from serverbench.judge.ab import decided

    m = Measurement.of(
        "simultaneous", ("base", "candidate"), {k: tuple(map(tuple, v)) for k, v in pairs.items()}, (), n, 0, None, 10.0
    )
    stored = ABDecision.from_record(
        json.loads(json.dumps(decided("c", m, judged, policy=GATE_POLICY, max_error_rate=0.01).to_record()))
    )
    assert stored.decisions["growth"].unit == GROWTH_UNIT and "MB/10k req" in stored.decisions["growth"].summary()
    again = rejudge(stored, GATE_POLICY, 0.01)
    assert again.decisions["growth"].verdict == "regression" and again.exit_status == 1


def test_a_decision_without_a_unit_is_stored_as_before():
    """A ratio signal's record has no 'unit' key and reads back relative."""
    d = Decision("pass", 0.01, (-0.01, 0.03), 0.2, 12, 0.02, False, "r")
    assert "unit" not in d.to_record() and Decision.from_record(d.to_record()).unit == ""
    assert d.summary().startswith("Δ +1.0% [-1.0%, +3.0%]")


SOAK = 44  # an 11 s window's samples at the sampler's 0.25 s


def _window(
    arm: str, block: int, slope_mb_per_s: float, samples: int, phase: str = "saturated", every_s: float = 0.25
) -> Window:
    t = [i * every_s for i in range(samples)]
    r = dataclasses.replace(
        result("ab::x/app/json/c32", 1000.0),
        memory={"series": {"t_s": t, "pss_mb": [50 + slope_mb_per_s * x for x in t]}},
    )
    return Window(arm, phase, block, r)


def test_growth_pairs_come_from_soak_windows_one_pair_per_block():
    """Two blocks of two windows per arm: one pair per block, each arm's mean slope; rate windows ignored."""
    rps = result("ab::x/app/json/c32", 1000.0).rps
    windows = [
        _window(arm, b, s, SOAK) for b in (0, 1) for arm, s in (("base", 0.0), ("candidate", 0.1)) for _ in range(2)
    ] + [_window("base", 0, 5.0, 8, phase="rate")]
    base, cand = growth_pairs(("base", "candidate"), windows)
    assert len(base) == len(cand) == 2
    assert base == pytest.approx((0.0, 0.0)) and cand == pytest.approx((0.1 * 10_000 / rps,) * 2)


def test_growth_pairs_need_every_window_to_be_a_soak():
    """One window shorter than a soak (samples spanning 9.25 s): no growth pairs at all."""
    windows = [_window("base", 0, 0.0, SOAK), _window("candidate", 0, 0.0, 38)]
    assert growth_pairs(("base", "candidate"), windows) is None
    assert growth_pairs(("base", "candidate"), []) is None


def test_a_soak_whose_sampler_fell_behind_is_still_a_soak():
    """An 11 s window sampled every 0.29 s (38 samples, as measured on a busy machine) still gives growth pairs."""
    windows = [_window("base", 0, 0.0, SOAK), _window("candidate", 0, 0.0, 38, every_s=0.29)]
    base, cand = growth_pairs(("base", "candidate"), windows)
    assert base == pytest.approx((0.0,)) and cand == pytest.approx((0.0,))


def test_descriptors_count_sockets_among_open_files():
    """Opening two sockets and a file raises this process's descriptors by three and its sockets by two."""
    fds, sockets = descriptors(os.getpid())
    a, b = socket.socket(), socket.socket()
    with open(__file__) as f, a, b:
        more, more_sockets = descriptors(os.getpid())
        assert f.fileno() > 0
    assert (more - fds, more_sockets - sockets) == (3, 2)
    assert descriptors(2**22 + 12345) is None


def test_a_heap_file_is_read_and_a_bad_or_missing_one_is_none(tmp_path):
    """'<blocks> <malloc bytes>' reads as a Heap (-1: malloc unknown); a missing or garbled file is None."""
    (tmp_path / "10").write_text("1234 2097152\n")
    (tmp_path / "11").write_text("99 -1\n")
    (tmp_path / "12").write_text("half")
    assert heap_file(tmp_path, 10).blocks == 1234 and heap_file(tmp_path, 10).malloc == 2097152
    assert heap_file(tmp_path, 11).malloc is None
    assert heap_file(tmp_path, 12) is None and heap_file(tmp_path, 13) is None


def test_the_sampler_keeps_sockets_and_the_heap_a_process_wrote(tmp_path):
    """Sampling this process with a heap file for it: the series carries sockets and heap columns, each process too."""
    (tmp_path / str(os.getpid())).write_text("5000 1048576\n")
    import time

    with TreeSampler(os.getpid(), interval=0.05, heap_dir=tmp_path) as sampler:
        time.sleep(0.2)
    usage = sampler.usage()
    assert set(usage.series) >= {"sockets", "heap_blocks", "heap_malloc_mb", "fds", "pss_mb"}
    me = next(p for p in usage.per_process if p["parent"])
    assert me["heap_blocks"] == 5000 and me["heap_malloc_mb"] == 1.0 and me["sockets"] is not None
    with TreeSampler(os.getpid(), interval=0.05) as plain:
        time.sleep(0.1)
    assert "heap_blocks" not in plain.usage().series


def test_every_sampled_column_is_judged_for_growth_in_its_own_unit():
    """Heap blocks rising 2 per request grow; sockets flat at 65 do not; a column the window lacks is left out."""
    t = [i * 0.25 for i in range(60)]
    series = {
        "t_s": t,
        "pss_mb": [50.0] * 60,
        "sockets": [65] * 60,
        "fds": [70] * 60,
        "heap_blocks": [20_000 + 2 * 1000 * x for x in t],
    }  # 1,000 requests a second
    judged = series_growth(series, requests=15_000, duration_s=15.0)
    assert judged["heap_blocks"].verdict == "grows" and judged["heap_blocks"].slope == pytest.approx(20_000)
    assert "blocks per 10,000 requests" in judged["heap_blocks"].message
    assert judged["sockets"].verdict == judged["pss_mb"].verdict == "flat"
    assert "heap_malloc_mb" not in judged
