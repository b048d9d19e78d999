import math

import pytest

from serverbench.catalog.contract import ENDPOINTS, check_response, events
from serverbench.catalog.shapes import LoadShape
from serverbench.catalog.workloads import WORKLOADS
from serverbench.config.options import Thresholds, resolve
from serverbench.drivers.wrk import mix_script
from serverbench.errors import ConfigError
from serverbench.judge.verdict import FAIL, NO_BASELINE, PASS, BaselineCheck, check_ops
from serverbench.records.baselines import Baseline
from serverbench.records.schema import BackendUsage, Generator, LoadReport, Result

T = Thresholds(tolerance=0.2, max_error_rate=0.01)


def _baseline(rps):
    return Baseline("test_x::v/json/c64", rps=rps, error_rate=0.0, p50_ms=1.0, p99_ms=2.0, recorded_at="x")


def test_within_tolerance_passes(make_result):
    """A 10% drop with a 20% tolerance passes and reports the change."""
    verdict = BaselineCheck().judge(make_result(rps=900), _baseline(1000), T)
    assert verdict.status == PASS
    assert verdict.ratio == 0.9 and "-10.0%" in verdict.message


def test_drop_beyond_tolerance_fails(make_result):
    """rps below baseline × (1 − tolerance) fails, naming both numbers."""
    verdict = BaselineCheck().judge(make_result(rps=790), _baseline(1000), T)
    assert verdict.status == FAIL
    assert "790 rps < 800" in verdict.message


def test_exact_floor_passes(make_result):
    """Exactly baseline × (1 − tolerance) is not a regression."""
    assert BaselineCheck().judge(make_result(rps=800), _baseline(1000), T).status == PASS


def test_error_rate_over_limit_fails_even_when_fast(make_result):
    """Errors above the threshold fail the trial, whatever its throughput."""
    verdict = BaselineCheck().judge(make_result(rps=2000, errors={"read": 500}), _baseline(1000), T)
    assert verdict.status == FAIL and "error rate" in verdict.message and "read 500" in verdict.message


def test_missing_baseline_is_reported_with_the_save_command(make_result):
    """No baseline is not a silent pass: the verdict says so and how to store one."""
    verdict = BaselineCheck().judge(make_result(), None, T)
    assert verdict.status == NO_BASELINE
    assert "--perf-save-baseline" in verdict.message


def test_missing_baseline_still_fails_on_errors(make_result):
    """Without a baseline, an error rate over the limit still fails."""
    assert BaselineCheck().judge(make_result(errors={"connect": 100}), None, T).status == FAIL


def test_a_verdict_is_stored_with_its_ratio_rounded(make_result):
    """The stored verdict keeps status, message, baseline rps and the ratio to 4 places (None without a ratio)."""
    verdict = BaselineCheck().judge(make_result(rps=900.0), _baseline(1234.5), T)
    assert verdict.to_record() == {"status": FAIL, "message": verdict.message, "baseline_rps": 1234.5, "ratio": 0.7290}
    assert BaselineCheck().judge(make_result(), None, T).to_record()["ratio"] is None


def test_error_rate_limit_is_inclusive(make_result):
    """An error rate exactly at max_error_rate passes; just over it fails (1% of 5,000 requests is 50)."""
    limit = Thresholds(tolerance=0.2, max_error_rate=0.01)
    at = make_result(rps=1000, errors={"read": 50})
    assert at.error_rate <= 0.01 and BaselineCheck().judge(at, _baseline(1000), limit).status == PASS
    over = make_result(rps=1000, errors={"read": 52})
    assert over.error_rate > 0.01 and BaselineCheck().judge(over, _baseline(1000), limit).status == FAIL


# Merged from test_backend_checks.py: Pure checks around backends: op verification, backend-bound detection, URL mixes
# (no servers).
def _result(requests, *backends, connections=64):
    load = LoadReport(
        "wrk",
        requests,
        5.0,
        0,
        {k: 1.0 for k in ("p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev")},
        {k: 0 for k in ("connect", "read", "write", "timeout", "status")},
    )
    return Result(
        nodeid="n",
        test="t",
        variant="v",
        workload="redis",
        shape=LoadShape(connections),
        warmup_s=0,
        url="u",
        load=load,
        generator=Generator("wrk", "4", 2, 1.0, 5.0, 2),
        server_cpu_s=1.0,
        server_rss_mb=1.0,
        machine={},
        python={},
        timestamp="now",
        backends=tuple(backends),
    )


