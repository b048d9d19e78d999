"""Parsing oha's JSON summary (the open-model driver); no load."""
import json

import pytest

from serverbench.drivers.oha import OhaDriver, parse_report
from serverbench.errors import GeneratorError


def _oha_json(statuses, errors, total=5.0):
    pct = {k: v for k, v in zip(("p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.9", "p99.99"),
                                (0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.010, 0.020, 0.030))}
    return json.dumps({
        "summary": {"successRate": 1.0, "total": total, "slowest": 0.031, "fastest": 0.0005, "average": 0.0025,
                    "requestsPerSec": 200.0, "totalData": 28000, "sizePerRequest": 28, "sizePerSec": 5600.0},
        "responseTimeHistogram": {"0.002": 500, "0.004": 500},
        "latencyPercentiles": pct,
        "rps": {"mean": 200.0, "stddev": 1.0, "max": 210.0, "percentiles": pct},
        "details": {"DNSDialup": {"average": 0.0, "fastest": 0.0, "slowest": 0.0},
                    "DNSLookup": {"average": 0.0, "fastest": 0.0, "slowest": 0.0}},
        "statusCodeDistribution": statuses, "errorDistribution": errors})


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
