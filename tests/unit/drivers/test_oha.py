"""Parsing oha's JSON summary (the open-model driver); no load."""

import json
from pathlib import Path

import pytest

from serverbench.catalog.contract import Request
from serverbench.catalog.shapes import LoadShape
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.drivers import oha as oha_module
from serverbench.drivers.base import CellLoad
from serverbench.drivers.oha import OhaDriver, parse_report
from serverbench.errors import GeneratorError, MissingBinaryError
from tests.unit.drivers.canned import canned_generator


def _oha_json(statuses, errors, total=5.0):
    pct = {
        k: v
        for k, v in zip(
            ("p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.9", "p99.99"),
            (0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.010, 0.020, 0.030),
        )
    }
    return json.dumps(
        {
            "summary": {
                "successRate": 1.0,
                "total": total,
                "slowest": 0.031,
                "fastest": 0.0005,
                "average": 0.0025,
                "requestsPerSec": 200.0,
                "totalData": 28000,
                "sizePerRequest": 28,
                "sizePerSec": 5600.0,
            },
            "responseTimeHistogram": {"0.002": 500, "0.004": 500},
            "latencyPercentiles": pct,
            "rps": {"mean": 200.0, "stddev": 1.0, "max": 210.0, "percentiles": pct},
            "details": {
                "DNSDialup": {"average": 0.0, "fastest": 0.0, "slowest": 0.0},
                "DNSLookup": {"average": 0.0, "fastest": 0.0, "slowest": 0.0},
            },
            "statusCodeDistribution": statuses,
            "errorDistribution": errors,
        }
    )


def test_percentiles_statuses_and_errors_are_mapped():
    """Seconds become ms; 5xx counts as status errors; refused connections and timeouts are classified."""
    report = parse_report(_oha_json({"200": 990, "503": 10}, {"connection refused": 3, "timeout": 2}), 5.0)
    assert report.requests == 1000 and report.duration_s == 5.0
    assert report.latency_ms["p50"] == pytest.approx(2.0) and report.latency_ms["p999"] == pytest.approx(20.0)
    assert report.latency_ms["max"] == pytest.approx(31.0) and report.latency_ms["stdev"] == pytest.approx(1.0)
    assert dict(report.errors) == {"connect": 3, "read": 0, "write": 0, "timeout": 2, "status": 10}
    assert report.rps == pytest.approx(990 / 5.0)


def test_requests_cut_by_the_deadline_are_not_errors():
    """Requests in flight when -z runs out are reported by oha as deadline aborts: not counted as errors."""
    report = parse_report(_oha_json({"200": 100}, {"aborted due to deadline": 7}), 5.0)
    assert sum(report.errors.values()) == 0


def test_malformed_output_is_a_generator_error():
    """Output that is not oha's JSON names what came."""
    with pytest.raises(GeneratorError, match="oha's JSON report is malformed"):
        parse_report('{"summary": {}}', 5.0)


def test_argv_holds_a_rate_with_latency_correction():
    """The command paces at the rate, corrects latency to the intended send time, and prints JSON."""
    driver = OhaDriver()
    driver.__dict__["binary"] = "oha"  # the cached binary lookup, so no oha is needed here
    argv = driver.argv("http://127.0.0.1:9/json", 64, 5, 250.0)
    assert argv[:8] == ["oha", "-z", "5s", "-c", "64", "-q", "250", "--latency-correction"]
    assert argv[argv.index("--output-format") + 1] == "json" and argv[-1] == "http://127.0.0.1:9/json"


def test_closed_window_counts_the_requests_sent_inside_it_with_their_whole_latency(tmp_path):
    """Steady-state window [2, 7) s: requests sent in the lead-in or after it are left out; one sent at 6.5 s
    and answered at 7.5 s counts with its 1 s; Little's law then holds on the window's own numbers."""
    import sqlite3

    from serverbench.drivers.oha import read_rows, window_report

    db = tmp_path / "requests.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE oha (url TEXT NOT NULL, start REAL NOT NULL, start_latency_correction REAL, "
            "end REAL NOT NULL, duration REAL NOT NULL, status INTEGER NOT NULL, len_bytes INTEGER NOT NULL)"
        )
        # two connections, each always one request of 1 s in flight (a pool's queue): sent at 0, 1, 2, ... s
        rows = [(k + c * 0.5, k + c * 0.5 + 1.0, 200 if k != 3 else 503) for c in range(2) for k in range(9)]
        conn.executemany("INSERT INTO oha VALUES ('u', ?, NULL, ?, ?, ?, 10)", [(s, e, e - s, st) for s, e, st in rows])
    report = window_report(
        read_rows(db),
        2.0,
        5.0,
        {"connect": 7, "read": 0, "write": 0, "timeout": 0, "status": 0},
        connections=2,
        timeout_s=5.0,
    )
    sent = [s for s, _, _ in rows if 2.0 <= s < 7.0]
    assert report.requests == len(sent) == 10 and report.duration_s == 5.0 and report.bytes == 100
    assert report.window == "steady" and report.errors["status"] == 2 and report.errors["connect"] == 5
    assert report.latency_ms["mean"] == pytest.approx(1000.0) and report.latency_ms["max"] == pytest.approx(1000.0)
    assert report.requests / report.duration_s * report.latency_ms["mean"] / 1000 / 2 == pytest.approx(1.0)


def test_an_empty_closed_window_reports_no_request():
    """No request sent in the window (a server that answered nothing but one): zero requests, zero latencies, and
    of the run's 126 timeouts (63 connections giving up at 5 s, then again after the deadline) the window's 63."""
    from serverbench.drivers.oha import window_report

    report = window_report(
        [(0.5, 9.0, 200, 10)],
        2.0,
        5.0,
        {"connect": 0, "read": 0, "write": 0, "timeout": 126, "status": 0},
        connections=64,
        timeout_s=5.0,
    )
    assert report.requests == 0 and report.errors["timeout"] == 63
    assert dict(report.latency_ms) == {k: 0.0 for k in ("p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev")}


def test_closed_argv_runs_lead_in_window_and_trail_in_one_run_and_waits_for_in_flight_answers():
    """No rate (-q) in the closed model; -z covers lead-in, window and trail, -w and --db-url keep every answer."""
    driver = OhaDriver(lead_s=2)
    driver.__dict__["binary"] = "oha"  # no oha needed to build its command
    argv = driver.closed_argv("http://127.0.0.1:1/sleep", 64, 5, Path("/tmp/x.db"))
    assert "-q" not in argv and argv[argv.index("-z") + 1] == "7250ms" and "-w" in argv  # 2 + 5 + 0.25 s
    assert argv[argv.index("--db-url") + 1] == "/tmp/x.db" and argv[argv.index("-c") + 1] == "64"
    sized = OhaDriver(lead_s=16, trail_s=7)
    sized.__dict__["binary"] = "oha"
    assert sized.closed_argv("http://127.0.0.1:1/sleep", 64, 32, Path("/tmp/x.db"))[2] == "55000ms"


def test_requests_sent_in_the_trail_are_not_counted_and_a_request_answered_in_it_keeps_its_whole_latency():
    """Window [2, 7), trail to 9 s: one connection's request sent at 6.5 s is answered at 8.5 s under the trail's
    load (2 s); requests sent from 7 s on are left out, and the window's errors are those sent in it: a timeout sent at
    7 s (in the trail) is not the window's."""
    from serverbench.drivers.oha import window_report

    rows = _chain([float(k) for k in range(9)], 1.0)  # sent at 0..8 s, 1 s each
    rows += _chain([0.5, 1.5, 2.5, 3.5, 4.5, 5.5], 1.0) + [(6.5, 8.5, 200, 10)]  # then given up: sent at 8.5 s
    report = window_report(rows, 2.0, 5.0, _errors(), connections=2, timeout_s=5.0, trail_s=2.0)
    assert report.requests == 10 and report.latency_ms["max"] == pytest.approx(2000.0)
    assert report.requests / 5.0 * report.latency_ms["mean"] / 1000 / 2 == pytest.approx(1.1)
    assert report.run_requests == len(rows) == 16
    late = _chain([float(k) for k in range(7)], 1.0)  # sends at 7 s, given up at 12 s (the trail's)
    late += _chain([float(k) for k in range(9)], 1.0)
    failed = window_report(late, 2.0, 5.0, _errors(timeout=1), connections=2, timeout_s=5.0, trail_s=2.0)
    assert failed.errors["timeout"] == 0 and "0 of 1" in failed.error_attribution
    untrailed = window_report(late, 2.0, 5.0, _errors(timeout=1), connections=2, timeout_s=5.0)
    assert untrailed.errors["timeout"] == 1  # read as a run ending at 7 s: no send found, the share of its time