def test_ops_matching_requests_pass_and_missing_work_fails():
    """One INCR per response passes; a server that answered 10,000 times with 2,000 INCRs fails."""
    ok = _result(10_000, BackendUsage("redis", "redis-server", 4.0, 5.0, 1, 10_040))
    assert check_ops(ok) == []
    cheat = _result(10_000, BackendUsage("redis", "redis-server", 1.0, 5.0, 1, 2_000))
    (problem,) = check_ops(cheat)
    assert "counted 2,000 operations for 10,000 responses" in problem and "did not do the work" in problem


def test_the_work_check_is_the_reference_contracts_and_off_for_a_users_app():
    """A user's endpoint that uses Redis as it pleases (0 ops for 10,000 answers) passes with work_check off,
    and fails the reference contract's check with it on (the default)."""
    user = _result(10_000, BackendUsage("redis", "redis-server", 1.0, 5.0, 1, 0))
    on, off = Thresholds(0.3, 0.01), Thresholds(0.3, 0.01, work_check=False)
    assert "did not do the work" in BaselineCheck().judge(user, None, on).message
    assert BaselineCheck().judge(user, None, off).status == "no-baseline"


def test_ops_slack_is_tolerance_plus_one_request_per_connection():
    """At 200 responses and 64 connections, 64 + 3 ops of slack are allowed, 70 are not."""
    assert check_ops(_result(200, BackendUsage("mongo", "secantusdb", 5.0, 5.0, 1, 267))) == []
    assert check_ops(_result(200, BackendUsage("mongo", "secantusdb", 5.0, 5.0, 1, 270)))
    assert check_ops(_result(200, BackendUsage("upstream", "external", None, 5.0, 1, None))) == []


def test_backend_bound_is_90_percent_of_the_cores_it_can_use():
    """SecantusDB at 4.6 of 5 s on its one core is bound; mongod at 4.6 s of 2 cores is not."""
    assert BackendUsage("mongo", "secantusdb", 4.6, 5.0, 1, 0).bound
    assert not BackendUsage("mongo", "mongod", 4.6, 5.0, 2, 0).bound
    assert not BackendUsage("upstream", "external", None, 5.0, 1, 0).bound


def test_mix_script_expands_weights_and_refuses_bad_entries():
    """The Lua mix lists each path as often as its weight; a bad path or weight is refused."""
    lua = mix_script([("/a", 2), ("/b?x=1", 1)])
    assert 'local paths = {"/a", "/a", "/b?x=1"}' in lua and "request = function()" in lua
    for bad in ([("a", 1)], [("/a", 0)], []):
        with pytest.raises(ValueError):
            mix_script(bad)


def test_events_contract_sizes_and_empty_queue():
    """The 1k and 64k queues serialize to about 1 KB and 64 KB; the empty queue must answer 204 with no body."""
    import json

    assert 900 <= len(json.dumps(events("1k"))) <= 1200
    assert 60_000 <= len(json.dumps(events("64k"))) <= 70_000
    empty = ENDPOINTS["events-0"]
    assert check_response(empty, 204, {}, b"") == []
    assert check_response(empty, 200, {"Content-Type": "application/json"}, b"[]") != []


def test_workloads_declare_the_backends_they_need():
    """Mongo and upstream workloads need their service; plaintext, sleep and the site need none."""
    assert WORKLOADS["mongo-big"].backends == ("mongo",)
    assert WORKLOADS["upstream"].backends == ("upstream",)
    assert WORKLOADS["sleep"].backends == WORKLOADS["site"].backends == ()


@pytest.mark.parametrize(
    "url, message",
    [
        ("mongodb://10.0.0.5:27017/", "not a loopback address"),
        ("http://127.0.0.1:27017/", "expected a URL like mongodb://"),
        ("mongodb://127.0.0.1:notaport/", "is not a number"),
    ],
)
def test_malformed_mongo_url_is_a_usage_error(tmp_path, url, message):
    """--mongo-url must be a mongodb:// URL on loopback; anything else names the flag and the fix."""
    with pytest.raises(ConfigError, match=message):
        resolve({"mongo_url": url}, {}, tmp_path)


