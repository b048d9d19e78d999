"""The A/B judge on synthetic pairs: which signals are judged, the verdict, when a look stops, min_blocks."""

import json
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from serverbench.cli.gate import main as gate_main
from serverbench.judge.ab import (
    COST,
    GATE_BLOCKS,
    GATE_POLICY,
    Judgement,
    Looks,
    _at,
    decided,
    exit_status,
    judge,
    judge_counted,
    looks_for,
    min_blocks,
    policy_record,
    rejudge,
    stored_policy,
)
from serverbench.judge.decision import VERDICTS, Policy, _decide_batch, combine, decide
from serverbench.judge.signals import alpha_shares, gated_signals
from serverbench.records import decisions
from serverbench.records.decisions import DecisionFileError, Measurement
from tests.unit.fuzzing import fuzz

SAME = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7, 100.0, 100.4]


def _pairs(throughput=1.0, cpu=1.0, p50=1.0, n=12, seed=1):
    """Paired values per signal: the candidate is the base times each factor, with 1% noise."""
    rng = np.random.default_rng(seed)

    def pair(level, factor):
        base = level * np.exp(rng.normal(0, 0.01, n))
        return tuple(base), tuple(base * factor * np.exp(rng.normal(0, 0.01, n)))

    return {
        "throughput": pair(10_000, throughput),
        "cpu": pair(80, cpu),
        "p50": pair(1.0, p50),
        "p90": pair(2.0, p50),
        "rss": pair(44.0, 1.0),
    }


def test_identical_arms_pass_on_every_judged_signal():
    """A/A pairs: every signal is judged, none regresses, the verdict is pass; peak RSS is judged, not gated."""
    j = judge(_pairs(), True, GATE_POLICY)
    assert set(j.decisions) == {"throughput", "p50", "p90", "cpu", "rss"}
    assert j.gated == ("throughput", "p50", "p90", "cpu")
    assert j.verdict == "pass", {k: d.summary() for k, d in j.decisions.items()}


def test_a_cpu_regression_alone_fails_the_decision():
    """CPU per request 10% worse, throughput unchanged: the combined verdict is regression."""
    j = judge(_pairs(cpu=1.10), True, GATE_POLICY)
    assert j.decisions["cpu"].verdict == "regression" and j.decisions["throughput"].verdict == "pass"
    assert j.verdict == "regression"


def test_without_fixed_rate_windows_latency_is_neither_judged_nor_gated():
    """rate=False: throughput, CPU and RSS are judged, throughput and CPU gate (alpha split over two)."""
    j = judge(_pairs(), False, GATE_POLICY)
    assert set(j.decisions) == {"throughput", "cpu", "rss"} and j.gated == ("throughput", "cpu")


def test_a_signal_without_pairs_is_inconclusive_never_pass():
    """Every pair of a signal discarded: it is judged on none, and the decision is inconclusive."""
    pairs = _pairs()
    del pairs["p50"]
    j = judge(pairs, True, GATE_POLICY)
    assert j.decisions["p50"].verdict == "inconclusive" and j.decisions["p50"].n == 0
    assert j.verdict == "inconclusive"


def test_a_drop_near_detect_is_not_settled_and_looks_again():
    """At a settle-only look, a 12% drop over 5 pairs is not settled (its bound reaches the 10% detect) and cannot
    be a regression yet: the judge looks again."""
    first = Looks((5, 10, 16), settle_only=1).look(0)
    j = judge(_pairs(throughput=0.88, n=5, seed=3), True, GATE_POLICY, first)
    assert j.decisions["throughput"].verdict == "inconclusive"
    assert not j.settled and j.stopped is None


def test_identical_arms_settle_at_the_first_look():
    """A/A pairs with 1% noise: every gated signal rules out its detect at the first look, which ends the decision."""
    j = judge(_pairs(n=10), True, GATE_POLICY, Looks((10, 16)).look(0))
    assert j.settled and j.stopped == "settled" and j.verdict == "pass"


def test_a_regression_stops_at_the_first_look():
    """A 20% throughput drop at the first look ends the decision with a regression."""
    j = judge(_pairs(throughput=0.8, n=10), True, GATE_POLICY, Looks((10, 16)).look(0))
    assert j.verdict == "regression" and j.stopped == "regression"


def test_min_blocks_reaches_every_gated_signals_level():
    """alpha 0.01 over 4 gated signals needs 9 pairs (0.5**9 < 0.0025): 9 simultaneous or 5 sequential blocks."""
    assert min_blocks(GATE_POLICY, True, 1) == 9
    assert min_blocks(GATE_POLICY, True, 2) == 5
    assert min_blocks(GATE_POLICY, False, 1) == 8  # alpha / 2 signals: 0.5**8 < 0.005
    assert min_blocks(Policy(alpha=0.01, cells=10, min_effect=0.03), True, 1) > 9


def test_exit_status_of_verdicts_and_error_rates():
    """0 pass/improvement, 1 regression or an arm's error rate over the limit, 3 rerun/inconclusive."""
    clean = {"base": 0.0, "candidate": 0.0}
    assert [exit_status(v, clean, 0.01) for v in ("pass", "improvement", "regression", "rerun", "inconclusive")] == [
        0,
        0,
        1,
        3,
        3,
    ]
    assert exit_status("pass", {"base": 0.0, "candidate": 0.02}, 0.01) == 1


