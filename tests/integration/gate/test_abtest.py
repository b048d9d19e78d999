"""The same-session A/B gate on real servers: A/A passes, an injected slowdown fails, bad input is refused."""

import pytest

from serverbench.catalog.matrix import Cell
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.cli.gate import main as gate_main
from serverbench.errors import ConfigError, MissingBinaryError, ServerStartError
from serverbench.gate import loop
from serverbench.gate.plan import ABPlan, Arm
from serverbench.records import decisions

pytestmark = pytest.mark.usefixtures("no_leaks")
AIOHTTP = registry()["aiohttp"]
# Under xdist a verdict on 1 s windows would also judge the load of the test beside it.
JUDGES_TIMINGS = pytest.mark.alone(reason="the gate's verdict is judged on timed windows")
# The injected regressions are judged on 10 blocks, one attempt, without a warm-up.  With fixed-rate windows alpha
# 0.01 is split over throughput, p50, p90 and CPU (0.0025 each); the exact Wilcoxon floor 0.5**n is below that from
# n = 9 (judge.ab.min_blocks), so 10 blocks leave one pair to discard.  The looks (a settle-only one at 5 blocks,
# then 10) can only end a decision early on a settled pass, which would fail these tests.
# Without a warm-up only each block's first saturated round is cold, in both arms; the fixed-rate windows follow.
# One round per phase and block (rounds=1: the arms' cores alternate from block to block, not within it): the injected
# effects are many times the asymmetry between the cores that a second round cancels (measured: p50 +304%, throughput
# -38%), and it halves the windows.  The A/A test keeps the shipped two rounds, where that asymmetry would show.
INJECTED = dict(blocks=10, duration=1, warmup=0, retries=0, rounds=1)
# The slowdown is judged on throughput and CPU per request, the saturated windows' signals: without fixed-rate windows
# (rate=None, as --rate off) alpha 0.01 is split over those two (0.005 each), which 0.5**n passes from n = 8, and a
# block is one saturated window per arm.  The fixed-rate windows are the delay test's subject (p50) and the A/A's.
SATURATED_ONLY = dict(blocks=8, duration=1, warmup=0, retries=0, rounds=1, rate=None)


def run_ab(variant, workload, base, cand, retries=0, **kwargs):
    """One attempt (no retry) of a decision on ``variant`` serving its reference app."""
    return loop.run(ABPlan(Cell(variant, variant.default_app), workload, base, cand, retries=retries, **kwargs))


def run_gated(variant, workload, base, cand, retries=1, **kwargs):
    """The gate's decision: retried while too noisy or inconclusive (alpha split between the attempts)."""
    return run_ab(variant, workload, base, cand, retries=retries, **kwargs)


def _said(run):
    return "; ".join(f"{k} {d.summary()}" for k, d in run.decisions.items())


@pytest.mark.oha
@JUDGES_TIMINGS
def test_aa_does_not_raise_an_alarm(apps_dir):
    """Identical arms pass: never a regression or an improvement, and not stuck on rerun or inconclusive (one
    retry is allowed); a settled pass may end it at the look after 5 blocks."""
    run = run_gated(
        AIOHTTP,
        WORKLOADS["json"],
        Arm("base", apps_dir=apps_dir),
        Arm("candidate", apps_dir=apps_dir),
        blocks=10,
        duration=1,
        warmup=1,
    )
    assert run.verdict == "pass", _said(run)
    assert set(run.gated) == {"throughput", "p50", "p90", "cpu", "pss"} and run.rate > 0
    assert run.throughput.n >= 5 and run.decisions["p50"].n >= 5 and run.error_rate["base"] == 0.0


@JUDGES_TIMINGS
def test_injected_slowdown_fails(apps_dir):
    """A candidate that burns 100 µs of CPU per request (roughly halving throughput) is a regression on throughput
    and CPU per request, judged on saturated windows alone."""
    run = run_gated(
        AIOHTTP,
        WORKLOADS["json"],
        Arm("base", apps_dir=apps_dir),
        Arm("candidate", apps_dir=apps_dir, env={"SERVERBENCH_BURN_US": "100"}),
        **SATURATED_ONLY,
    )
    assert run.verdict == "regression", _said(run)
    assert run.cpu_per_request.verdict == "regression", run.cpu_per_request.summary()
    assert run.throughput.delta < -0.2


@pytest.mark.oha
@JUDGES_TIMINGS
def test_injected_delay_fails_on_latency(apps_dir):
    """A candidate that waits 1 ms per request (asyncio.sleep, no busy CPU) is judged a regression on latency:
    p50 at the fixed rate is far above the base's."""
    run = run_gated(
        AIOHTTP,
        WORKLOADS["json"],
        Arm("base", apps_dir=apps_dir, env={"SERVERBENCH_DELAY_US": "0"}),
        Arm("candidate", apps_dir=apps_dir, env={"SERVERBENCH_DELAY_US": "1000"}),
        **INJECTED,
    )
    assert run.verdict == "regression", _said(run)
    assert run.decisions["p50"].verdict == "regression" and run.decisions["p50"].delta > 0.5, _said(run)