def _answers_result(requests, ops, run_errors=None, connections=64):
    """A steady-window record (oha's closed model) whose backend counted ``ops`` until the window's last answer."""
    import dataclasses

    r = _result(
        requests, BackendUsage("mongo", "secantusdb", 5.0, 5.0, 1, ops, "answers", ops // 2), connections=connections
    )
    load = dataclasses.replace(
        r.load, driver="oha", window="steady", run_errors=run_errors, error_attribution="rule" if run_errors else ""
    )
    return dataclasses.replace(r, load=load)


def test_ops_counted_to_the_last_answer_keep_the_low_bound_and_allow_the_given_up():
    """Counted until every window request was answered: 200 responses allow 197..267 operations, plus one per
    request the run gave up on (its unanswered attempts: timeouts and failed connections, from run_errors)."""
    timeouts = {"connect": 1, "read": 0, "write": 0, "timeout": 30, "status": 5}
    assert check_ops(_answers_result(200, 197)) == []
    (low,) = check_ops(_answers_result(200, 196))
    assert "from the window's opening to its last answer" in low and "allowed 197..267" in low
    assert "196 operations for 200 responses (counted from the window's opening to its last answer) (ratio" in low
    assert check_ops(_answers_result(200, 267)) == [] and check_ops(_answers_result(200, 268))
    assert check_ops(_answers_result(200, 298, timeouts)) == []
    (high,) = check_ops(_answers_result(200, 299, timeouts))
    assert "allowed 197..298" in high


def test_the_ops_span_and_window_count_survive_the_record():
    """ops_span "answers" and window_ops are written and read back; an older record's backend reads as "window"."""
    b = BackendUsage("mongo", "secantusdb", 1.0, 5.0, 1, 120, "answers", 95)
    rec = b.to_record(100)
    assert rec["ops_span"] == "answers" and rec["window_ops"] == 95
    assert BackendUsage.from_record(rec, 5.0) == b
    old = BackendUsage("mongo", "secantusdb", 1.0, 5.0, 1, 120).to_record(100)
    assert "ops_span" not in old and BackendUsage.from_record(old, 5.0).ops_span == "window"


def _run_result(run_requests, run_ops, run_errors=None, window_ops=None):
    """oha's closed model with the run's counts kept: 200 window responses, the backend counted ``run_ops`` from
    before the lead-in to the run's last answer, and the run answered ``run_requests``."""
    import dataclasses

    r = _answers_result(200, 400 if window_ops is None else window_ops, run_errors)
    backend = dataclasses.replace(r.backends[0], run_ops=run_ops)
    return dataclasses.replace(r, load=dataclasses.replace(r.load, run_requests=run_requests), backends=(backend,))


def test_a_run_with_its_counts_kept_is_checked_over_the_whole_run_with_no_connection_allowance():
    """1,000 answered in the run allow 985..1,015 operations over it (no per-connection allowance: nothing is in
    flight before the run or after its last answer), plus one per request it gave up; the window's own count, here
    twice its responses, is not judged."""
    assert check_ops(_run_result(1000, 985)) == [] and check_ops(_run_result(1000, 1015)) == []
    (low,) = check_ops(_run_result(1000, 984))
    assert (
        "984 operations for 1,000 responses (counted over the whole run, lead-in and window, to its last answer)" in low
        and "allowed 985..1,015" in low
    )
    (high,) = check_ops(_run_result(1000, 1016))
    assert "ratio 1.016" in high
    given_up = {"connect": 2, "read": 0, "write": 0, "timeout": 10, "status": 3}
    assert check_ops(_run_result(1000, 1027, given_up)) == [] and check_ops(_run_result(1000, 1028, given_up))


def test_a_run_count_without_the_runs_responses_keeps_the_window_rule():
    """The window's 268 operations for 200 responses fail its rule (at most 267); the run's 1,000 for 1,000 pass.
    Without either run count (an older record) the window's rule judges."""
    import dataclasses

    r = _run_result(1000, 1000, window_ops=268)
    assert check_ops(r) == []
    assert check_ops(dataclasses.replace(r, load=dataclasses.replace(r.load, run_requests=None)))
    assert check_ops(dataclasses.replace(r, backends=(dataclasses.replace(r.backends[0], run_ops=None),)))


def test_the_runs_counts_survive_the_record():
    """run_ops (backend) and run_requests (report) are written and read back; records without them read None."""
    r = _run_result(1000, 1003)
    rec = r.to_record(None)
    assert rec["backends"][0]["run_ops"] == 1003 and rec["run_requests"] == 1000
    back = Result.from_record(rec)
    assert back.backends[0].run_ops == 1003 and back.load.run_requests == 1000
    plain = _result(100, BackendUsage("redis", "redis-server", 1.0, 5.0, 1, 100)).to_record(None)
    assert "run_requests" not in plain and "run_ops" not in plain["backends"][0]
    assert Result.from_record(plain).load.run_requests is None and Result.from_record(plain).backends[0].run_ops is None


# Merged from test_mutation_verdict.py: The stored-baseline verdict and the work check at exact equality (issue 22,
# mutation survivors).
def _redis(ops):
    return BackendUsage("redis", "redis-server", 1.0, 5.0, 1, ops)


def test_ops_at_exactly_the_lower_limit_pass():
    """ops = responses x (1 - tolerance) passes; one fewer fails."""
    assert check_ops(_result(1000, _redis(500)), tolerance=0.5) == []
    assert check_ops(_result(1000, _redis(499)), tolerance=0.5)


def test_a_backend_without_a_count_does_not_stop_the_check():
    """A backend that counts nothing is skipped; the next one is still checked."""
    upstream = BackendUsage("upstream", "external", None, 5.0, 1, None)
    assert len(check_ops(_result(1000, upstream, _redis(10)))) == 1


def test_ops_problem_states_the_ratio():
    """The problem gives ops per response; with no responses at all the ratio is infinite."""
    (problem,) = check_ops(_result(1000, _redis(200)))
    assert "(ratio 0.200; allowed 985..1,079)" in problem
    (problem,) = check_ops(_result(0, _redis(100)))
    assert "counted 100 operations for 0 responses (ratio inf;" in problem


def test_min_rps_exactly_met_passes(make_result):
    """rps equal to the marker's min_rps passes; a little more required fails."""
    assert BaselineCheck().judge(make_result(rps=1000), None, Thresholds(0.1, 0.01, min_rps=1000)).status != FAIL
    assert BaselineCheck().judge(make_result(rps=1000), None, Thresholds(0.1, 0.01, min_rps=1001)).status == FAIL


def test_error_rate_exactly_at_its_limit_passes(make_result):
    """An error rate equal to max_error_rate passes; the limit is the largest rate allowed."""
    result = make_result(rps=1000, errors={"read": 50})
    assert BaselineCheck().judge(result, _baseline(1000), Thresholds(0.1, result.error_rate)).status == PASS
    assert BaselineCheck().judge(result, _baseline(1000), Thresholds(0.1, result.error_rate * 0.99)).status == FAIL


def test_every_problem_is_named_and_joined(make_result):
    """Two problems (errors of two kinds, and too slow) are both named, separated by '; '."""
    result = make_result(rps=1000, errors={"read": 50, "timeout": 5})
    t = Thresholds(0.1, 0.001, min_rps=2000)
    for baseline in (None, _baseline(1000)):
        message = BaselineCheck().judge(result, baseline, t).message
        assert message.startswith("error rate 1.09% > limit 0.10% (read 50, timeout 5); 1,000 rps < required 2,000")


def test_baseline_of_one_rps_is_divided_by(make_result):
    """A stored baseline of 1 rps gives a real ratio; a baseline of 0 an infinite one."""
    assert BaselineCheck().judge(make_result(rps=2), _baseline(1.0), Thresholds(0.1, 0.01)).ratio == 2.0
    verdict = BaselineCheck().judge(make_result(rps=2), _baseline(0.0), Thresholds(0.1, 0.01))
    assert verdict.status == PASS and math.isinf(verdict.ratio)


def test_pass_and_fail_carry_the_baseline_rps(make_result):
    """Both a pass and a fail against a baseline record its rps and the ratio."""
    ok = BaselineCheck().judge(make_result(rps=1000), _baseline(1000), Thresholds(0.1, 0.01))
    bad = BaselineCheck().judge(make_result(rps=500), _baseline(1000), Thresholds(0.1, 0.01))
    assert (ok.status, ok.baseline_rps, ok.ratio) == (PASS, 1000, 1.0)
    assert (bad.status, bad.baseline_rps, bad.ratio) == (FAIL, 1000, 0.5)