@fuzz(200)
@given(st.lists(st.integers(1, 200), min_size=1, max_size=6, unique=True), st.floats(0.001, 0.5))
def test_the_looks_spend_alpha_and_beta_once(blocks, beta):
    """Whatever the looks, their shares of alpha add up to the whole alpha, the looks before the last share beta,
    and only the last look ends without settling."""
    looks = Looks(tuple(sorted(blocks)), beta, settle_only=len(blocks) // 2)
    each = [looks.look(k) for k in range(len(looks.blocks))]
    assert math.isclose(sum(look.spent for look in each), 1.0)
    assert [look.settles_only for look in each] == [k < len(blocks) // 2 for k in range(len(each))]
    assert math.isclose(sum(look.beta for look in each[:-1]), beta if len(each) > 1 else 0.0)
    assert [look.last for look in each] == [False] * (len(each) - 1) + [True]


@fuzz(200)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=5, unique=True), st.integers(1, 80))
def test_looks_up_to_end_at_the_blocks_given(blocks, most):
    """``up_to`` keeps the looks below the most blocks and ends with it; the settle-only looks it keeps are those
    below the last, so the last can always find a regression."""
    looks = Looks(tuple(sorted(blocks))).up_to(most)
    assert looks.blocks[-1] == most and all(b < most for b in looks.blocks[:-1])
    settling = Looks(tuple(sorted(blocks)), settle_only=len(blocks) - 1).up_to(most)
    assert settling.settle_only == min(len(blocks) - 1, len(settling.blocks) - 1)


def test_looks_refuse_blocks_out_of_order_and_beta_out_of_range():
    """Looks are increasing whole numbers of blocks, beta in (0, 1)."""
    for bad in ((), (10, 10), (16, 10), (0, 5), (True, 5)):
        with pytest.raises(ValueError, match="increasing whole numbers of blocks"):
            Looks(bad)
    with pytest.raises(ValueError, match="beta"):
        Looks((10,), beta=1.0)


def test_the_gate_looks_first_where_half_of_alpha_can_be_reached():
    """After a settle-only look at 5 blocks, the first look that can find a regression is at the fewest blocks
    whose pairs can show one at half of alpha: 10 for one cell (0.5**10 < 0.01 / 4 signals / 2 looks), more for
    three cells; one look when the blocks do not reach beyond it."""
    looks = looks_for(GATE_POLICY, True, GATE_BLOCKS)
    assert looks.blocks == (5, 10, GATE_BLOCKS) and looks.settle_only == 1
    assert looks_for(replace(GATE_POLICY, cells=3), True, GATE_BLOCKS).blocks == (5, 12, GATE_BLOCKS)
    assert looks_for(GATE_POLICY, True, 9).blocks == (5, 9) and looks_for(GATE_POLICY, True, 5).blocks == (5,)
    assert looks_for(GATE_POLICY, False, 12).blocks == (5, 9, 12)  # two signals share alpha without fixed-rate windows
    assert looks_for(GATE_POLICY, True, GATE_BLOCKS, pairs_per_block=2).blocks == (3, 5, GATE_BLOCKS)


def test_a_settle_only_look_ends_a_decision_only_settled():
    """At a settle-only look a 40% drop does not stop the decision (that look spends no alpha) and quiet A/A
    pairs settle it; the next look stops on the drop."""
    looks = Looks((5, 10, 16), settle_only=1)
    drop = judge(_pairs(throughput=0.6, n=5), True, GATE_POLICY, looks.look(0))
    assert drop.stopped is None
    assert judge(_pairs(n=5), True, GATE_POLICY, looks.look(0)).stopped == "settled"
    assert judge(_pairs(throughput=0.6, n=10), True, GATE_POLICY, looks.look(1)).stopped == "regression"
    with pytest.raises(ValueError, match="settle_only"):
        Looks((5,), settle_only=1)


def test_looking_twice_keeps_the_false_regression_rate_within_alpha():
    """2,000 A/A runs of 16 pairs, looked at after 10 and 16 at half of alpha 0.05 each, no minimum effect: a
    regression at either look in at most 5% of runs (the union bound), though the looks share their first pairs."""
    rng = np.random.default_rng(5)
    base = 1000 * np.exp(rng.normal(0, 0.05, (2000, 16)))
    cand = base * np.exp(rng.normal(0, 0.05, (2000, 16)))
    looks = Looks((10, 16))
    flagged = np.zeros(2000, dtype=bool)
    for k, n in enumerate(looks.blocks):
        policy = Policy(alpha=0.05 * looks.look(k).alpha_share, min_effect=0.0, max_dispersion=math.inf)
        flagged |= [d.verdict == "regression" for d in _decide_batch(base[:, :n], cand[:, :n], policy)]
    print(f"A/A, two looks at alpha 0.05: {flagged.mean():.4f}")  # measured: see the assertion's margin
    assert flagged.mean() <= 0.05


