"""A/B decision files and `gate --rejudge`: written, read back (schema 2 and the old gate's schema 1), judged again."""

import json

import pytest

from serverbench.cli.gate import main as gate_main
from serverbench.judge.ab import GATE_POLICY, decided, judge, rejudge
from serverbench.judge.decision import Policy
from serverbench.records import decisions
from serverbench.records.decisions import DecisionFileError, Measurement

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
    assert out.out.startswith(
        "aiohttp/aiohttp json c32: simultaneous, 0 windows, 1 re-run, 60 s\n  stopped: regression"
    )
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