def test_a_trail_keeps_connect_errors_to_the_windows_share_of_the_whole_run():
    """Connect errors with no time: 16 over a run of 2 + 5 + 1 s are 10 in the window (5 of 8 s)."""
    from serverbench.drivers.oha import window_report

    rows = _chain([float(k) for k in range(8)], 1.0)
    report = window_report(rows, 2.0, 5.0, _errors(connect=16), connections=1, timeout_s=5.0, trail_s=1.0)
    assert report.errors["connect"] == 10 and "5 of 8 s" in report.error_attribution


def _chain(sends, duration, status=200):
    """oha rows for one connection: requests sent at ``sends`` (s), each answered ``duration`` s later."""
    return [(s, s + duration, status, 10) for s in sends]


def _errors(**counts):
    return {k: counts.get(k, 0) for k in ("connect", "read", "write", "timeout", "status")}


def test_a_lead_in_full_of_timeouts_is_not_the_windows_error_rate():
    """60 of 64 connections time out on requests sent at 0 s (lead-in), then answer: the run's 60 timeouts were all
    sent before the window, so the window has none and its error rate is 0 (whole-run errors over the window's
    20 answered connections' requests was 300%)."""
    from serverbench.drivers.oha import window_report

    rows = [r for _ in range(4) for r in _chain([float(k) for k in range(7)], 1.0)]  # answered, 5 sent in 2..7
    rows += [r for _ in range(60) for r in _chain([5.0], 3.0)]  # given up at 5 s, the next answered at 8 s
    report = window_report(rows, 2.0, 5.0, _errors(timeout=60), connections=64, timeout_s=5.0)
    assert report.requests == 80 and report.errors["timeout"] == 0 and report.error_rate == 0.0
    assert 60 / report.requests > 0.5  # the old rule: the run's timeouts over the window's answers
    assert report.run_errors["timeout"] == 60 and "0 of 60" in report.error_attribution
    assert report.run_requests == len(rows) == 88  # the run's answered, lead-in included: the work check's count


def test_timeouts_sent_in_the_window_are_the_windows_and_the_rate_stays_below_one():
    """Every answered request sent in the lead-in, then 10 connections' requests sent at 3 s time out at 8 s: all of
    the run's timeouts are the window's (share 1), counted as attempts: 10 of 10 + 54 x 5 answered."""
    from serverbench.drivers.oha import window_report

    rows = [r for _ in range(54) for r in _chain([float(k) for k in range(7)], 1.0)]
    rows += [r for _ in range(10) for r in _chain([0.0, 1.0, 2.0], 1.0)]  # then sent at 3.0, given up at 8.0
    report = window_report(rows, 2.0, 5.0, _errors(timeout=10), connections=64, timeout_s=5.0)
    assert report.errors["timeout"] == 10 and report.requests == 54 * 5 + 10
    assert report.error_rate == pytest.approx(10 / (report.requests + 10)) and report.error_rate <= 1.0