def test_a_regression_stops_at_any_look_and_the_last_look_always_stops():
    """A 20% drop stops at the first look; a 2% drop (below min_effect) at the last look passes there."""
    looks = Looks((10, 16))
    assert judge(_pairs(throughput=0.8, n=10), True, GATE_POLICY, looks.look(0)).stopped == "regression"
    noisy = judge(_pairs(throughput=0.98, n=16, seed=3), True, GATE_POLICY, looks.look(1))
    assert noisy.stopped == "last look" and noisy.verdict == "pass"


def test_counted_once_per_arm_stops_only_beyond_the_clear_limit():
    """One count per arm: +3.5% is a regression, +0.5% a pass, +2% needs a second count, -4% an improvement."""
    verdicts = [judge_counted((1000.0,), (1000.0 * (1 + d),)).verdict for d in (0.035, 0.005, 0.02, -0.04)]
    assert verdicts == ["regression", "pass", "inconclusive", "improvement"]
    two = judge_counted((1000.0, 1000.5), (1020.0, 1020.3))  # +2% against a 0.05% spread: the 1% floor
    assert two.verdict == "regression" and two.n == 2


# Merged from test_ab_boundaries.py: The A/B decision's limits, each pinned just inside and just outside (issue 22;
# docs/lab/mutation.md).
def _with_ratios(r):
    """Base 1000 and a candidate at base * exp(r) per pair: the log ratios are exactly ``r``."""
    base = [1000.0] * len(r)
    return base, [1000.0 * math.exp(x) for x in r]


def _spread(dispersion, n=12, shift=0.0):
    """Log ratios ``shift`` +- x_i with median ``shift`` and scaled MAD ``dispersion`` (x = dispersion / 1.4826);
    the x_i differ by 0.01% so that no two |ratios| tie (ties make scipy's Wilcoxon slow)."""
    x = dispersion / 1.4826
    return [shift + (1 if i % 2 else -1) * x * (1 + 1e-4 * (i - (n - 1) / 2)) for i in range(n)]


def test_the_interval_uses_the_two_sided_quantile():
    """The CI half-width is t(1 - alpha/2, n-1) * sd / sqrt(n), not t(1 - alpha)."""
    r = [0.01, -0.02, 0.03, 0.0, -0.01, 0.02, 0.015, -0.005]
    d = decide(*_with_ratios(r), Policy(alpha=0.05))
    half = stats.t.ppf(0.975, len(r) - 1) * np.std(r, ddof=1) / math.sqrt(len(r))
    assert d.ci[0] == pytest.approx(math.expm1(np.mean(r) - half), rel=1e-9)
    assert d.ci[1] == pytest.approx(math.expm1(np.mean(r) + half), rel=1e-9)


def test_exactly_min_pairs_pairs_are_enough_and_one_fewer_is_not():
    """n == min_pairs can reach a verdict (regression); n == min_pairs - 1 is inconclusive."""
    pol = Policy(alpha=0.1, min_pairs=6, min_effect=0.05)  # Wilcoxon floor 0.5**4 < 0.1: not the limit here
    drop = [-0.3, -0.31, -0.29, -0.305, -0.295, -0.3]
    assert decide(*_with_ratios(drop), pol).verdict == "regression"
    few = decide(*_with_ratios(drop[:5]), pol)
    assert few.verdict == "inconclusive" and "min_pairs=6" in few.reason


def test_the_wilcoxon_floor_is_a_strict_limit():
    """0.5**n must be below the cell's alpha: 0.5**5 = alpha is inconclusive, 0.5**6 < alpha is not."""
    pol = Policy(alpha=0.5**5, min_pairs=2, min_effect=0.05)
    drop = [-0.3, -0.31, -0.29, -0.305, -0.295, -0.3]
    assert decide(*_with_ratios(drop[:5]), pol).verdict == "inconclusive"
    assert decide(*_with_ratios(drop), pol).verdict == "regression"


def test_combine_says_rerun_before_inconclusive_and_both_before_improvement():
    """A noisy signal and a short one: rerun (the machine was noisy); either one outranks an improvement."""
    same = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7]
    noisy = decide(*_with_ratios(_spread(0.3, n=10)))
    few = decide(same[:3], same[:3])
    better = decide(same, [v * 1.2 for v in same])
    assert (noisy.verdict, few.verdict, better.verdict) == ("rerun", "inconclusive", "improvement")
    assert combine({"a": noisy, "b": few}) == "rerun"
    assert combine({"a": few, "b": noisy}) == "rerun"
    assert combine({"a": better, "b": few}) == "inconclusive"
    assert combine({"a": better, "b": noisy}) == "rerun"


def test_high_dispersion_does_not_hide_an_unmistakable_improvement():
    """A 40% gain on noisy pairs whose whole CI is beyond min_effect is an improvement, not rerun."""
    r = _spread(0.2, n=16, shift=math.log(1.4))
    d = decide(*_with_ratios(r), Policy(alpha=0.05, max_dispersion=0.10))
    assert d.dispersion > 0.10 and d.ci[0] > 0.05
    assert d.verdict == "improvement", d.reason


def test_high_dispersion_with_an_improvement_inside_min_effect_reruns():
    """Negative case: a noisy gain whose interval reaches below min_effect is not judged: rerun."""
    r = _spread(0.2, n=16, shift=math.log(1.08))
    d = decide(*_with_ratios(r), Policy(alpha=0.05, max_dispersion=0.10))
    assert d.dispersion > 0.10 and d.ci[0] < 0.05
    assert d.verdict == "rerun", d.reason