def test_without_oha_the_fixed_rate_is_refused_before_any_server_starts(apps_dir, monkeypatch, tmp_path):
    """No oha on PATH or in ~/.cargo/bin: a usage error naming the install; rate=None runs without it."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(MissingBinaryError, match="cargo install oha"):
        run_ab(AIOHTTP, WORKLOADS["json"], Arm("base", apps_dir=apps_dir), Arm("candidate", apps_dir=apps_dir))
    run = run_ab(
        AIOHTTP,
        WORKLOADS["json"],
        Arm("base", apps_dir=apps_dir),
        Arm("candidate", apps_dir=apps_dir),
        blocks=1,
        duration=1,
        warmup=0,
        rate=None,
    )
    assert set(run.gated) == {"throughput", "cpu", "pss"} and run.rate is None


def test_gate_refuses_too_few_blocks_and_a_bad_rate(capsys):
    """Blocks that can never reach the split significance level, or a rate that is not a number, exit 2."""
    assert gate_main(["--variant", "aiohttp", "--blocks", "2"]) == 2
    assert "--blocks 2 gives 2 pairs (simultaneous), too few" in capsys.readouterr().err
    assert gate_main(["--variant", "aiohttp", "--rate", "fast"]) == 2
    assert "--rate 'fast': give requests/s > 0" in capsys.readouterr().err


@pytest.mark.oha
def test_too_few_pairs_is_inconclusive_never_pass(apps_dir, tmp_path, capsys):
    """One block (2 pairs) cannot reach the gate's significance: the verdict says inconclusive.  Its stored
    decision keeps each window's arm and phase, and re-judged with no server gives the same verdicts (exit 3)."""
    run = run_ab(
        AIOHTTP,
        WORKLOADS["json"],
        Arm("base", apps_dir=apps_dir),
        Arm("candidate", apps_dir=apps_dir),
        blocks=1,
        duration=1,
        warmup=0,
    )
    assert run.verdict == "inconclusive"
    assert {(w.arm, w.phase, w.block) for w in run.windows} == {
        (arm, phase, 0) for arm in ("base", "candidate") for phase in ("saturated", "rate")
    }
    decisions.write(tmp_path / "decision.json", run)
    assert gate_main(["--rejudge", str(tmp_path / "decision.json"), "--json", str(tmp_path / "again.json")]) == 3
    assert "  verdict     inconclusive" in capsys.readouterr().out
    again = decisions.read(tmp_path / "again.json").decisions
    assert {k: d.summary() + d.reason for k, d in again.items()} == {
        k: d.summary() + d.reason for k, d in run.decisions.items()
    }


def test_environment_that_cannot_import_the_app_is_an_error(tmp_path, apps_dir):
    """A base arm whose apps folder lacks the app fails to start with the server's own error."""
    with pytest.raises(ServerStartError, match="aiohttp_app"):
        run_ab(
            AIOHTTP,
            WORKLOADS["json"],
            Arm("base", apps_dir=tmp_path),
            Arm("candidate", apps_dir=apps_dir),
            blocks=1,
            duration=1,
            warmup=0,
            rate=None,  # the start fails before any window: no fixed rate, so no oha, is needed
        )


def test_redis_workload_without_redis_is_refused(apps_dir):
    """A workload that needs Redis refuses to run without one, before any server starts."""
    with pytest.raises(ConfigError, match="needs Redis"):
        run_ab(AIOHTTP, WORKLOADS["redis"], Arm("base", apps_dir=apps_dir), Arm("candidate", apps_dir=apps_dir))


def test_gate_rejects_a_missing_base_ref(capsys):
    """--base-ref naming nothing in the repository is a clear error (exit 2), never a pass."""
    assert gate_main(["--variant", "aiohttp", "--base-ref", "no-such-ref-xyz"]) == 2
    assert "base ref 'no-such-ref-xyz' does not exist" in capsys.readouterr().err


def test_gate_rejects_unknown_variant(capsys):
    """An unknown variant lists the known ones (exit 2)."""
    assert gate_main(["--variant", "nginx-unit"]) == 2
    assert "known variants: werkzeug-threaded" in capsys.readouterr().err


def test_candidate_that_cannot_start_leaves_no_base_server(tmp_path, apps_dir):
    """When the second arm fails to start, the first arm's server is stopped too (no_leaks checks)."""
    with pytest.raises(ServerStartError):
        run_ab(
            AIOHTTP,
            WORKLOADS["json"],
            Arm("base", apps_dir=apps_dir),
            Arm("candidate", apps_dir=tmp_path),
            blocks=1,
            duration=1,
            warmup=0,
            rate=None,  # the start fails before any window: no fixed rate, so no oha, is needed
        )


def test_gate_rejects_unknown_app_and_an_app_the_variant_cannot_serve(capsys):
    """--app naming nothing lists the known apps; an app of another interface is refused (exit 2)."""
    assert gate_main(["--variant", "aiohttp", "--app", "flaks"]) == 2
    assert "unknown app 'flaks'; known apps: flask" in capsys.readouterr().err
    assert gate_main(["--variant", "aiohttp", "--app", "flask"]) == 2
    assert "aiohttp loads aiohttp apps; flask is wsgi" in capsys.readouterr().err


def test_arms_that_cannot_both_run_the_variant_are_refused(apps_dir):
    """A base environment without aiohttp (the system python) is refused before any server starts,
    naming the arm, what it lacks and how to install it."""
    with pytest.raises(ConfigError, match=r"the base arm \(/usr/bin/python3\) lacks aiohttp.*pip install aiohttp"):
        run_ab(
            AIOHTTP,
            WORKLOADS["json"],
            Arm("base", python="/usr/bin/python3", apps_dir=apps_dir),
            Arm("candidate", apps_dir=apps_dir),
        )