def test_timeouts_are_split_by_when_they_were_sent():
    """Two connections give up requests sent at 0 s (lead-in), one a request sent at 6 s (window): of the run's 3
    timeouts, 1 is the window's; the failed ones send again as soon as they are given up."""
    from serverbench.drivers.oha import failed_sent_by, window_report

    rows = [r for _ in range(2) for r in _chain([5.0, 6.0, 7.0], 1.0)]  # after the lead-in's timeout at 5 s
    rows += _chain([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 1.0)  # then sent at 6.0, given up at 11.0
    rows += _chain([float(k) for k in range(7)], 1.0)
    assert failed_sent_by(rows, 2.0 - 1e-6, 4, 5.0) == 2 and failed_sent_by(rows, 7.0 - 1e-6, 4, 5.0) == 3
    report = window_report(rows, 2.0, 5.0, _errors(timeout=3), connections=4, timeout_s=5.0)
    assert report.errors["timeout"] == 1 and "1 of 3" in report.error_attribution


def test_errors_with_no_time_are_split_by_the_windows_share_of_the_run():
    """Connect errors hold no connection time the rows show: 14 in a run of 2 + 5 s are 10 in the window; with no
    uncovered time at all, timeouts fall back to the same share; no error, no attribution."""
    from serverbench.drivers.oha import window_report

    rows = _chain([float(k) for k in range(7)], 1.0)
    report = window_report(rows, 2.0, 5.0, _errors(connect=14, timeout=7), connections=1, timeout_s=5.0)
    assert report.errors["connect"] == 10 and report.errors["timeout"] == 5
    assert "0.714" in report.error_attribution and report.run_errors["connect"] == 14
    clean = window_report(rows, 2.0, 5.0, _errors(status=3), connections=1, timeout_s=5.0)
    assert clean.error_attribution == "" and clean.run_errors is None and clean.errors["status"] == 0


def test_the_window_error_rate_never_exceeds_one_whatever_the_split():
    """Any mix of the run's failures attributed to a window of answered requests keeps errors <= attempts."""
    from serverbench.drivers.oha import window_report

    for stuck in (0, 1, 5, 20, 64):
        rows = [r for _ in range(64 - stuck) for r in _chain([float(k) for k in range(7)], 1.0)]
        for run_errors in (_errors(timeout=1000), _errors(timeout=stuck, read=3), _errors(connect=10**6)):
            report = window_report(rows, 2.0, 5.0, run_errors, connections=64, timeout_s=5.0)
            assert 0.0 <= report.error_rate <= 1.0
            assert all(report.errors[k] <= run_errors[k] for k in ("connect", "read", "write", "timeout"))


def test_the_attribution_is_kept_in_the_record():
    """error_attribution and run_errors survive the JSON record; a record without them reads as counted in the window."""
    from serverbench.drivers.oha import window_report
    from serverbench.records.schema import LoadReport

    report = window_report(
        _chain([float(k) for k in range(7)], 1.0), 2.0, 5.0, _errors(connect=7), connections=1, timeout_s=5.0
    )
    assert report.error_attribution and dict(report.run_errors) == _errors(connect=7)
    plain = LoadReport("oha", 5, 5.0, 0, {}, _errors())
    assert plain.error_attribution == "" and plain.run_errors is None


def test_a_timeout_is_an_attempt_unless_the_driver_keeps_waiting():
    """oha and locust give a request up at its timeout (an attempt with no answer); wrk counts a connection waiting
    past it and still counts its answer: 10 timeouts beside 10 answers are 50% for oha, 100% for wrk as before."""
    from serverbench.records.schema import LoadReport

    assert LoadReport("oha", 10, 5.0, 0, {}, _errors(timeout=10)).error_rate == 0.5
    assert LoadReport("locust", 10, 5.0, 0, {}, _errors(timeout=10)).error_rate == 0.5
    assert LoadReport("wrk", 10, 5.0, 0, {}, _errors(timeout=10)).error_rate == 1.0


def _closed_loop(connections, service_s, timeout_s=5.0, deadline_s=7.0):
    """oha's closed model on a one-worker FIFO server (``service_s`` a request) that skips the requests given up
    before it reached them: the answered rows, and the send time of every request that timed out."""
    import heapq

    events = [(k * 1e-5, "send", None) for k in range(connections)]
    queue, free_at, fate, rows, given_up = [], 0.0, {}, [], []
    while events:
        t, kind, sent = heapq.heappop(events)
        if kind == "send" and t < deadline_s:
            queue.append(t)
            heapq.heappush(events, (t + timeout_s, "timeout", t))
        elif kind in ("done", "timeout") and sent not in fate:
            fate[sent] = kind
            (rows.append((sent, t, 200, 10)) if kind == "done" else given_up.append(sent))
            heapq.heappush(events, (t, "send", None))
        while queue:  # the worker takes the queue in order
            s = queue.pop(0)
            start = max(free_at, s)
            free_at = start if start - s >= timeout_s else start + service_s
            if free_at > start:
                heapq.heappush(events, (free_at, "done", s))
    return rows, given_up


def test_the_timeouts_attributed_are_those_a_simulated_closed_loop_sent_in_the_window():
    """A queue of seconds on one worker (32 connections, 0.2 s a request: 6.4 s, past the 5 s timeout), windows
    ending at the 7 s deadline after lead-ins of 1, 2.1 and 3 s: the attributed timeouts equal the true count sent
    in each, where the run's count over the window's answers was 500%."""
    from serverbench.drivers.oha import window_report

    rows, given_up = _closed_loop(32, 0.2)
    for lead in (1.0, 2.1, 3.0):
        report = window_report(rows, lead, 7.0 - lead, _errors(timeout=len(given_up)), connections=32, timeout_s=5.0)
        in_window = sum(1 for s in given_up if lead <= s < 7.0)
        assert 0 < in_window < len(given_up) and report.errors["timeout"] == in_window
        assert len(given_up) / report.requests == 5.0 and report.error_rate <= 1.0


def test_without_a_timeout_the_sum_stops_at_one_reading():
    """A timeout of 0 (none set) reads the uncovered connections once instead of looping for ever."""
    from serverbench.drivers.oha import failed_sent_by

    assert failed_sent_by(_chain([0.0], 10.0), 7.0, 3, 0.0) == 2


def test_uncovered_time_that_misses_the_runs_count_falls_back_to_the_windows_share_of_time():
    """Connections waiting to connect (SYNs dropped) hold no answer and are answered later: the uncovered time finds
    fewer failures sent by the deadline than by the window's start, and not the run's 34 timeouts; the window then
    takes its share of the run's time (5 of 7 s: 24), and the rule says why."""
    from serverbench.drivers.oha import window_report

    rows = [r for _ in range(30) for r in _chain([float(k) for k in range(7)], 1.0)]
    rows += [r for _ in range(2) for r in _chain([3.0, 4.0, 5.0, 6.0], 1.0)]  # connecting until 3 s, then answered
    report = window_report(rows, 2.0, 5.0, _errors(timeout=34), connections=64, timeout_s=20.0)
    assert report.errors["timeout"] == 24 and "not the run's 34" in report.error_attribution
    assert "0.714" in report.error_attribution


def test_the_uncovered_time_is_read_when_it_finds_the_runs_count_within_its_slack():
    """The reading is kept while it finds the run's count within 2% (at least 1): 3 found of a run's 4 is kept (1 of 3
    sent in the window), of a run's 5 it is not (the time share, 5 of 7 s)."""
    from serverbench.drivers.oha import window_report

    rows = [r for _ in range(2) for r in _chain([5.0, 6.0, 7.0], 1.0)]
    rows += _chain([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 1.0)
    rows += _chain([float(k) for k in range(7)], 1.0)
    kept = window_report(rows, 2.0, 5.0, _errors(timeout=4), connections=4, timeout_s=5.0)
    assert kept.errors["timeout"] == 1 and "1 of 3" in kept.error_attribution
    missed = window_report(rows, 2.0, 5.0, _errors(timeout=5), connections=4, timeout_s=5.0)
    assert missed.errors["timeout"] == 4 and "not the run's 5" in missed.error_attribution


def test_connections_waiting_through_the_window_are_counted_as_held():
    """Two requests sent in the lead-in (1 s) and answered after the window (2-7 s) held their connections through it;
    one sent as it opens (2 s) or answered before it closes (6.9 s) did not."""
    from serverbench.drivers.oha import window_report

    rows = [(1.0, 8.0, 200, 10), (1.5, 7.0, 200, 10), (2.0, 9.0, 200, 10), (0.5, 6.9, 200, 10), (6.9, 7.5, 200, 10)]
    report = window_report(rows, 2.0, 5.0, _errors(), connections=4, timeout_s=5.0)
    assert report.held_through == 2 and report.requests == 2


def test_a_connection_never_answered_through_the_window_is_held_as_many_as_the_run_gave_up():
    """Three connections: one answered throughout, two whose requests (sent at 0 s) no answer covers from 1 s to past
    the window [2, 7): held through it when the run gave them up (2 timeouts), at most as many as it gave up (1), none
    with no timeout; their whole window counts as waiting (first_wait_s)."""
    from serverbench.drivers.oha import window_report

    rows = _chain([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], 1.0) + [(0.0, 1.0, 200, 10)] * 2
    for timeouts, held in ((2, 2), (1, 1), (0, 0)):
        report = window_report(rows, 2.0, 5.0, _errors(timeout=timeouts), connections=3, timeout_s=30.0)
        assert report.held_through == held and report.first_wait_s == held * 5.0, timeouts
    # A connection found answered at any instant of the window is not held, whatever the run gave up.
    rows = _chain([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], 1.0) + [(0.0, 1.0, 200, 10), (6.5, 6.6, 200, 10)]
    assert window_report(rows, 2.0, 5.0, _errors(timeout=2), connections=2, timeout_s=30.0).held_through == 0


def test_a_window_with_no_lead_in_has_no_first_wait_and_errors_with_no_timeout_hold_no_connection():
    """A window opening as the run starts: its first requests are sent in it, none waited from before it.  A run whose
    errors name no timeout (only connect errors, or none at all) leaves no connection held unanswered."""
    from serverbench.drivers.oha import window_report

    rows = [(0.0, 3.0, 200, 1), (0.0, 9.0, 200, 1), (3.0, 4.0, 200, 1)]
    report = window_report(rows, 0.0, 5.0, _errors(), connections=2, timeout_s=5.0)
    assert report.first_wait_s == 0.0 and report.held_through == 0
    for errors in ({}, {"connect": 3}):
        report = window_report(rows[:1], 2.0, 5.0, errors, connections=3, timeout_s=5.0)
        assert report.held_through == 0 and report.first_wait_s == 1.0, errors


def test_the_most_in_flight_counts_an_answer_before_the_next_send_at_one_instant():
    """One connection answered and sending again at 3 s is one request in flight, not two; requests starting or ending
    at the window's edges count as the window's start reading says (sent at or before it, answered after it)."""
    from serverbench.drivers.oha import most_in_flight

    rows = [(1.0, 3.0, 200, 1), (3.0, 5.0, 200, 1), (2.5, 9.0, 200, 1)]
    assert most_in_flight(rows, 2.0, 7.0) == 2
    assert most_in_flight(rows, 3.0, 7.0) == 2  # at 3 s: (3, 5) and (2.5, 9); (1, 3) answered
    assert most_in_flight(rows + [(4.0, 4.5, 200, 1)], 2.0, 7.0) == 3
    assert most_in_flight(rows + [(7.0, 8.0, 200, 1)], 2.0, 7.0) == 2  # sent as the window closes: not in it
    assert most_in_flight([], 2.0, 7.0) == 0


def test_the_wait_on_the_runs_first_requests_is_the_window_time_they_still_held():
    """Four connections, their first requests sent at 0 s: answered at 1 s (none of the window [2, 7)), at 4 s (2 s of
    it), at 9 s (all 5 s), and one sent at 0.5 s after a first answer: only the first one request per connection
    counts, so the second request of a connection (sent 1 s, answered 8 s) is not a first wait."""
    from serverbench.drivers.oha import window_report

    rows = [
        (0.0, 1.0, 200, 1),
        (0.0, 4.0, 200, 1),
        (0.0, 9.0, 200, 1),
        (0.0, 0.5, 200, 1),
        (1.0, 8.0, 200, 1),
        (0.5, 2.5, 200, 1),
        (4.0, 5.0, 200, 1),
        (2.5, 6.0, 200, 1),
        (5.0, 6.0, 200, 1),
        (6.0, 7.5, 200, 1),
    ]
    report = window_report(rows, 2.0, 5.0, _errors(), connections=4, timeout_s=5.0)
    assert report.first_wait_s == 7.0 and report.held_through == 2


def test_the_windows_percentiles_are_nearest_rank():
    """A window's percentile q is the value at rank ceil(q% of n), as locust's: of 100 answers of 1..100 ms p50, p75,
    p90 and p99 are 50, 75, 90 and 99 ms (p99 is not the maximum), and of 10 answers of 1..10 ms p50 is the 5th."""
    from serverbench.drivers.oha import window_report

    rows = [(2.0 + k / 1000, 2.0 + k / 1000 + (k + 1) / 1000, 200, 10) for k in range(100)]
    report = window_report(rows, 2.0, 5.0, _errors(), connections=100, timeout_s=5.0)
    assert {k: round(report.latency_ms[k], 6) for k in ("p50", "p75", "p90", "p99", "p999", "max")} == {
        "p50": 50.0,
        "p75": 75.0,
        "p90": 90.0,
        "p99": 99.0,
        "p999": 100.0,
        "max": 100.0,
    }
    ten = window_report(rows[:10], 2.0, 5.0, _errors(), connections=10, timeout_s=5.0)
    assert round(ten.latency_ms["p50"], 6) == 5.0 and round(ten.latency_ms["p90"], 6) == 9.0


def test_failed_sends_are_counted_back_every_timeout_to_the_runs_start():
    """Two connections no answer covers, a 0.5 s timeout, read at 1 s: each sent at 1, 0.5 and 0 s (the run's start
    included; a timeout under 1 s still steps back), so 6 failed requests were sent by then."""
    from serverbench.drivers.oha import failed_sent_by

    assert failed_sent_by([], 1.0, 2, 0.5) == 6
    assert failed_sent_by([], 0.0, 2, 5.0) == 2


def test_a_run_of_no_time_gives_its_window_all_its_errors():
    """A window of 0 s after no lead-in is the whole run: it takes every error of the run (share 1, not a division by
    zero)."""
    from serverbench.drivers.oha import window_errors

    errors, rule = window_errors([], 0.0, 0.0, _errors(connect=3, timeout=2), connections=1, timeout_s=5.0)
    assert errors == _errors(connect=3, timeout=2) and "x 1.000" in rule


def test_a_run_under_a_second_splits_errors_by_its_share_of_time_too():
    """A window of 0.5 s after a lead-in of 0.25 s takes 2 of the run's 3 connect errors (its share, 0.667)."""
    from serverbench.drivers.oha import window_errors

    errors, rule = window_errors([], 0.25, 0.5, _errors(connect=3), connections=0, timeout_s=5.0)
    assert errors["connect"] == 2 and "0.667" in rule


def test_run_errors_without_a_timeout_count_attribute_no_timeouts():
    """A run's errors given as only the kinds that occurred ({"connect": 7}): no timeout is attributed and the rule
    names only the time share, though connections no answer covers are there."""
    from serverbench.drivers.oha import window_errors

    rows = _chain([float(k) for k in range(7)], 1.0)  # one of two connections answered throughout
    errors, rule = window_errors(rows, 2.0, 5.0, {"connect": 7}, connections=2, timeout_s=5.0)
    assert errors["connect"] == 5 and errors["timeout"] == 0
    assert rule == "connect, read, write x 0.714 (the window's share of the run's time, 5 of 7 s)"


def test_the_attribution_names_each_rule_its_share_and_why():
    """Timeouts read from the uncovered time take their own share (1 of 3) while connect errors take the time share
    (5 of 7 s), each named, joined by "; "; timeouts alone name no connect rule; with no uncovered time the timeouts'
    rule says so."""
    from serverbench.drivers.oha import window_errors

    rows = [r for _ in range(2) for r in _chain([5.0, 6.0, 7.0], 1.0)]
    rows += _chain([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 1.0)
    rows += _chain([float(k) for k in range(7)], 1.0)
    read = (
        "timeouts x 0.333 (the share sent in the window: 1 of 3 requests given up, from the connections' time no "
        "answer covers)"
    )
    by_time = "connect, read, write x 0.714 (the window's share of the run's time, 5 of 7 s)"
    errors, rule = window_errors(rows, 2.0, 5.0, _errors(timeout=3, connect=7), connections=4, timeout_s=5.0)
    assert errors["timeout"] == 1 and errors["connect"] == 5 and rule == f"{read}; {by_time}"
    assert window_errors(rows, 2.0, 5.0, _errors(timeout=3), connections=4, timeout_s=5.0)[1] == read
    covered = _chain([float(k) for k in range(7)], 1.0)
    errors, rule = window_errors(covered, 2.0, 5.0, _errors(timeout=7), connections=1, timeout_s=5.0)
    assert errors["timeout"] == 5 and rule == (
        "timeouts x 0.714 (no connection time uncovered by answers: the window's share of the run's time)"
    )


def test_a_status_of_400_or_above_is_a_status_error_in_the_window():
    """Answers sent in the window with status 399, 400, 401 and 200: 400 and 401 are status errors, 399 is not."""
    from serverbench.drivers.oha import window_report

    rows = [(2.0 + k, 2.5 + k, status, 10) for k, status in enumerate((399, 400, 401, 200))]
    report = window_report(rows, 2.0, 5.0, _errors(), connections=1, timeout_s=5.0)
    assert report.requests == 4 and report.errors["status"] == 2


def test_the_window_report_is_recorded_as_oha():
    """The closed window's report names its driver, oha (a record says which generator measured it)."""
    from serverbench.drivers.oha import window_report

    assert window_report(_chain([2.0], 1.0), 2.0, 5.0, _errors(), connections=1, timeout_s=5.0).driver == "oha"


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("timeout", "timeout"),
        ("operation timed out", "timeout"),
        ("Connection refused (os error 111)", "connect"),
        ("refused by the peer", "connect"),
        ("tcp connect error", "connect"),
        ("dns error: failed to lookup address information", "connect"),
        ("Broken pipe (os error 32)", "write"),
        ("failed to write the request", "write"),
        ("unexpected end of file", "read"),
        # oha 1.x's own words against a server that resets (SO_LINGER 0) or closes an accepted connection: read errors
        ("connection error", "read"),
        ("Connection reset by peer (os error 104)", "read"),
        ("connection closed before message completed", "read"),
        ("error trying to connect: tcp connect error", "connect"),
    ],
)
def test_each_oha_error_message_lands_in_its_class(message, kind):
    """A timeout, a refused connection, a failed connect or DNS lookup, a broken pipe or failed write, and anything
    else (a read error: a connection reset or closed after it was accepted) are each classified by their words, in
    any case."""
    from serverbench.drivers.oha import _classify

    assert _classify(message) == kind


def test_oha_errors_add_up_by_class_after_deadline_aborts_and_from_400_up():
    """Deadline aborts listed first do not stop the count; two timeout messages add up; statuses 400 and 401 are status
    errors, 399 is not."""
    report = parse_report(
        _oha_json(
            {"200": 10, "399": 1, "400": 2, "401": 3},
            {"aborted due to deadline": 7, "timeout": 2, "operation timed out": 1},
        ),
        5.0,
    )
    assert dict(report.errors) == {"connect": 0, "read": 0, "write": 0, "timeout": 3, "status": 5}


def test_every_oha_latency_bytes_and_the_driver_are_read_from_its_json():
    """Each percentile, the slowest, the average and the histogram's spread in ms, the total data in bytes, the run's
    own length when oha gives one (else the asked duration), and the driver's name oha."""
    report = parse_report(_oha_json({"200": 10}, {}, total=4.5), 5.0)
    assert dict(report.latency_ms) == pytest.approx(
        {"p50": 2.0, "p75": 3.0, "p90": 4.0, "p99": 10.0, "p999": 20.0, "max": 31.0, "mean": 2.5, "stdev": 1.0}
    )
    assert report.driver == "oha" and report.bytes == 28000 and report.duration_s == 4.5
    assert parse_report(_oha_json({"200": 10}, {}, total=0.0), 5.0).duration_s == 5.0


def test_an_oha_run_with_no_answer_reports_zero_latencies_bytes_and_spread():
    """oha writes null percentiles and no totalData or histogram for a run that got no answer: all read as 0."""
    data = json.loads(_oha_json({}, {"timeout": 4}))
    data["latencyPercentiles"] = dict.fromkeys(data["latencyPercentiles"], None)
    data["summary"].update(slowest=None, average=None)
    del data["summary"]["totalData"]
    data["responseTimeHistogram"] = {}
    report = parse_report("oha: some warning\n" + json.dumps(data), 5.0)
    assert set(report.latency_ms.values()) == {0.0} and report.bytes == 0 and report.errors["timeout"] == 4


def test_a_request_answered_at_the_reading_no_longer_covers_its_connection():
    """A request sent at 0 s and answered at 1 s does not hold its connection at 1 s: one failed send is read there."""
    from serverbench.drivers.oha import failed_sent_by

    assert failed_sent_by([(0.0, 1.0, 200, 10)], 1.0, 1, 0.0) == 1
    assert failed_sent_by([(0.0, 1.0, 200, 10)], 0.5, 1, 0.0) == 0


def test_the_p50_of_two_answers_is_the_first():
    """Nearest rank: of two answers (1 and 2 ms) p50 is 1 ms, p99 2 ms."""
    from serverbench.drivers.oha import window_report

    report = window_report(
        [(2.0, 2.001, 200, 1), (3.0, 3.002, 200, 1)], 2.0, 5.0, _errors(), connections=1, timeout_s=5.0
    )
    assert round(report.latency_ms["p50"], 6) == 1.0 and round(report.latency_ms["p99"], 6) == 2.0


def test_the_p999_of_a_thousand_answers_is_the_999th_not_the_maximum():
    """99.9% of 1,000 is rank 999 (in floating point 99.9 / 100 * 1000 is 999.0000000000001, whose ceil was 1000)."""
    from serverbench.drivers.oha import window_report

    rows = [(2.0 + k / 1000, 2.0 + k / 1000 + (k + 1) / 1e6, 200, 1) for k in range(1000)]  # 1..1000 µs
    report = window_report(rows, 2.0, 5.0, _errors(), connections=1000, timeout_s=5.0)
    assert round(report.latency_ms["p999"], 6) == 0.999 and round(report.latency_ms["max"], 6) == 1.0


def test_a_rank_between_two_answers_is_the_next_one_up():
    """p50 of 5 answers is the 3rd (2.5 goes up, not to the even 2) and p90 the 5th (4.5 up, not 4)."""
    from serverbench.drivers.oha import window_report

    rows = [(2.0 + k, 2.0 + k + (k + 1) / 1000, 200, 1) for k in range(5)]  # 1..5 ms
    report = window_report(rows, 2.0, 5.0, _errors(), connections=5, timeout_s=5.0)
    assert round(report.latency_ms["p50"], 6) == 3.0 and round(report.latency_ms["p90"], 6) == 5.0


def test_the_p999_rank_is_exact_for_hundreds_of_thousands_of_answers():
    """99.9% of 328,000 answers is rank 327,672 exactly (rounding q% of n in floating point to 10 places gave 327,673)."""
    from serverbench.drivers.oha import window_report

    n = 328_000
    rows = [(2.0, 2.010, 200, 1)] * 327_672 + [(2.0, 2.020, 200, 1)] * (n - 327_672)
    report = window_report(rows, 2.0, 5.0, _errors(), connections=n, timeout_s=5.0)
    assert round(report.latency_ms["p999"], 6) == 10.0 and round(report.latency_ms["max"], 6) == 20.0


def test_a_rank_just_above_a_whole_number_goes_up():
    """99.9% of 1,999 answers is 1,997.001: rank 1,998, so with 1,997 answers at 10 ms and 2 at 20 ms p99.9 is 20 ms."""
    from serverbench.drivers.oha import window_report

    rows = [(2.0, 2.010, 200, 1)] * 1997 + [(2.0, 2.020, 200, 1)] * 2
    report = window_report(rows, 2.0, 5.0, _errors(), connections=1999, timeout_s=5.0)
    assert round(report.latency_ms["p999"], 6) == 20.0


@pytest.mark.parametrize(
    "rows, near, exact",
    [
        # Window [2, 7): connection A's first request (sent at 0, answered at 3) is a first wait, not carried in; its
        # second (sent at 3, answered at 8) carries 1 s out; B's second request (sent at 1.5, answered at 2.5) carries
        # 0.5 s in; C's (sent at 1, answered after the window) carries the whole 5 s in; a request sent in the trail
        # carries nothing.
        pytest.param(
            [
                (0.0, 3.0, 200, 10),
                (3.0, 8.0, 200, 10),  # A
                (0.0, 1.5, 200, 10),
                (1.5, 2.5, 200, 10),
                (2.5, 6.9, 200, 10),
                (6.9, 7.5, 200, 10),  # B
                (0.0, 1.0, 200, 10),
                (1.0, 7.2, 200, 10),
                (7.2, 7.8, 200, 10),  # C
            ],
            {"first_wait_s": 1.0, "carried_in_s": 0.5 + 5.0, "carried_out_s": 1.0 + 0.5},
            {"held_through": 1, "requests": 3},
            id="first waits, carried in and out",
        ),
        # Window [2, 7): D's request sent at 2.0 exactly and answered at 7.5 carries 0.5 s out and nothing in; E's sent
        # at 1.0 carries 4 s in, its next (6.0 to 7.0, answered as the window closes) nothing out, and the one sent at
        # 7.0 exactly (the trail's) nothing; F's request answered at 2.0 exactly carries nothing in.
        pytest.param(
            [
                (0.0, 2.0, 200, 10),
                (2.0, 7.5, 200, 10),  # D
                (0.0, 1.0, 200, 10),
                (1.0, 6.0, 200, 10),
                (6.0, 7.0, 200, 10),
                (7.0, 7.6, 200, 10),  # E
                (0.0, 1.0, 200, 10),
                (1.0, 2.0, 200, 10),
                (2.0, 7.0, 200, 10),  # F
            ],
            {"carried_in_s": 4.0, "carried_out_s": 0.5},
            {"first_wait_s": 0.0, "requests": 3},
            id="requests sent or answered exactly at an edge",
        ),
    ],
)
def test_the_windows_edges_are_the_wait_carried_in_past_the_first_requests_and_the_wait_carried_out(rows, near, exact):
    """Each connection's requests around the window [2, 7) (1 s of trail): the first waits, the wait carried in and
    out, the connections held through it and the window's requests."""
    from serverbench.drivers.oha import window_report

    report = window_report(rows, 2.0, 5.0, _errors(), connections=3, timeout_s=10.0, trail_s=1.0)
    assert {k: getattr(report, k) for k in near} == pytest.approx(near)
    assert {k: getattr(report, k) for k in exact} == exact


def test_timeouts_sent_late_in_the_window_are_the_windows_with_a_trail_after_it():
    """A request sent at 6.5 s (in the window [2, 7)) and given up at 11.5 s, with 2 s of trail: the run's one timeout
    is the window's (1 of 1), read as the window closes, not at its start or a second before its end."""
    from serverbench.drivers.oha import window_report

    rows = _chain([0.5 + k for k in range(6)], 1.0) + _chain([float(k) for k in range(9)], 1.0)
    report = window_report(rows, 2.0, 5.0, _errors(timeout=1), connections=2, timeout_s=5.0, trail_s=2.0)
    assert report.errors["timeout"] == 1 and "1 of 1" in report.error_attribution


def test_half_width_is_the_relative_95_percent_interval_of_a_mean():
    """Student's t (97.5%) x the sample sd / sqrt(n) / the mean: ten values 9, 11, 9, 11, ... of mean 10 and sd 1.054
    give 2.262 x 1.054 / 3.162 / 10 = 0.0754; fewer than two values, more than ten or a mean of 0 give None."""
    from serverbench.drivers.oha import half_width

    assert half_width([9.0, 11.0] * 5) == pytest.approx(2.262 * (10 / 9) ** 0.5 / 10**0.5 / 10)
    assert half_width([10.0] * 10) == 0.0
    assert half_width([9.0, 11.0]) == pytest.approx(12.706 * 2**0.5 / 2**0.5 / 10)
    assert half_width([5.0]) is None and half_width([]) is None
    assert half_width([1.0] * 11) is None
    assert half_width([0.0, 0.0]) is None


def test_window_precision_cuts_the_window_by_send_time_into_slices():
    """Window [1, 3) in 4 slices of 0.5 s: slice rates 4, 4, 8, 8 a second and mean latencies 0.1, 0.1, 0.3, 0.3 s;
    requests sent before or after the window, and error statuses, count nowhere."""
    from serverbench.drivers.oha import half_width, window_precision

    rows = [(0.5, 0.6, 200, 1)]  # lead-in
    for k, (n, lat) in enumerate(((2, 0.1), (2, 0.1), (4, 0.3), (4, 0.3))):
        rows += [(1.0 + 0.5 * k + 0.01 * i, 1.0 + 0.5 * k + 0.01 * i + lat, 200, 1) for i in range(n)]
    rows += [(2.9, 3.0, 500, 1), (3.2, 3.3, 200, 1)]  # an error status in the window; the trail
    got = window_precision(rows, 1.0, 2.0, slices=4)
    assert got["slices"] == 4
    assert got["rps"] == pytest.approx(half_width([4.0, 4.0, 8.0, 8.0]))
    assert got["latency_mean"] == pytest.approx(half_width([0.1, 0.1, 0.3, 0.3]))
    assert window_precision(rows, 1.0, 0.0) == {"slices": 10, "rps": None, "latency_mean": None}


def test_a_window_is_cut_into_slices_no_shorter_than_its_closed_loop_cycle():
    """Slices last at least the mean latency (each connection sends once per answer): a server answering its 64
    connections at once every 6.5 s fills three 6.7 s slices of a 20 s window evenly, where ten 2 s slices hold 0 or
    64 requests each; a fast server keeps ten slices, a window of fewer than three cycles three."""
    from serverbench.drivers.oha import SLICES, cycle_slices, window_precision, window_report

    rows = [(16.0 + t + 0.001 * c, 22.5 + t + 0.001 * c, 200, 1) for t in (3.4, 9.9, 16.4) for c in range(64)]
    assert cycle_slices(20.0, [(end - start) * 1000 for start, end, _, _ in rows]) == 3
    assert window_precision(rows, 16.0, 20.0, 3)["rps"] == pytest.approx(0.0, abs=1e-9)
    assert window_precision(rows, 16.0, 20.0, SLICES)["rps"] > 1.0
    assert window_report(rows, 16.0, 20.0, {}, 64, 30.0).precision["slices"] == 3
    assert cycle_slices(5.0, [1.5] * 100) == SLICES
    assert cycle_slices(4.0, [1650.0]) == 3  # 2.4 cycles: three slices, never two (t at 1 degree of freedom: 12.7)
    assert cycle_slices(1.0, [900.0]) == 3
    assert cycle_slices(5.0, []) == SLICES


def test_answer_rates_count_answers_by_when_they_came_in_each_slice():
    """The lead-in [0, 1) in 4 slices: answers at 0.1, 0.3, 0.3, 0.6 and 0.9 s give 4, 8, 4, 4 a second; an answer at
    1.0 s is the window's."""
    from serverbench.drivers.oha import answer_rates

    rows = [(0.0, t, 200, 1) for t in (0.1, 0.3, 0.3, 0.6, 0.9, 1.0)]
    assert answer_rates(rows, 0.0, 1.0, 4) == (4.0, 8.0, 4.0, 4.0)
    assert answer_rates(rows, 0.0, 0.0, 4) == ()


def test_the_window_report_carries_its_precision_and_the_lead_ins_rates():
    """window_report: the window's precision (10 slices) and the lead-in's answer rates (4 slices)."""
    from serverbench.drivers.oha import window_report

    rows = [(0.01 * i + 0.001, 0.01 * i + 0.006, 200, 10) for i in range(300)]  # 100 a second for 3 s
    report = window_report(rows, 1.0, 2.0, {}, 1, 5.0)
    assert report.precision["slices"] == 10 and report.precision["rps"] == pytest.approx(0.0, abs=1e-9)
    assert report.lead_rps == pytest.approx((100.0, 100.0, 100.0, 100.0))


# Merged from test_mutation_drivers.py: The drivers' run(): the command, the script and the error of a failed run,
# with the generator process replaced by a canned one (issue 22, mutation survivors of drivers.wrk and drivers.oha; no
# load is sent).
OHA_JSON = (
    '{"summary": {"total": 2.0, "slowest": 0.001, "average": 0.001, "totalData": 100}, '
    '"latencyPercentiles": {"p50": 0.001, "p75": 0.001, "p90": 0.001, "p99": 0.001, "p99.9": 0.001}, '
    '"statusCodeDistribution": {"200": 10}, "errorDistribution": {}}'
)


def _oha():
    driver = OhaDriver(timeout_s=4, lead_s=2, trail_s=1)  # whole seconds: the figures below are easy to follow
    driver.__dict__["binary"] = "oha"
    return driver


def test_oha_open_model_run_holds_the_rate_and_writes_the_body(monkeypatch):
    """At a rate, oha runs once with -q, the request's method and headers, and the body from a file."""
    calls = canned_generator(monkeypatch, oha_module, OHA_JSON)
    report, _ = _oha().run(
        "http://127.0.0.1:1/x",
        LoadShape(8, 2, rate=100.0),
        cpus=[0],
        request=Request("POST", (("A", "b"),), b"payload"),
    )
    assert report.requests == 10
    (call,) = calls
    assert call["argv"][:8] == ["oha", "-z", "2s", "-c", "8", "-q", "100", "--latency-correction"]
    assert call["argv"][-7:-1] == ["-m", "POST", "-H", "A: b", "-D", call["argv"][-2]]
    assert call["body"] == b"payload" and call["timeout"] == 2 + 4 + 30 and call["cpus"] == [0]
    assert call["env"]["NO_COLOR"] == "1"
    _oha().run("http://127.0.0.1:1/x", LoadShape(8, 2, rate=100.0), request=Request("POST"))
    assert "-D" not in calls[1]["argv"]


def test_oha_refuses_what_it_cannot_run():
    """oha runs one URL with keep-alive: a mix, requests per connection, or a request in the closed model are refused."""
    with pytest.raises(GeneratorError, match="oha runs one URL; it cannot run a URL mix"):
        _oha().run("u", LoadShape(8, 2, rate=10.0), mix=[("/a", 1)])
    with pytest.raises(GeneratorError, match="it cannot run c8-rpc1"):
        _oha().run("u", LoadShape(8, 2, rate=None, requests_per_connection=1))
    with pytest.raises(GeneratorError, match="oha's closed model here sends plain GETs"):
        _oha().run("u", LoadShape(8, 2), request=Request("POST"))


def test_oha_failed_run_is_an_error_with_the_end_of_its_output(monkeypatch):
    """oha exiting non-zero (open or closed model) is a GeneratorError naming the code and its last output."""
    canned_generator(monkeypatch, oha_module, "", returncode=2, stderr="bad url")
    with pytest.raises(GeneratorError, match="^oha exited with code 2: bad url$"):
        _oha().run("u", LoadShape(8, 2, rate=10.0))
    with pytest.raises(GeneratorError, match="^oha exited with code 2: bad url$"):
        _oha().run("u", LoadShape(8, 2))


def test_oha_closed_run_reports_the_window_from_its_rows(monkeypatch):
    """The closed model runs lead-in + window + trail once (its timeout covering all three), and reports only the
    window: the request sent at 4.5 s is the trail's."""
    calls = canned_generator(monkeypatch, oha_module, OHA_JSON)
    rows = [(0.5, 0.6, 200, 10), (2.5, 2.6, 200, 10), (3.0, 3.2, 500, 10), (4.5, 4.6, 200, 10)]
    monkeypatch.setattr(oha_module, "read_rows", lambda db: rows)
    monkeypatch.setattr(Path, "exists", lambda self: True)
    report, _ = _oha().run("http://127.0.0.1:1/x", LoadShape(8, 2))
    (call,) = calls
    assert call["argv"][:3] == ["oha", "-z", "5000ms"] and call["timeout"] == 2 + 2 + 1 + 2 * 4 + 30
    assert report.window == "steady" and report.requests == 2 and report.errors["status"] == 1
    assert report.duration_s == 2.0


def test_oha_closed_run_attributes_its_errors_over_lead_in_window_and_trail(monkeypatch):
    """10 connect errors over a run of 2 s lead-in + 2 s window + 1 s trail: the window's share is 2 of 5 s, 4."""
    calls = canned_generator(
        monkeypatch,
        oha_module,
        OHA_JSON.replace('"errorDistribution": {}', '"errorDistribution": {"tcp connect error": 10}'),
    )
    monkeypatch.setattr(oha_module, "read_rows", lambda db: [(2.5, 2.6, 200, 10)])
    monkeypatch.setattr(Path, "exists", lambda self: True)
    report, _ = _oha().run("http://127.0.0.1:1/x", LoadShape(8, 2))
    assert calls[0]["argv"][:3] == ["oha", "-z", "5000ms"]
    assert report.errors["connect"] == 4 and "2 of 5 s" in report.error_attribution
    assert report.run_errors["connect"] == 10


def _oha_db(path, rows):
    """oha's --db-url table (as oha 1.x creates it) holding ``rows`` (start, end, status, bytes)."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE oha (url TEXT NOT NULL, start REAL NOT NULL, start_latency_correction REAL, "
            "end REAL NOT NULL, duration REAL NOT NULL, status INTEGER NOT NULL, len_bytes INTEGER NOT NULL)"
        )
        conn.executemany(
            "INSERT INTO oha VALUES ('u', ?, NULL, ?, ?, ?, ?)", [(s, e, e - s, st, b) for s, e, st, b in rows]
        )


def test_oha_closed_run_reads_the_database_it_named_on_the_cores_and_environment_given(monkeypatch):
    """The closed model names a requests.db in a serverbench-oha- folder and the shape's connections, runs on the cores
    given without colour, reads the answers oha wrote there, and attributes the run's timeouts over its connections."""
    calls = canned_generator(
        monkeypatch, oha_module, OHA_JSON.replace('"errorDistribution": {}', '"errorDistribution": {"timeout": 2}')
    )
    real = oha_module.run_generator

    def writing(argv, timeout, cpus=None, env=None):
        _oha_db(argv[argv.index("--db-url") + 1], [(2.5, 2.6, 200, 10), (3.0, 3.2, 200, 10)])
        return real(argv, timeout, cpus, env)

    monkeypatch.setattr(oha_module, "run_generator", writing)
    report, _ = _oha().run("http://127.0.0.1:1/x", LoadShape(8, 2), cpus=[1])
    (call,) = calls
    db = Path(call["argv"][call["argv"].index("--db-url") + 1])
    assert db.name == "requests.db" and db.parent.name.startswith("serverbench-oha-")
    assert call["argv"][call["argv"].index("-c") + 1] == "8"
    assert call["cpus"] == [1] and call["env"]["NO_COLOR"] == "1"
    assert report.requests == 2 and report.bytes == 20 and report.run_errors["timeout"] == 2
    assert (
        report.errors["timeout"] == 1
    )  # the uncovered time of 8 connections misses the run's 2: the time share, 2 of 4 s


def test_oha_closed_run_without_a_database_reports_an_empty_window(monkeypatch):
    """oha that answered nothing writes no database: the window has no request, not an error."""
    canned_generator(monkeypatch, oha_module, OHA_JSON)
    report, _ = _oha().run("http://127.0.0.1:1/x", LoadShape(8, 2))
    assert report.requests == 0 and report.window == "steady"


def test_oha_open_run_writes_the_body_in_its_own_folder_and_falls_back_to_the_asked_duration(monkeypatch):
    """The body is written as body in a serverbench-oha- folder; a JSON without the run's length takes the shape's."""
    calls = canned_generator(monkeypatch, oha_module, OHA_JSON.replace('"total": 2.0', '"total": 0'))
    report, _ = _oha().run("http://127.0.0.1:1/x", LoadShape(8, 3, rate=100.0), request=Request("POST", (), b"x"))
    body = Path(calls[0]["argv"][calls[0]["argv"].index("-D") + 1])
    assert body.name == "body" and body.parent.name.startswith("serverbench-oha-")
    assert report.duration_s == 3.0


# Issue 35, item 6: the window report's record fields, its precision's slices and the lead-in's rates at their edges.
def test_the_window_report_records_its_lead_in_and_when_the_runs_first_requests_were_all_answered():
    """lead_s is the window's start; first_answered_s the last answer of the run's first request on each connection
    (one per connection), None when fewer requests than connections were answered or none at all (no connection)."""
    from serverbench.drivers.oha import window_report

    rows = [(0.0, 0.5, 200, 1), (0.0, 1.5, 200, 1), (0.5, 2.5, 200, 1), (1.5, 3.0, 200, 1), (2.5, 4.0, 200, 1)]
    report = window_report(rows, 2.0, 5.0, _errors(), connections=2, timeout_s=5.0)
    assert report.lead_s == 2.0 and report.first_answered_s == 1.5
    assert window_report(rows[:1], 2.0, 5.0, _errors(), connections=2, timeout_s=5.0).first_answered_s is None
    empty = window_report([], 1.0, 5.0, _errors(), connections=0, timeout_s=5.0)
    assert empty.first_answered_s is None and empty.lead_s == 1.0


def test_a_run_with_no_timeout_holds_no_connection_whatever_its_rows_show_in_flight():
    """No timeout in the run: no connection is counted as held unanswered through the window, even when its rows show
    more requests in flight at once than the connections it was given; held_through and first_wait_s stay at 0."""
    from serverbench.drivers.oha import window_report

    rows = [(2.0, 3.0, 200, 1), (2.5, 3.5, 200, 1), (2.6, 3.6, 200, 1)]
    for errors in (_errors(), _errors(connect=2)):
        report = window_report(rows, 2.0, 5.0, errors, connections=1, timeout_s=5.0)
        assert report.held_through == 0 and report.first_wait_s == 0.0, errors


def test_the_windows_precision_counts_a_request_sent_as_it_opens_and_one_answered_after_it_closes():
    """The precision of window [1, 3) holds every request sent in it: one sent exactly as it opens (1.0 s) and one
    answered after it closes (sent 2.9 s, answered 3.5 s), as window_precision reads them from all the run's rows."""
    from serverbench.drivers.oha import cycle_slices, window_precision, window_report

    rows = [(0.5, 1.2, 200, 1), (1.0, 1.1, 200, 1), (1.1, 1.2, 200, 1), (1.6, 1.7, 200, 1), (2.0, 2.1, 200, 1)]
    rows += [(2.2, 2.3, 200, 1), (2.5, 2.6, 200, 1), (2.9, 3.5, 200, 1), (3.0, 3.1, 200, 1)]
    report = window_report(rows, 1.0, 2.0, _errors(), connections=1, timeout_s=5.0)
    slices = cycle_slices(2.0, [(end - start) * 1000 for start, end, _, _ in rows if 1.0 <= start < 3.0])
    assert report.precision == window_precision(rows, 1.0, 2.0, slices)
    assert report.precision["slices"] == 10 and report.precision["rps"] is not None
    without = [r for r in rows if r[0] not in (1.0, 2.9)]
    assert report.precision["rps"] != window_precision(without, 1.0, 2.0, slices)["rps"]


def test_a_window_just_short_of_a_whole_number_of_cycles_is_cut_at_the_number_below():
    """A 4.999 s window of 1 s answers holds 4 whole cycles, not 5: four slices; answers of no time (0 ms) keep
    SLICES (no cycle to divide by)."""
    from serverbench.drivers.oha import SLICES, cycle_slices

    assert cycle_slices(4.999, [1000.0]) == 4 and cycle_slices(5.0, [1000.0]) == 5
    assert cycle_slices(5.0, [0.0, 0.0]) == SLICES


def test_half_width_is_kept_for_a_mean_under_one():
    """A mean between 0 and 1 (0.6 of 0.5 and 0.7) still has an interval: 12.706 x 0.1414 / 1.414 / 0.6."""
    from serverbench.drivers.oha import half_width

    assert half_width([0.5, 0.7]) == pytest.approx(12.706 * 0.02**0.5 / 2**0.5 / 0.6)


def test_window_precision_of_a_short_window_in_two_slices_and_of_its_edges():
    """A 0.6 s window [0.3, 0.9) in 2 slices of 0.3 s has a precision (the least two slices, the shortest window
    any); a request sent exactly as it closes (0.9 s) and a status of 400 count in no slice; the rps half-width is
    that of the slices' rates a second (3 and 1 requests in 0.3 s)."""
    from serverbench.drivers.oha import half_width, window_precision

    rows = [(0.3, 0.35, 200, 1), (0.4, 0.5, 200, 1), (0.5, 0.55, 200, 1), (0.7, 0.8, 200, 1)]
    got = window_precision(rows + [(0.9, 0.95, 200, 1), (0.8, 0.85, 400, 1)], 0.3, 0.6, slices=2)
    assert got["slices"] == 2 and got["rps"] == half_width([3 / 0.3, 1 / 0.3])
    assert got["latency_mean"] == pytest.approx(half_width([(0.05 + 0.1 + 0.05) / 3, 0.1]))


def test_a_request_sent_a_hair_before_the_window_closes_lands_in_its_last_slice():
    """Window [0.1, 1.0) in 3 slices: a request sent at the float just below 1.0 s (its slice index rounds to 3)
    counts in the last slice, as an answer at that instant counts in the last slice of the lead-in's rates."""
    from serverbench.drivers.oha import answer_rates, half_width, window_precision

    late = 0.9999999999999999
    rows = [(0.1, 0.2, 200, 1), (0.5, 0.6, 200, 1), (late, 1.1, 200, 1)]
    assert window_precision(rows, 0.1, 0.9, 3)["rps"] == half_width([1 / 0.3, 1 / 0.3, 1 / 0.3])
    assert answer_rates([(0.0, late, 200, 1)], 0.1, 1.0, 3)[-1] == pytest.approx(1 / 0.3)


def test_answer_rates_of_a_lead_in_not_starting_at_zero_and_in_one_slice():
    """Answers in [1, 3) in 2 slices of 1 s: one answered exactly at 1.0 s is the first slice's, 2.5 s the second's;
    in one slice all three are 1.5 a second."""
    from serverbench.drivers.oha import answer_rates

    rows = [(0.5, t, 200, 1) for t in (0.5, 1.0, 1.5, 2.5, 3.0)]
    assert answer_rates(rows, 1.0, 3.0, 2) == (2.0, 1.0)
    assert answer_rates(rows, 1.0, 3.0, 1) == (1.5,)


def _oha_printing(tmp_path, monkeypatch, version_line):
    """An `oha` on PATH that only answers --version (the check reads nothing else)."""
    binary = tmp_path / "oha"
    binary.write_text(f"#!/bin/sh\necho '{version_line}'\n")
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    return binary


def test_an_oha_older_than_the_flags_passed_is_refused_naming_the_pinned_install(tmp_path, monkeypatch):
    """oha 1.4.6 (no --output-format) fails the check with its version, its path and the cargo command of the
    version ./run builds; 1.9.0 and the pinned version pass; a version that cannot be read is tried."""
    binary = _oha_printing(tmp_path, monkeypatch, "oha 1.4.6")
    with pytest.raises(MissingBinaryError) as refused:
        OhaDriver().check()
    message = str(refused.value)
    assert f"oha 1.4.6 ({binary})" in message and "needs oha 1.9.0 or newer" in message
    assert f"cargo install oha --version {oha_module.VERSION} --locked" in message
    for line in ("oha 1.9.0", f"oha {oha_module.VERSION}", "oha (unreleased)"):
        _oha_printing(tmp_path, monkeypatch, line)
        OhaDriver().check()


def test_versions_compare_as_numbers():
    """1.10.0 is newer than 1.9.0 (not as text); an unreadable version is not called old."""
    assert not oha_module.too_old("1.10.0") and oha_module.too_old("1.8.9") and oha_module.too_old("0.6.5")
    assert not oha_module.too_old("unknown") and not oha_module.too_old(oha_module.MIN_VERSION)


def test_run_builds_the_version_the_driver_is_tested_with():
    """./run reads the pinned version from the driver's VERSION line and passes it to both cargo installs."""
    run = (Path(__file__).resolve().parents[3] / "run").read_text()
    assert "src/serverbench/drivers/oha.py" in run and 'VERSION = "' in run
    assert run.count('--version "$OHA_VERSION"') == 2


def test_an_open_model_across_hosts_merges_every_answer_not_the_runs_percentiles(tmp_path):
    """Two oha runs (half the rate each): requests, bytes and errors add up, and the p99 is that of all the answers
    (timed from each request's intended send time), not the mean of the two runs' p99s."""
    import sqlite3

    from serverbench.drivers.oha import merged_report, read_latencies
    from serverbench.records.schema import ERROR_KEYS, LoadReport

    db = tmp_path / "requests.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE oha (start REAL, start_latency_correction REAL, end REAL, duration REAL, status INTEGER,"
            " len_bytes INTEGER)"
        )
        conn.execute("INSERT INTO oha VALUES (1.0, 0.9, 1.1, 0.1, 200, 10)")  # 200 ms from its intended send
        conn.execute("INSERT INTO oha VALUES (2.0, NULL, 2.05, 0.05, 200, 10)")  # no correction: from its start
    rows = read_latencies(db)
    assert [round(d, 6) for d, _, _ in rows] == [0.2, 0.05]

    def run(requests: int, p99: float, timeouts: int) -> LoadReport:
        errors = {k: 0 for k in ERROR_KEYS} | {"timeout": timeouts}
        return LoadReport("oha", requests, 5.0, requests * 10, {"p99": p99}, errors)

    fast = [(0.001, 200, 10)] * 99 + [(0.002, 200, 10)]
    slow = [(0.050, 200, 10)] * 100
    report = merged_report([run(100, 2.0, 1), run(100, 50.0, 2)], fast + slow)
    assert report.requests == 200 and report.bytes == 2000 and report.errors["timeout"] == 3
    assert report.latency_ms["p99"] == 50.0 and report.latency_ms["p50"] == 2.0