def test_gate_policy_dispersion_limit_is_fifteen_percent():
    """Under the gate's policy, unchanged pairs with dispersion 14.9% pass and 15.1% ask for a rerun."""
    assert decide(*_with_ratios(_spread(0.149)), GATE_POLICY).verdict == "pass"
    assert decide(*_with_ratios(_spread(0.151)), GATE_POLICY).verdict == "rerun"


def test_gate_policy_min_effect_is_three_percent():
    """A clean, significant 2.9% drop passes the gate (too small); a 3.1% drop is a regression."""

    def drop(effect):
        r = [math.log(1 - effect) + 0.0002 * (i - 5.5) for i in range(12)]
        return decide(*_with_ratios(r), GATE_POLICY).verdict

    assert drop(0.029) == "pass" and drop(0.031) == "regression"


def test_gate_policy_alpha_is_one_percent():
    """7 pairs of a clear drop reach the gate's alpha 0.01 (0.5**7 < 0.01); 6 pairs cannot (0.5**6 > 0.01)."""
    r = [-0.3 + 0.001 * i for i in range(7)]
    assert decide(*_with_ratios(r), GATE_POLICY).verdict == "regression"
    assert decide(*_with_ratios(r[:6]), GATE_POLICY).verdict == "inconclusive"


def test_exit_status_reads_both_arms_error_rates():
    """Either arm's error rate over the limit fails the gate, the base's as much as the candidate's."""
    assert exit_status("pass", {"base": 0.02, "candidate": 0.0}, 0.01) == 1
    assert exit_status("pass", {"base": 0.0, "candidate": 0.02}, 0.01) == 1
    assert exit_status("improvement", {"base": 0.02, "candidate": 0.0}, 0.01) == 1


def test_exit_status_error_limit_is_inclusive():
    """An error rate exactly at the limit passes; just over it fails; over it fails even an unreached verdict."""
    assert exit_status("pass", {"base": 0.01, "candidate": 0.01}, 0.01) == 0
    assert exit_status("pass", {"base": 0.0, "candidate": 0.0101}, 0.01) == 1
    assert exit_status("rerun", {"base": 0.0101, "candidate": 0.0}, 0.01) == 1
    assert exit_status("pass", {}, 0.01) == 0


# Merged from test_ab_decisions.py: A/B decision files and `gate --rejudge`: written, read back (schema 2 and the old
# gate's schema 1), judged again.
BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7, 100.0, 100.4]
SLOWER = [v * (0.9 + 0.001 * k) for k, v in enumerate(BASE)]  # a 9-10% throughput drop, no tied ratios

# One fixed-rate window as the gate wrote it before decision files had a schema: the arm only in the
# nodeid, the load shape as a label (schema-1 result record).
OLD_WINDOW = {
    "app": "aiohttp",
    "backends": [],
    "bytes": 259616,
    "duration_s": 2.003,
    "error_rate": 0.0,
    "connections": 32,
    "errors": {"connect": 0, "read": 0, "status": 0, "timeout": 0, "write": 0},
    "generator": {
        "busy_pct": 21.8,
        "cpu_pct": 21.8,
        "name": "oha",
        "saturated": False,
        "threads": 1,
        "version": "1.16.0",
    },
    "key": "ab::aiohttp/aiohttp/json/r4641",
    "latency_ms": {
        "max": 4.725,
        "mean": 0.673,
        "p50": 0.579,
        "p75": 0.813,
        "p90": 1.143,
        "p99": 2.066,
        "p999": 3.709,
        "stdev": 0.421,
    },
    "machine": {"id": "amd-epyc-2c-cpython-3.11-wrk-debian-4.1.0-3-b2"},
    "nodeid": "ab::candidate@rate",
    "python": {"implementation": "cpython", "version": "3.11.7"},
    "requests": 9272,
    "rps": 4629.5,
    "server": {"cpu_s": 0.77, "cpu_us_per_request": 83.05, "rss_mb": 43.8},
    "shape": "r4641",
    "test": "ab",
    "timestamp": "2026-11-23T06:02:43+00:00",
    "url": "http://127.0.0.1:28544/json",
    "variant": "aiohttp",
    "verdict": None,
    "warmup_rps": [],
    "warmup_s": 0,
    "warmup_settled": None,
    "workload": "json",
}


def _measurement(base=BASE, cand=SLOWER, rate=None):
    pairs = {
        "throughput": (tuple(base), tuple(cand)),
        "cpu": (tuple(base), tuple(base)),
        "rss": (tuple(base), tuple(base)),
    }
    return Measurement(
        "simultaneous",
        ("base", "candidate"),
        pairs,
        (),
        len(base),
        1,
        rate,
        60.0,
        {"base": 0.0, "candidate": 0.0},
        {"base": 44.0, "candidate": 44.5},
    )


def _decision(measured=None, policy=GATE_POLICY):
    measured = measured or _measurement()
    return decided(
        "aiohttp/aiohttp json c32",
        measured,
        judge(measured.pairs, measured.rate is not None, policy),
        policy=policy,
        max_error_rate=0.01,
    )


