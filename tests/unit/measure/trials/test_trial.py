"""run_trial measures a steady window once more, longer, when its edges did not cancel (catalog.windows): the
orchestration, with the measurement itself replaced by records (the measurement is the integration suite's)."""

from dataclasses import replace

import pytest

from serverbench.measure.trials import trial as trial_module
from serverbench.measure.trials.trial import Warmup, run_trial, settled
from tests.unit.synthetic import edges_result


def _patched(monkeypatch, results):
    """run_trial with no server: warm-up and drain do nothing; each measure() returns the next of ``results`` and
    remembers the trial it was given."""
    given = []
    monkeypatch.setattr(trial_module, "warm_up", lambda trial, warmup: (123.0,))
    monkeypatch.setattr(trial_module, "drain", lambda server, workload: None)

    def measure(trial, warmup=None, warmup_rps=()):
        given.append(trial)
        return results[len(given) - 1]

    monkeypatch.setattr(trial_module, "measure", measure)
    return given


class _Trial:
    """The parts of a Trial run_trial reads."""

    server = workload = driver = None

    def __init__(self, connections: int, driver=None):
        from serverbench.catalog.shapes import LoadShape

        self.shape = LoadShape(connections, 5)
        self.driver = driver

    def report(self, phase: str, round: int = 0) -> None:
        """The phases a trial reports (the progress line's): none here."""


def test_a_window_whose_edges_missed_is_measured_again_four_times_as_long_and_the_first_is_kept(monkeypatch):
    """Edges moving the ratio by +0.08 (35 s out, 8 s in of 320): a second window of 20 s from the ``longer`` trial;
    the result is the second, with the first's numbers kept under extra["short_window"]."""
    short, long = edges_result(1.09, 8.0, 35.0), replace(edges_result(1.0, 30.0, 31.0), extra={"replicates": 1})
    given = _patched(monkeypatch, [short, long])
    asked = []
    first = _Trial(64)
    result = run_trial(first, Warmup(2), lambda seconds, lead=None: asked.append(seconds) or "the longer trial")
    assert asked == [20] and given == [first, "the longer trial"]
    assert result.load == long.load and result.extra["replicates"] == 1
    kept = result.extra["short_window"]
    assert kept == {
        "duration_s": 5.0,
        "requests": short.load.requests,
        "rps": round(short.load.rps, 1),
        "latency_mean_ms": round(short.load.latency_ms["mean"], 3),
        "carried_in_s": 8.0,
        "carried_out_s": 35.0,
        "first_wait_s": 0.0,
        "edge_share": pytest.approx(0.0844, abs=1e-4),
    }


def test_edges_that_cancel_or_no_longer_trial_measure_once(monkeypatch):
    """Edges within 0.03, unknown edges, no ``longer`` (the A/B gate), or SYNs the kernel dropped over the run or in
    the window (a record with no run counters): one window, returned as measured."""
    missed = edges_result(1.09, 8.0, 35.0)
    for result, longer in (
        (edges_result(1.0, 9.6, 0.0), lambda s, lead=None: "x"),
        (edges_result(1.09, None, 35.0), lambda s, lead=None: "x"),
        (missed, None),
        (replace(missed, kernel={"run_listen_drops": 3}), lambda s, lead=None: "x"),
        (replace(missed, kernel={"listen_drops": 2}), lambda s, lead=None: "x"),
    ):
        given = _patched(monkeypatch, [result])
        assert run_trial(_Trial(64), Warmup(2), longer) is result and len(given) == 1


def test_a_driver_with_a_lead_in_warms_up_in_it_unless_more_rounds_are_asked(monkeypatch):
    """oha's closed model (a lead-in): no separate warm-up and no drain for one round; more rounds (PyPy) run them."""
    from serverbench.drivers.oha import OhaDriver

    calls = []
    monkeypatch.setattr(trial_module, "warm_up", lambda trial, warmup: calls.append("warm-up") or (1.0, 1.0))
    monkeypatch.setattr(trial_module, "drain", lambda server, workload: calls.append("drain"))
    monkeypatch.setattr(trial_module, "measure", lambda trial, warmup=None, warmup_rps=(): calls.append(warmup_rps))
    monkeypatch.setattr(trial_module, "asked", lambda result, policy: edges_result(1.0, 0.0, 0.0))
    run_trial(_Trial(64, OhaDriver(lead_s=2)), Warmup(1))
    assert calls == [()]
    calls.clear()
    run_trial(_Trial(64, OhaDriver(lead_s=2)), Warmup(1, rounds=10))
    assert calls == ["warm-up", "drain", (1.0, 1.0)]
    calls.clear()
    run_trial(_Trial(64), Warmup(1))  # wrk: no lead-in
    assert calls == ["warm-up", "drain", (1.0, 1.0)]


# Merged from test_warmup.py: When warm-up has settled: the rule that lets PyPy's JIT warm up before the measured
# window.
def test_one_round_is_never_settled():
    """A single round has nothing to compare with."""
    assert not settled([1000.0], 0.05)


def test_rising_rps_is_not_settled_until_two_rounds_agree():
    """A JIT that is still speeding up (+40%, +15%) keeps warming; +3% is settled at 5%."""
    rounds = [1000.0, 1400.0, 1610.0, 1658.0]
    assert [settled(rounds[:i], 0.05) for i in range(1, 5)] == [False, False, False, True]


def test_a_drop_counts_like_a_rise():
    """A 10% fall between rounds is not settled at 5%."""
    assert not settled([1000.0, 900.0], 0.05)
    assert settled([1000.0, 960.0], 0.05)


def test_a_backends_reported_cpu_is_the_difference_of_two_readings_or_unknown():
    """CPU a backend reports itself is after less before; a reading it could not give, or a counter that went back
    (the service restarted), is unknown, never a negative or a zero."""
    assert trial_module._used(1.25, 1.75) == 0.5
    assert trial_module._used(None, 1.0) is None and trial_module._used(1.0, None) is None
    assert trial_module._used(2.0, 0.5) is None


def test_the_record_says_where_the_server_was_sampled_the_samplers_cpu_and_why_a_cpu_is_unmeasured():
    """extra["sampler"]: where the tree was read and the sampler's own CPU there; a CPU not measured gives its
    reason; a server with no pid to sample says so."""
    from serverbench.measure.host.sampling import Usage
    from serverbench.measure.serving.servers import RunningServer

    server = RunningServer("aiohttp", "http://127.0.0.1:9")
    measured = trial_module.sampled_record(Usage(1.5, 30.0, 1, sampler_cpu_s=0.02), server)
    assert measured == {"sampler": {"where": "this machine", "cpu_s": 0.02}}
    unread = trial_module.sampled_record(Usage(None, 0.0, 0, unmeasured="why"), server)
    assert unread["sampler"]["server_cpu_unmeasured"] == "why"
    assert "no pid" in trial_module.sampled_record(None, server)["sampler"]["server_cpu_unmeasured"]