QUEUED = (
    registry()["meinheld"],
    WORKLOADS["upstream"],
)  # one request at a time, 0.1 s each: 48 connections queue 4.8 s
UNQUEUED = (registry()["aiohttp"], WORKLOADS["json"])  # no designed queue


def test_oha_sized_to_a_queued_cell_leads_in_trails_and_times_out_for_its_queue():
    """meinheld on /upstream at 48 connections for 7 s, --perf-warmup 1: a 12 s lead-in and a 5 s trail (sized to the
    4.8 s queue), a timeout of 12 + 7 + 5 + 2 x 4.8 -> 34 s; its load hosts kept."""
    places = ("load1",)  # a stand-in: the driver only keeps it
    sized = OhaDriver(places=places).sized(CellLoad(*QUEUED, LoadShape(48, 7), warmup_s=1))
    assert (sized.lead_s, sized.trail_s, sized.timeout_s, sized.places) == (12, 5, 34, places)


def test_oha_leads_in_at_least_as_long_as_asked_and_for_less_on_a_warm_server():
    """A lead-in asked for (30 s, a window measured again) lengthens the run and its timeout (30 + 7 + 5 + 9.6 -> 52 s);
    a server that has just served another workload leads in for 0.5 s, not --perf-warmup's 3 s."""
    longer = OhaDriver().sized(CellLoad(*QUEUED, LoadShape(48, 7), warmup_s=2, min_lead_s=30))
    assert (longer.lead_s, longer.trail_s, longer.timeout_s) == (30, 5, 52)
    assert OhaDriver().sized(CellLoad(*UNQUEUED, LoadShape(64, 5), warmup_s=3)).lead_s == 3
    warm = OhaDriver().sized(CellLoad(*UNQUEUED, LoadShape(64, 5), warmup_s=3, warm=True))
    assert (warm.lead_s, warm.trail_s, warm.timeout_s) == (0.5, 0.25, 5)