def _old_file(tmp_path, measured):
    """The decision as the gate's `--json` wrote it before this schema (gate.record of that version)."""
    made = _decision(measured)
    rec = {
        "cell": made.cell,
        "verdict": made.verdict,
        "exit_status": made.exit_status,
        "mode": "simultaneous",
        "rate": measured.rate,
        "extended": False,
        "reruns": 1,
        "seconds": 60.0,
        "error_rate": {"base": 0.0, "candidate": 0.0},
        "peak_rss_mb": {"base": 44.0, "candidate": 44.5},
        "decisions": {
            k: {
                "verdict": d.verdict,
                "delta": d.delta,
                "ci": list(d.ci),
                "p": d.p,
                "n": d.n,
                "dispersion": d.dispersion,
                "borderline": d.borderline,
                "reason": d.reason,
            }
            for k, d in made.decisions.items()
        },
        "pairs": {k: {"base": list(v[0]), "candidate": list(v[1])} for k, v in measured.pairs.items()},
        "windows": [OLD_WINDOW],
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(rec))
    return path, made


def test_a_decision_file_round_trips(tmp_path):
    """Written and read back: the same verdict, decisions, pairs, policy and limit; the file says schema 3."""
    made = _decision()
    decisions.write(tmp_path / "d.json", made)
    back = decisions.read(tmp_path / "d.json")
    assert back == made
    assert json.loads((tmp_path / "d.json").read_text())["schema"] == 3


def test_a_file_of_the_old_gate_still_loads(tmp_path):
    """Schema 1: the windows' arm and phase come from their nodeid; policy, limit and gated signals are unknown."""
    path, made = _old_file(tmp_path, _measurement())
    back = decisions.read(path)
    assert back.schema == 1 and back.policy is None and back.max_error_rate is None and back.gated is None
    assert back.decisions == made.decisions and back.pairs == made.pairs
    (window,) = back.windows
    assert (window.arm, window.phase, window.block) == ("candidate", "rate", None)
    assert window.result.shape.rate == 4641 and window.result.rps == pytest.approx(4629, rel=0.01)


def test_rejudging_a_stored_decision_under_its_policy_reproduces_it(tmp_path):
    """The stored pairs judged again under the stored (or, schema 1, the gate's) policy: the same decisions."""
    made = _decision()
    assert rejudge(made, GATE_POLICY, 0.01) == made
    path, old = _old_file(tmp_path, _measurement())
    again = rejudge(decisions.read(path), GATE_POLICY, 0.01)
    assert again.decisions == old.decisions and again.verdict == old.verdict == "regression"


def test_gate_rejudge_prints_and_exits_like_a_live_run(tmp_path, capsys):
    """--rejudge: the live run's lines and exit status, no server; --min-effect above the drop turns it into a pass."""
    decisions.write(tmp_path / "d.json", _decision())
    assert gate_main(["--rejudge", str(tmp_path / "d.json")]) == 1
    out = capsys.readouterr()
    first, rest = out.out.split("\n", 1)  # the verdict line first, as the comment and the step summary lead with it
    assert first == "✗ `json` under aiohttp: throughput −9.5% (−9.8 … −9.1%)", first
    assert rest.startswith("aiohttp/aiohttp json c32: simultaneous, 0 windows, 1 re-run, 60 s\n  stopped: regression")
    assert "  verdict     regression" in out.out and "no server started" in out.err
    assert (
        gate_main(
            ["--rejudge", str(tmp_path / "d.json"), "--min-effect", "0.2", "--json", str(tmp_path / "again.json")]
        )
        == 0
    )
    again = decisions.read(tmp_path / "again.json")
    assert again.verdict == "pass" and again.policy["min_effect"] == 0.2


def test_gate_rejudge_of_an_old_file_and_a_stricter_alpha(tmp_path, capsys):
    """An old gate's file re-judged with --alpha and --cells: alpha / cells is stored in the new file."""
    path, _ = _old_file(tmp_path, _measurement())
    out = tmp_path / "new.json"
    assert gate_main(["--rejudge", str(path), "--alpha", "0.05", "--cells", "5", "--json", str(out)]) == 1
    stored = decisions.read(out)
    assert stored.schema == 3 and stored.policy["alpha"] == 0.05 and stored.policy["cells"] == 5
    assert stored.decisions["throughput"].reason.count("0.005") == 1  # 0.05 / (5 cells x 2 gated signals)


def test_gate_rejudge_refuses_what_is_not_a_decision_file(tmp_path, capsys):
    """A missing file, or JSON that is not a decision, is bad input (exit 2) naming the file and the fix."""
    assert gate_main(["--rejudge", str(tmp_path / "none.json")]) == 2
    assert "none.json: no such file" in capsys.readouterr().err
    (tmp_path / "results.json").write_text(json.dumps({"results": []}))
    assert gate_main(["--rejudge", str(tmp_path / "results.json")]) == 2
    assert "not an A/B decision file" in capsys.readouterr().err
    with pytest.raises(DecisionFileError, match="schema 9"):
        (tmp_path / "future.json").write_text(json.dumps({"schema": 9, "decisions": {}, "pairs": {}}))
        decisions.read(tmp_path / "future.json")


