import pytest

from serverbench.drivers.wrk import lua_string, mix_script, parse_report, reporter_script, split_threads
from serverbench.errors import GeneratorError

# A line captured from a real run of wrk 4.1.0 with serverbench's reporter (gunicorn, /json).
REAL = (
    "Running 2s test @ http://127.0.0.1:21000/json\n  2 threads and 64 connections\n"
    'SERVERBENCH-WRK {"requests":6650,"duration_us":2004132,"bytes":1097250,"synthetic_removed":0,'
    '"latency_us":{"p50":19090,"p75":20400,"p90":22000,"p99":25030,"p999":31000,"max":40210,'
    '"mean":19123.500,"stdev":1800.250},"errors":{"connect":0,"read":12,"write":0,"timeout":0,"status":5}}\n'
)


def test_parse_real_report():
    """Requests, duration, latency (µs → ms) and error classes come out of the reporter's JSON line."""
    report = parse_report(REAL)
    assert report.requests == 6650
    assert report.duration_s == pytest.approx(2.004132)
    assert report.latency_ms["p50"] == pytest.approx(19.09)
    assert report.latency_ms["p999"] == pytest.approx(31.0)
    assert report.errors == {"connect": 0, "read": 12, "write": 0, "timeout": 0, "status": 5}


def test_rps_counts_only_non_error_responses():
    """Responses with an error status do not count towards throughput."""
    report = parse_report(REAL)
    assert report.good_requests == 6645
    assert report.rps == pytest.approx(6645 / 2.004132)


def test_error_rate_over_attempts():
    """The error rate is all errors over completed responses plus failed connections."""
    report = parse_report(REAL)
    assert report.error_rate == pytest.approx(17 / (6650 + 12))


def test_missing_report_line_is_an_error_with_the_output():
    """If wrk printed no report (e.g. could not connect), the error shows what it printed."""
    with pytest.raises(GeneratorError, match="(?s)0 report lines.*unable to connect"):
        parse_report("unable to connect to 127.0.0.1:9 Connection refused\n")


def test_malformed_report_line_is_an_error():
    """A truncated JSON line is reported, not half-parsed."""
    with pytest.raises(GeneratorError, match="malformed"):
        parse_report('SERVERBENCH-WRK {"requests":1}\n')


def test_a_histogram_the_reporter_could_not_undo_is_an_error_naming_the_fix():
    """The reporter's -1 (not wrk 4.x's histogram): no latencies with wrk's synthetic samples are recorded."""
    with pytest.raises(GeneratorError, match="coordinated omission.*--perf-closed-driver oha"):
        parse_report(REAL.replace('"synthetic_removed":0', '"synthetic_removed":-1'))


@pytest.mark.parametrize(
    ("threads", "connections", "expected"),
    [(2, 64, 2), (2, 1, 1), (2, 5, 1), (3, 64, 2), (4, 400, 4), (8, 6, 6), (1, 64, 1)],
)
def test_wrk_threads_divide_the_connections(threads, connections, expected):
    """wrk opens connections // threads per thread: the threads chosen divide the connections, so all are opened."""
    assert split_threads(threads, connections) == expected


def test_the_reporter_is_told_the_connections_and_timeout_before_any_request_script():
    """The script wrk runs starts with the -c and timeout the reporter needs, then the request script, then the reporter."""
    script = reporter_script(64, 5, "-- requests\n")
    assert script.startswith("local connections, timeout_us = 64, 5000000\n-- requests\n")
    assert script.rstrip().endswith("end")


def test_the_report_is_wrks_with_its_bytes_and_exact_duration():
    """The report names wrk as its driver, carries the bytes read and the duration to the microsecond; as wrk's, a
    timeout is not an attempt of its own (wrk still counts the answer): 3 timeouts add to the errors, not the attempts."""
    report = parse_report(REAL.replace('"timeout":0', '"timeout":3'))
    assert report.driver == "wrk" and report.bytes == 1097250 and report.duration_s == 2.004132
    assert report.error_rate == pytest.approx(20 / (6650 + 12))


def test_lua_strings_escape_every_byte_outside_printable_ascii():
    """Printable ASCII stays as it is (but the quote and backslash); DEL (127) and control bytes are escaped, space kept."""
    assert lua_string(b' ~\x7f\x1f"\\') == '" ~\\127\\031\\034\\092"'


def test_a_keep_alive_mix_closes_no_connection():
    """Without requests per connection the script's per_connection is 0: no request is sent with Connection: close."""
    assert "\nlocal per_connection = 0\n" in mix_script([("/a", 1)])
    assert "\nlocal per_connection = 3\n" in mix_script([("/a", 1)], 3)


def test_every_header_of_a_request_is_formatted_into_the_script():
    """Two headers become two entries of wrk.format's header table, each closed by a comma."""
    from serverbench.catalog.contract import Request

    lua = mix_script([("/a", 1)], None, Request("GET", (("A", "1"), ("B", "2"))))
    assert 'wrk.format(method, p, {["A"] = "1", ["B"] = "2", }, body)' in lua


def test_each_line_of_the_request_script_is_a_comment_or_a_lua_statement():
    """The script wrk loads starts with a comment line, then its statements, one a line (no stray text before them)."""
    import re

    lines = mix_script([("/a", 2), ("/b", 1)], 2).splitlines()
    assert lines[0].startswith("-- ") and lines[1].startswith("local paths = {")
    assert all(re.match(r"(--|local |init |request |end$|\s)", line) for line in lines), lines