def test_oha_with_no_warm_up_runs_the_window_alone():
    """--perf-warmup 0: no lead-in and no trail, the timeout over the window alone (7 + 2 x 4.8 -> 17 s)."""
    sized = OhaDriver().sized(CellLoad(*QUEUED, LoadShape(48, 7), warmup_s=0, warm=True))
    assert (sized.lead_s, sized.trail_s, sized.timeout_s) == (0, 0.0, 17)


def test_oha_keeps_its_own_lead_in_and_trail_where_the_caller_warms_up_apart():
    """No warmup_s (the gate warms up in a run of its own): oha's lead-in and trail stay, even a lead-in asked for, and
    its timeout covers them and the window (2 + 7 + 0.5 + 2 x 4.8 -> 20 s)."""
    sized = OhaDriver(lead_s=2.0, trail_s=0.5).sized(CellLoad(*QUEUED, LoadShape(48, 7), warm=True, min_lead_s=30))
    assert (sized.lead_s, sized.trail_s, sized.timeout_s) == (2.0, 0.5, 20)


def test_oha_at_a_rate_or_with_nothing_to_size_is_itself():
    """An open model's run keeps its timeout on any cell; a closed run whose sizes are oha's own (no queue,
    --perf-warmup 1 s as its lead-in) is the same driver."""
    oha = OhaDriver()
    assert oha.sized(CellLoad(*QUEUED, LoadShape(48, 7, rate=100.0), warmup_s=2)) is oha
    assert oha.sized(CellLoad(*UNQUEUED, LoadShape(64, 5), warmup_s=1)) is oha