def test_an_extension_adds_later_blocks_to_the_pairs():
    """Measurement.plus: the pairs of the later blocks follow the earlier ones; blocks, re-runs and time add up."""
    first, later = _measurement(BASE[:6], SLOWER[:6]), _measurement(BASE[6:], SLOWER[6:])
    both = first.plus(later)
    assert both.pairs["throughput"] == (tuple(BASE), tuple(SLOWER))
    assert (both.blocks, both.reruns, both.seconds) == (12, 2, 120.0)
    assert Policy(**{k: v for k, v in _decision().policy.items()}) == GATE_POLICY


# Merged from test_mutation_ab.py: The A/B judge's bookkeeping (issue 22, mutation survivors): gated signals with
# cost, the stored policy, and judging a stored decision again.
def _gated_pairs(throughput=1.0, n=12, rate=True):
    rng = np.random.default_rng(3)

    def pair(level, factor):
        base = level * np.exp(rng.normal(0, 0.01, n))
        return tuple(base), tuple(base * factor * np.exp(rng.normal(0, 0.01, n)))

    out = {"throughput": pair(10_000, throughput), "cpu": pair(80, 1.0), "rss": pair(44.0, 1.0)}
    if rate:
        out |= {"p50": pair(1.0, 1.0), "p90": pair(2.0, 1.0)}
    return out


def _measured(pairs, rate=None, error_rate=None):
    return Measurement(
        "simultaneous",
        ("base", "candidate"),
        pairs,
        (),
        12,
        0,
        rate,
        60.0,
        error_rate or {"base": 0.0, "candidate": 0.0},
        {"base": 44.0, "candidate": 44.0},
    )


def test_counted_cost_gates_beside_the_other_signals():
    """With counts measured, cost is added to the gated signals; the others still gate."""
    pairs = {**_gated_pairs(), COST: ((1000.0, 1000.0), (1000.0, 1000.0))}
    assert judge(pairs, True, GATE_POLICY).gated == ("throughput", "p50", "p90", "cpu", COST)


def test_min_blocks_counts_one_pair_per_block_by_default():
    """By default each block gives one pair: the blocks needed equal the pairs needed; two per block halve it."""
    one = min_blocks(GATE_POLICY, True)
    assert min_blocks(GATE_POLICY, True, pairs_per_block=1) == one
    assert min_blocks(GATE_POLICY, True, pairs_per_block=2) == (one + 1) // 2 < one


def test_policy_record_keeps_the_limits_not_the_direction():
    """A stored policy has alpha, cells, min_effect, min_pairs and max_dispersion, not higher_is_better."""
    assert policy_record(Policy(alpha=0.02, cells=3)) == {
        "alpha": 0.02,
        "cells": 3,
        "min_effect": 0.05,
        "min_pairs": 5,
        "max_dispersion": 0.10,
    }


def test_stored_policy_reads_back_the_policy_judged_under():
    """A decision's stored policy is the one it was judged under; an unknown key is ignored."""
    pol = Policy(alpha=0.02, cells=3, min_effect=0.07, min_pairs=6, max_dispersion=0.2)
    d = decided("c", _measured(_gated_pairs()), judge(_gated_pairs(), True, pol), policy=pol, max_error_rate=0.01)
    assert stored_policy(d) == pol
    assert stored_policy(replace(d, policy={**d.policy, "future": 1})) == pol


def test_decided_keeps_the_gated_signals_and_the_exit_status():
    """The decision record names the gated signals, and its exit status follows the verdict."""
    pairs = _gated_pairs(throughput=0.8)
    d = decided(
        "c",
        _measured(pairs, rate=100.0),
        judge(pairs, True, GATE_POLICY),
        policy=GATE_POLICY,
        max_error_rate=0.01,
    )
    assert d.gated == ("throughput", "p50", "p90", "cpu")
    assert (d.verdict, d.exit_status, d.stopped, d.max_error_rate) == ("regression", 1, "regression", 0.01)


def test_rejudge_judges_the_fixed_rate_signals_when_they_were_measured():
    """A stored decision with a fixed rate is judged again on its latency signals too; one without, not."""
    pairs = _gated_pairs()
    stored = decided(
        "c",
        _measured(pairs, rate=100.0),
        judge(pairs, True, GATE_POLICY),
        policy=GATE_POLICY,
        max_error_rate=0.01,
    )
    again = rejudge(stored, GATE_POLICY, 0.01)
    assert again.gated == ("throughput", "p50", "p90", "cpu") and "p50" in again.decisions
    unrated = _gated_pairs(rate=False)
    stored = decided(
        "c",
        _measured(unrated),
        judge(unrated, False, GATE_POLICY),
        policy=GATE_POLICY,
        max_error_rate=0.01,
    )
    assert rejudge(stored, GATE_POLICY, 0.01).gated == ("throughput", "cpu")


def test_rejudge_judges_a_stored_decision_at_the_look_it_stopped_at():
    """A decision that stopped at a look of several (its share of alpha; before the last, its settle bound too)
    is judged again at that look, not at the whole alpha: rejudged, it is the same record, looks and look kept."""
    pairs = _gated_pairs(throughput=0.98)
    looks = Looks((3, 6, 12), 0.05, settle_only=1)
    for k in (0, 1, 2):
        stored = decided(
            "c",
            _measured(pairs, rate=100.0),
            judge(pairs, True, GATE_POLICY, looks.look(k)),
            policy=GATE_POLICY,
            max_error_rate=0.01,
            looks=looks,
        )
        assert (stored.looks, stored.settle_only, stored.look) == ((3, 6, 12), 1, k)
        assert rejudge(stored, GATE_POLICY, 0.01) == stored
    whole = decided(
        "c", _measured(pairs, rate=100.0), judge(pairs, True, GATE_POLICY), policy=GATE_POLICY, max_error_rate=0.01
    )
    assert whole.decisions != stored.decisions, "the test's pairs must tell the look's alpha from the whole alpha"


# Properties (issue 35): the alpha the looks spend, the exit status, the stored policy.
@fuzz(200)
@given(
    st.lists(st.integers(1, 200), min_size=1, max_size=6, unique=True),
    st.data(),
    st.floats(1e-4, 0.5),
    st.booleans(),
)
def test_the_looks_judge_each_signal_within_its_alpha(blocks, data, alpha, rate):
    """Over the looks that can find a regression, each gated signal is judged at alphas adding up to its own share
    of the cell's alpha, never more; a settle-only look spends none, and only the last look stops settling."""
    looks = Looks(tuple(sorted(blocks)), settle_only=data.draw(st.integers(0, len(blocks) - 1)))
    gate = Policy(alpha=alpha)
    gated = gated_signals(rate)
    each = [looks.look(k) for k in range(len(looks.blocks))]
    assert all(look.spent == 0.0 for look in each[: looks.settle_only])
    for s in gated:
        own = s.policy(gate, alpha_shares(gated))
        at = [_at(own, look) for look in each]
        assert sum(p.alpha for p, look in zip(at, each) if not look.settles_only) == pytest.approx(own.alpha)
        assert [p.detect for p in at] == [own.detect] * (len(each) - 1) + [None]


@given(st.sampled_from(VERDICTS), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_the_exit_status_is_one_for_a_failure_three_for_no_verdict(verdict, base, cand, limit):
    """Exit 1 for a regression or an arm's error rate over the limit, else 3 for a verdict not reached (rerun,
    inconclusive), else 0 (pass, improvement)."""
    status = exit_status(verdict, {"base": base, "candidate": cand}, limit)
    if verdict == "regression" or max(base, cand) > limit:
        assert status == 1
    else:
        assert status == (3 if verdict in ("rerun", "inconclusive") else 0)


@given(
    st.floats(1e-3, 0.5),
    st.integers(1, 9),
    st.floats(0.0, 0.5),
    st.booleans(),
    st.none() | st.floats(0.01, 0.5),
    st.floats(0.01, 0.5),
)
def test_a_stored_policy_keeps_the_gates_limits_and_none_of_a_signals(alpha, cells, effect, higher, detect, beta):
    """A decision file keeps the gate's limits and reads them back; a signal's direction, detect and beta are each
    signal's, so they are not stored and read back as the defaults."""
    policy = Policy(alpha=alpha, cells=cells, min_effect=effect, higher_is_better=higher, detect=detect, beta=beta)
    record = policy_record(policy)
    assert not {"higher_is_better", "detect", "beta"} & set(record)
    assert Policy(**record) == replace(policy, higher_is_better=True, detect=None, beta=Policy().beta)


@fuzz(200)
@given(st.floats(1.0, 1e9), st.floats(0.5, 2.0), st.floats(1.0, 2.0))
def test_a_larger_count_never_turns_a_counted_regression_into_anything_else(base, ratio, more):
    """One count per arm: a candidate counted higher still is still a regression; swapping the arms never makes
    both a regression, and the change's sign flips."""
    cand = base * ratio
    if judge_counted([base], [cand]).verdict == "regression":
        assert judge_counted([base], [cand * more]).verdict == "regression"
    ab, ba = judge_counted([base], [cand]), judge_counted([cand], [base])
    assert not (ab.verdict == ba.verdict == "regression") and ab.delta * ba.delta <= 0


@pytest.mark.parametrize("settle_only", [1.0, 0.5, True])
def test_settle_only_must_be_a_whole_number(settle_only):
    """settle_only counts looks: 1.0, 0.5 or True is refused naming the value, though 0 <= it < the looks."""
    with pytest.raises(ValueError, match=f"looks settle_only={settle_only!r}: a whole number of first looks"):
        Looks((5, 10, 16), settle_only=settle_only)


# Issue 35, item 6: the survivors of a cold mutation run (single counts, looks, a stored decision judged again).
def test_a_single_count_per_arm_is_recorded_as_a_point_not_a_test():
    """One count per arm: the record keeps the change as its delta and as both ends of its interval, no p and no
    dispersion (not a test), n 1, not borderline, and a reason giving both counts, the change and the limit."""
    d = judge_counted((1000.0,), (1035.0,))
    rec = d.to_record()
    assert math.isnan(rec.pop("dispersion"))
    assert rec == {
        "verdict": "regression",
        "delta": d.delta,
        "ci": [d.delta, d.delta],
        "p": None,
        "n": 1,
        "borderline": False,
        "reason": "counted once per arm: 1,035 vs 1,000 instructions/request (+3.50%), beyond the 3% a single "
        "count per arm must exceed (fresh counts' A/A spread: 0.015-0.52%)",
    }
    assert d.delta == pytest.approx(0.035)


def test_one_count_against_two_is_judged_by_the_spread_rule():
    """A single count in one arm only is not a single count per arm: no spread to judge by, so inconclusive (n 1),
    never a pass on the two first counts."""
    d = judge_counted((1000.0,), (1000.0, 1000.0))
    assert (d.verdict, d.n) == ("inconclusive", 1) and "fewer than two counts" in d.reason
    assert judge_counted((1000.0, 1000.0), (1000.0,)).verdict == "inconclusive"


def test_looks_refuse_a_beta_of_zero():
    """beta is a chance in the open interval (0, 1): 0 (no early pass ever allowed) is refused naming it."""
    with pytest.raises(ValueError, match="looks beta=0.0"):
        Looks((10,), beta=0.0)


def test_each_look_knows_its_number_and_how_many_there_are():
    """``look(k)`` is look k of all the looks (index, of), whatever the settle-only ones."""
    looks = Looks((5, 10, 16), settle_only=1)
    assert [(looks.look(k).index, looks.look(k).of) for k in range(3)] == [(0, 3), (1, 3), (2, 3)]


def test_the_gate_looks_once_more_when_the_blocks_reach_exactly_the_first_look():
    """At most 10 blocks, where half of alpha is first reachable: a settle-only look at 5 then the last at 10,
    not a look at 10 twice."""
    assert min_blocks(GATE_POLICY, True, looks=2) == 10
    looks = looks_for(GATE_POLICY, True, 10)
    assert (looks.blocks, looks.settle_only) == ((5, 10), 1)


def test_a_signal_settles_at_its_looks_beta_before_the_last_look():
    """Before the last look a signal settles at that look's beta (beta over the looks before the last); at the last,
    which ends the decision anyway, it keeps its own beta and does not settle."""
    own = Policy(alpha=0.01, detect=0.1, beta=0.2)
    looks = Looks((5, 10, 16), beta=0.05)
    assert [(_at(own, looks.look(k)).beta, _at(own, looks.look(k)).detect) for k in range(3)] == [
        (0.025, 0.1),
        (0.025, 0.1),
        (0.2, None),
    ]


def test_min_blocks_waits_for_the_policys_min_pairs():
    """A policy asking for 20 pairs needs 20 blocks of one pair (10 of two), beyond what the Wilcoxon floor needs."""
    many = replace(GATE_POLICY, min_pairs=20)
    assert (min_blocks(many, True), min_blocks(many, True, 2), min_blocks(many, False)) == (20, 10, 20)


def test_a_decision_judged_at_one_look_records_no_looks_and_no_extension():
    """Judged at one look: the record stores no looks, look 0 and no settle-only look, and says it was not extended
    (the file's ``extended`` is false)."""
    d = _decision()
    assert (d.looks, d.settle_only, d.look, d.extended) == (None, 0, 0, False)


def test_rejudge_keeps_a_decision_the_counts_ended():
    """A decision the counted signal ended (before any timed block) is judged again on its counts alone, at the look
    it is stored at: the same record, still stopped by the counts, never judged as timed signals without pairs."""
    pairs = {COST: ((1000.0,), (1040.0,))}
    first = decided(
        "c",
        _measured(pairs),
        Judgement({COST: judge_counted(*pairs[COST])}, (COST,)),
        policy=GATE_POLICY,
        max_error_rate=0.01,
        looks=Looks((5, 10, 16), settle_only=1),
        stopped="counted",
    )
    assert (first.verdict, first.exit_status, first.gated, first.stopped) == ("regression", 1, (COST,), "counted")
    for k in (0, 1, 2):
        stored = replace(first, look=k)
        assert rejudge(stored, GATE_POLICY, 0.01) == stored


def test_rejudge_of_a_look_past_the_last_judges_at_the_last_look():
    """A file whose look index is beyond its looks (another writer's) is judged at its last look, not at a look
    that does not exist (which would still settle and spend another share of alpha)."""
    pairs = _gated_pairs(throughput=0.98)
    looks = Looks((3, 6, 12), 0.05, settle_only=1)
    last = decided(
        "c",
        _measured(pairs, rate=100.0),
        judge(pairs, True, GATE_POLICY, looks.look(2)),
        policy=GATE_POLICY,
        max_error_rate=0.01,
        looks=looks,
    )
    assert rejudge(replace(last, look=5), GATE_POLICY, 0.01) == last


def _system(verdict):
    from serverbench.records.decisions import Decision

    return Decision(verdict, 1.0, (1.0, 1.0), math.nan, 1, math.nan, False, "rose: +1.00 x per request", "per request")


def test_the_counted_system_decision_gates_only_where_it_was_judged():
    """A judged system decision joins the gated signals (its regression fails the cell); one not judged
    (absent counts) is kept for its reason and gates nothing; a rejudge keeps it as it was counted."""
    from serverbench.judge.ab import SYSTEM, Judgement, with_system

    base = Judgement({COST: _system("pass")}, (COST,))
    assert with_system(base, _system("regression")).verdict == "regression"
    kept = with_system(base, _system("inconclusive"))
    assert kept.gated == (COST,) and kept.verdict == "pass" and SYSTEM in kept.decisions
    assert with_system(base, None) is base
