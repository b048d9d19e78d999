"""The locust driver without load: argv, CSV parsing, error classes, process handling, the locustfiles' outputs.

locust itself is imported only in child processes (importing it monkey-patches the interpreter
with gevent); nothing here sends a request.
"""

import dataclasses
import importlib.util
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from serverbench.catalog.shapes import LoadShape
from serverbench.drivers import locust as locust_module
from serverbench.drivers.locust import (
    BOOKSHOP,
    GAPS,
    START_S,
    WAIT_ENV,
    LocustDriver,
    LocustRunner,
    classify_error,
    parse_error_report,
    parse_failures,
    parse_final,
    parse_stats,
    read_report,
    with_final,
)
from serverbench.errors import ConfigError, GeneratorError, MissingBinaryError
from serverbench.processes import places as places_module
from serverbench.processes.executors import BackgroundProcess
from serverbench.records.schema import ERROR_KEYS
from tests.unit.child_probe import child_probe

ROOT = Path(__file__).resolve().parents[3]

# The header rows of locust 2.47's CSV files, from locust/stats.py: StatsCSV.requests_csv_columns
# (percentiles: get_readable_percentiles(PERCENTILES_TO_REPORT)) and StatsCSV.failures_columns.
STATS_HEADER = (
    "Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,"
    "Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,"
    "50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%"
)
FAILURES_HEADER = "Method,Name,Error,Occurrences,First Seen,Last Seen"
EXCEPTIONS_HEADER = "Count,Message,Traceback,Nodes"

# As csv.writer writes them (\r\n line ends, quoting only where needed): one row per name, then Aggregated.
STATS_CSV = "\r\n".join(
    [
        STATS_HEADER,
        "GET,/site/search,4000,10,12,13.51234,0.81,95.2,1052.0,800.1,2.0,12,14,15,16,19,23,27,33,60,90,95",
        "GET,/site/thumbs/[n].jpg,6000,30,10,11.0,0.5,88.0,3000.0,1200.0,6.0,10,12,13,14,17,21,25,30,55,88,88",
        ",Aggregated,10000,40,11,12.00525,0.5,95.2,2220.8,2000.2,8.0,11,13,14,15,18,22,26,32,58,90,95",
        "",
    ]
)
FAILURES_CSV = "\r\n".join(
    [
        FAILURES_HEADER,
        "GET,/site/search,\"ConnectionRefusedError(111, 'Connection refused')\",5,2026-01-01T00:00:01Z,2026-01-01T00:00:02Z",
        "GET,/site/search,LocustBadStatusCode(code=500),3,2026-01-01T00:00:01Z,2026-01-01T00:00:04Z",
        'GET,/site/thumbs/[n].jpg,"CatchResponseError(""/site/thumbs/3.jpg: Content-Type \'text/html\', '
        'expected \'image/jpeg\'"")",20,2026-01-01T00:00:01Z,2026-01-01T00:00:05Z',
        "GET,/site/thumbs/[n].jpg,<Timeout at 0x.... seconds=5.0>,4,2026-01-01T00:00:02Z,2026-01-01T00:00:03Z",
        "GET,/site/thumbs/[n].jpg,\"ConnectionResetError(104, 'Connection reset by peer')\",6,"
        "2026-01-01T00:00:02Z,2026-01-01T00:00:03Z",
        "GET,/site/search,HTTPConnectionClosed('connection closed.'),2,2026-01-01T00:00:02Z,2026-01-01T00:00:03Z",
        "",
    ]
)
EMPTY_FAILURES = FAILURES_HEADER + "\r\n"


def test_argv_single_process():
    """Without workers the one process runs headless with the users, rate, time, host and CSV prefix."""
    argv = LocustRunner(users=64, spawn_rate=32).argv_master("http://127.0.0.1:21000", 10, "/tmp/x/run")
    assert argv == [
        sys.executable,
        "-m",
        "locust",
        "-f",
        f"{BOOKSHOP},{GAPS}",
        "--headless",
        "-u",
        "64",
        "-r",
        "32",
        "-t",
        "10s",
        "-H",
        "http://127.0.0.1:21000",
        "--csv",
        "/tmp/x/run",
        "--only-summary",
        "--json",
        "--loglevel",
        "WARNING",
        "--stop-timeout",
        "2",
    ]
    assert "--master" not in argv and "--processes" not in argv


def test_argv_distributed():
    """With workers the master binds loopback on the given port and waits for them; each worker connects there."""
    driver = LocustRunner(users=100, spawn_rate=100, workers=2)
    master = driver.argv_master("http://127.0.0.1:21000", 5, "/tmp/p", master_port=20001)
    assert master[: master.index("--master")] == LocustRunner(100, 100).argv_master(
        "http://127.0.0.1:21000", 5, "/tmp/p"
    )
    assert master[master.index("--master") :] == [
        "--master",
        "--master-bind-host",
        "127.0.0.1",
        "--master-bind-port",
        "20001",
        "--expect-workers",
        "2",
        "--expect-workers-max-wait",
        "30",
    ]
    assert driver.argv_worker(20001) == [
        sys.executable,
        "-m",
        "locust",
        "-f",
        f"{BOOKSHOP},{GAPS}",
        "--worker",
        "--master-host",
        "127.0.0.1",
        "--master-port",
        "20001",
        "--loglevel",
        "WARNING",
    ]
    assert driver.processes == driver.threads == 2
    assert LocustRunner().processes == 1


def test_distributed_master_needs_a_port():
    """A master's argv without its port is refused."""
    with pytest.raises(ValueError, match="port"):
        LocustRunner(workers=1).argv_master("http://127.0.0.1:1", 5, "/tmp/p")


def test_bad_shape_is_a_config_error():
    """Zero users, a zero spawn rate or negative workers are refused when the driver is built."""
    with pytest.raises(ConfigError, match="users >= 1"):
        LocustRunner(users=0)
    with pytest.raises(ConfigError):
        LocustRunner(workers=-1)


def test_parse_stats_reads_the_aggregated_row():
    """Latency percentiles, max and mean come from the Aggregated row, in ms; stdev is 0 (not in the CSV)."""
    report = parse_stats(STATS_CSV, FAILURES_CSV, 5.0)
    assert report.driver == "locust"
    assert report.duration_s == 5.0
    assert dict(report.latency_ms) == {
        "p50": 11.0,
        "p75": 14.0,
        "p90": 18.0,
        "p99": 32.0,
        "p999": 58.0,
        "max": 95.2,
        "mean": pytest.approx(12.00525),
        "stdev": 0.0,
    }
    assert report.bytes == round(2220.8 * 10000)


def test_parse_failures_classifies_each_row():
    """Refused → connect, bad status and wrong answers → status, Timeout → timeout, reset/closed → read."""
    assert parse_failures(FAILURES_CSV) == {"connect": 5, "read": 8, "write": 0, "timeout": 4, "status": 23}


def test_requests_count_completed_responses():
    """Failures that got no answer are not responses (as in wrk); wrong answers are, and are not good."""
    report = parse_stats(STATS_CSV, FAILURES_CSV, 5.0)
    assert report.errors == {"connect": 5, "read": 8, "write": 0, "timeout": 4, "status": 23}
    assert report.requests == 10000 - (5 + 8 + 4)
    assert report.good_requests == 10000 - (5 + 8 + 4) - 23
    assert report.rps == pytest.approx((10000 - 40) / 5.0)


def test_unlisted_failures_are_read_errors():
    """Failures of the Aggregated row missing from the failures CSV are counted, as read errors."""
    report = parse_stats(STATS_CSV, EMPTY_FAILURES, 5.0)  # Failure Count 40, none listed
    assert report.errors["read"] == 40
    assert report.requests == 10000 - 40


@pytest.mark.parametrize(
    "error, kind",
    [
        ("ConnectionRefusedError(111, 'Connection refused')", "connect"),
        ("gaierror(-2, 'Name or service not known')", "connect"),
        ("OSError(99, 'Cannot assign requested address')", "connect"),
        (
            "ConnectionError(MaxRetryError(\"NewConnectionError('Failed to establish a new connection: "
            "[Errno 111] Connection refused')\"))",
            "connect",
        ),
        ("<Timeout at 0x.... seconds=5.0>", "timeout"),
        ("TimeoutError('timed out')", "timeout"),
        ("LocustBadStatusCode(code=503)", "status"),
        ("CatchResponseError('/site/search?q=loop&page=1: HTTP status 404, expected 200')", "status"),
        ("CatchResponseError('/site/covers/1.jpg: Connection closed? got 12 bytes')", "status"),
        ("HTTPError('500 Server Error: INTERNAL SERVER ERROR for url: /x')", "status"),
        ("ConnectionResetError(104, 'Connection reset by peer')", "read"),
        ("HTTPConnectionClosed('connection closed.')", "read"),
        ("ConnectionError(ProtocolError('Connection aborted.', RemoteDisconnected('closed')))", "read"),
        ("BrokenPipeError(32, 'Broken pipe')", "write"),
        ("ValueError('something nobody expected')", "read"),
    ],
    ids=lambda v: v if v in ERROR_KEYS else None,
)
def test_classify_error(error, kind):
    """Each kind of locust failure text lands in its LoadReport error class; unknown ones are read errors."""
    assert classify_error(error) == kind


def test_empty_run_has_na_percentiles():
    """A run with no request (locust writes N/A percentiles) parses to zero requests and zero latencies."""
    text = STATS_HEADER + "\r\n" + ",Aggregated,0,0,0,0,0,0,0,0,0," + ",".join(["N/A"] * 11) + "\r\n"
    report = parse_stats(text, EMPTY_FAILURES, 5.0)
    assert report.requests == 0 and report.rps == 0.0
    assert set(report.latency_ms.values()) == {0.0}


def test_malformed_stats_csv_names_the_file():
    """A missing column, a missing Aggregated row or a bad number is a GeneratorError naming the file."""
    no_p999 = STATS_CSV.replace("99.9%", "p999")
    with pytest.raises(GeneratorError, match=r"run_stats\.csv is malformed: no column '99\.9%'"):
        parse_stats(no_p999, EMPTY_FAILURES, 5.0, stats_name="run_stats.csv")
    no_total = "\r\n".join(STATS_CSV.split("\r\n")[:3])
    with pytest.raises(GeneratorError, match=r"run_stats\.csv is malformed: 0 Aggregated rows"):
        parse_stats(no_total, EMPTY_FAILURES, 5.0, stats_name="run_stats.csv")
    bad_number = STATS_CSV.replace(",Aggregated,10000,40,11,12.00525", ",Aggregated,10000,40,11,twelve")
    with pytest.raises(GeneratorError, match=r"run_stats\.csv is malformed: 'Average Response Time'.*'twelve'"):
        parse_stats(bad_number, EMPTY_FAILURES, 5.0, stats_name="run_stats.csv")
    with pytest.raises(GeneratorError, match=r"run_stats\.csv is empty"):
        parse_stats("", EMPTY_FAILURES, 5.0, stats_name="run_stats.csv")


def test_malformed_failures_csv_names_the_file():
    """A failures CSV without its columns, or with a non-numeric count, is a GeneratorError naming it."""
    with pytest.raises(GeneratorError, match=r"run_failures\.csv is malformed: no column 'Occurrences'"):
        parse_stats(STATS_CSV, "Method,Name,Error\r\nGET,/x,boom\r\n", 5.0, failures_name="run_failures.csv")
    with pytest.raises(GeneratorError, match=r"run_failures\.csv is malformed: Occurrences 'many'"):
        parse_stats(STATS_CSV, FAILURES_HEADER + "\r\nGET,/x,boom,many,,\r\n", 5.0, failures_name="run_failures.csv")


def test_read_report_missing_file_names_it(tmp_path):
    """read_report says which CSV locust did not write."""
    (tmp_path / "run_stats.csv").write_text(STATS_CSV)
    with pytest.raises(GeneratorError, match=r"no run_failures\.csv"):
        read_report(tmp_path / "run", 5.0)
    (tmp_path / "run_failures.csv").write_text(FAILURES_CSV)
    assert read_report(tmp_path / "run", 5.0).errors["status"] == 23


def test_exceptions_in_the_locustfile_fail_the_run(tmp_path):
    """An exception raised by the locustfile's own code (in _exceptions.csv) is a GeneratorError, not a result."""
    (tmp_path / "run_stats.csv").write_text(STATS_CSV)
    (tmp_path / "run_failures.csv").write_text(FAILURES_CSV)
    (tmp_path / "run_exceptions.csv").write_text(
        EXCEPTIONS_HEADER + '\r\n3,"KeyError(\'title\')","Traceback (most recent call last): ...",local\r\n'
    )
    with pytest.raises(GeneratorError, match=r"raised 3 exception\(s\).*KeyError\('title'\)"):
        read_report(tmp_path / "run", 5.0)


def test_run_refuses_non_loopback_urls():
    """Load goes to loopback only: another host is refused before anything starts."""
    with pytest.raises(ConfigError, match="loopback"):
        LocustRunner().run("http://10.1.2.3:8000", 5)


# A stand-in for locust's master: writes the CSV files and exits, sending nothing.
FAKE_MASTER = textwrap.dedent("""
    import sys
    prefix = sys.argv[1]
    open(prefix + "_stats.csv", "w").write(sys.argv[2])
    open(prefix + "_failures.csv", "w").write(sys.argv[3])
    sys.exit(int(sys.argv[4]))
""")


class _FakeLocust(LocustRunner):
    """The driver's process handling with stand-in processes (no locust, no requests)."""

    worker_code: str = "import time; time.sleep(0.2)"
    master_csv: tuple = (STATS_CSV, FAILURES_CSV, "1")  # locust exits 1 when there were failures

    def argv_master(self, host_url, duration, csv_prefix, master_port=None, bind=None):
        return [sys.executable, "-c", FAKE_MASTER, str(csv_prefix), *self.master_csv]

    def argv_worker(self, master_port, master_host=None):
        return [sys.executable, "-c", self.worker_code]


def test_run_collects_master_and_worker_cpu():
    """Workers are reaped with wait4 after the master; cpu_s adds theirs to the master's."""
    report, run = _FakeLocust(workers=2).run("http://127.0.0.1:9", 5)
    assert report.requests == 10000 - 17 and report.duration_s == 5.0
    assert run.returncode == 1 and run.processes == 2
    assert run.worker_returncodes == (0, 0)
    assert len(run.worker_cpu_s) == 2 and all(c > 0 for c in run.worker_cpu_s)
    assert run.cpu_s == pytest.approx(run.master_cpu_s + sum(run.worker_cpu_s))
    assert run.wall_s > 0


def test_lingering_worker_is_terminated():
    """A worker still running after the linger time is sent SIGTERM and still reaped."""

    class Stuck(_FakeLocust):
        worker_code = "import time; time.sleep(60)"

    _, run = Stuck(workers=1, worker_linger_s=0.3).run("http://127.0.0.1:9", 5)
    assert run.worker_returncodes == (-15,)


def test_master_failure_is_a_generator_error():
    """A master that exits with a code other than 0 or 1 is a GeneratorError with its output."""

    class Broken(_FakeLocust):
        def argv_master(self, host_url, duration, csv_prefix, master_port=None, bind=None):
            return [sys.executable, "-c", "import sys; sys.stderr.write('no locustfile found'); sys.exit(2)"]

    with pytest.raises(GeneratorError, match="(?s)code 2.*no locustfile found"):
        Broken().run("http://127.0.0.1:9", 5)


def test_exit_code_1_without_failures_is_a_generator_error():
    """Exit code 1 with no failure recorded (e.g. the master gave up waiting for workers) is not a result."""

    class GaveUp(_FakeLocust):
        master_csv = (STATS_CSV.replace(",Aggregated,10000,40,", ",Aggregated,0,0,"), EMPTY_FAILURES, "1")

    with pytest.raises(GeneratorError, match="code 1 but recorded no failure"):
        GaveUp(workers=1).run("http://127.0.0.1:9", 5)


# Facts about the installed locust, gathered in a child process.
PROBE = textwrap.dedent("""
    import json, sys
    import locust.stats as stats
    from locust.argument_parser import get_parser

    driver_argv = json.loads(sys.argv[1])
    out = {"version": __import__("locust").__version__}
    csv_writer = stats.StatsCSV(None, stats.PERCENTILES_TO_REPORT)
    out["stats_header"] = ",".join(csv_writer.requests_csv_columns)
    out["failures_header"] = ",".join(csv_writer.failures_columns)
    out["exceptions_header"] = ",".join(csv_writer.exceptions_columns)
    parsed = {}
    for role, argv in driver_argv.items():
        opts = get_parser(default_config_files=[]).parse_args(argv[3:])
        parsed[role] = {k: getattr(opts, k) for k in ("headless", "num_users", "spawn_rate", "run_time", "host",
                        "csv_prefix", "only_summary", "loglevel", "stop_timeout", "master", "master_bind_host",
                        "master_bind_port", "expect_workers", "expect_workers_max_wait", "worker", "master_host",
                        "master_port", "locustfile")}
    out["parsed"] = parsed
    print("PROBE " + json.dumps(out))
""")


@pytest.fixture(scope="module")
def probe():
    """What the installed locust says about our argv and CSV headers."""
    driver = LocustRunner(users=8, spawn_rate=4, workers=2)
    argv = {
        "single": LocustRunner(users=8, spawn_rate=4).argv_master("http://127.0.0.1:21000", 7, "/tmp/p/run"),
        "master": driver.argv_master("http://127.0.0.1:21000", 7, "/tmp/p/run", master_port=20001),
        "worker": driver.argv_worker(20001),
    }
    return child_probe(PROBE, json.dumps(argv))


def test_csv_headers_match_installed_locust(probe):
    """The hand-written CSVs above carry exactly the installed locust's header rows."""
    assert probe["stats_header"] == STATS_HEADER
    assert probe["failures_header"] == FAILURES_HEADER
    assert probe["exceptions_header"] == EXCEPTIONS_HEADER


def test_installed_locust_accepts_the_argv(probe):
    """locust's own argument parser reads every flag the driver builds, with the intended values."""
    single, master, worker = probe["parsed"]["single"], probe["parsed"]["master"], probe["parsed"]["worker"]
    assert (single["headless"], single["num_users"], single["spawn_rate"], single["run_time"]) == (True, 8, 4, 7)
    assert (single["host"], single["csv_prefix"], single["only_summary"]) == (
        "http://127.0.0.1:21000",
        "/tmp/p/run",
        True,
    )
    assert (single["loglevel"], single["stop_timeout"], single["master"]) == ("WARNING", 2, False)
    assert (master["master"], master["master_bind_host"], master["master_bind_port"]) == (True, "127.0.0.1", 20001)
    assert (master["expect_workers"], master["expect_workers_max_wait"]) == (2, 30)
    assert (worker["worker"], worker["master_host"], worker["master_port"]) == (True, "127.0.0.1", 20001)
    assert single["locustfile"] == worker["locustfile"] == f"{BOOKSHOP},{GAPS}"


# locust's "Error report" as it prints it when it stops (locust/stats.py get_error_report_summary).
ERROR_REPORT = (
    "Error report\n"
    + f"{'# occurrences':18} {'Error':100}\n"
    + "-" * 18
    + "|"
    + "-" * 60
    + "\n"
    + "{:<18d} {:<100}\n".format(12, "GET /site/search?q=server&page=1: Timeout('timed out')")
    + "{:<18d} {:<100}\n".format(3, "GET /site/api/books: ConnectionRefusedError(111, 'Connection refused')")
    + "-" * 18
    + "|"
    + "-" * 60
    + "\n\n"
)


def test_printed_error_report_is_counted_by_class():
    """The error report locust prints as it stops is counted per error class; no report counts nothing."""
    errors = parse_error_report("Type Name # reqs\n" + ERROR_REPORT + "Shutting down (exit code 1)\n")
    assert errors == {**dict.fromkeys(ERROR_KEYS, 0), "timeout": 12, "connect": 3}
    assert parse_error_report("Shutting down (exit code 0)\n") == dict.fromkeys(ERROR_KEYS, 0)


def test_exit_code_1_with_printed_failures_is_a_measured_result():
    """Exit code 1 with failures only in locust's printed report (the CSV missed the last second) is a result."""

    class LateTimeouts(_FakeLocust):
        master_csv = (STATS_CSV.replace(",Aggregated,10000,40,", ",Aggregated,9000,0,"), EMPTY_FAILURES, "1")

        def argv_master(self, host_url, duration, csv_prefix, master_port=None, bind=None):
            argv = super().argv_master(host_url, duration, csv_prefix, master_port)
            return argv[:2] + [f"print({ERROR_REPORT!r})\n" + argv[2]] + argv[3:]

    report, run = LateTimeouts().run("http://127.0.0.1:9", 5)
    assert run.returncode == 1 and report.requests == 9000
    assert report.errors["timeout"] == 12 and report.errors["connect"] == 3 and report.error_rate > 0


# The shape of what locust 2.47 prints with --json as it stops (stats.print_stats_json: indent=4), two entries
# cut down from a real run (64 users, gunicorn-sync-w2, the book site), then its log and error report.
FINAL_ENTRIES = [
    {
        "name": "/site/thumbs/[n].jpg",
        "method": "GET",
        "last_request_timestamp": 1795597516.185123,
        "start_time": 1795597512.1124115,
        "num_requests": 6,
        "num_none_requests": 0,
        "num_failures": 0,
        "total_response_time": 345.0,
        "max_response_time": 98.4,
        "min_response_time": 22.0,
        "total_content_length": 18000,
        "response_times": {"22": 1, "39": 3, "98": 2},
    },
    {
        "name": "/site/search",
        "method": "GET",
        "last_request_timestamp": 1795597516.112679,
        "start_time": 1795597512.185909,
        "num_requests": 4,
        "num_none_requests": 0,
        "num_failures": 1,
        "total_response_time": 200.0,
        "max_response_time": 56.0,
        "min_response_time": 37.0,
        "total_content_length": 1600,
        "response_times": {"37": 1, "52": 1, "56": 2},
    },
]
FINAL_OUTPUT = json.dumps(FINAL_ENTRIES, indent=4) + "\n[2026-11-25 09:05:22] WARNING/locust.main: Shutting down\n"


def test_final_statistics_are_found_in_locust_output():
    """The JSON array printed with --json is read out of the output; an output without one gives None."""
    assert parse_final(FINAL_OUTPUT) == {"entries": FINAL_ENTRIES}
    assert parse_final("Error report\n[not json\n") is None


def test_final_statistics_replace_the_csv_counts_latencies_and_window():
    """Counts, mean, percentiles, bytes and the first-to-last-answer window come from the final statistics."""
    csv_report = dataclasses.replace(
        parse_stats(STATS_CSV, FAILURES_CSV, 5.0), errors={**dict.fromkeys(ERROR_KEYS, 0), "timeout": 1}
    )
    report = with_final(csv_report, parse_final(FINAL_OUTPUT))
    assert report.requests == 10 - 1 and report.errors == csv_report.errors  # a timeout got no answer
    assert report.latency_ms["mean"] == pytest.approx(54.5)
    assert (report.latency_ms["p50"], report.latency_ms["p99"], report.latency_ms["max"]) == (39.0, 98.0, 98.4)
    assert report.bytes == 19600
    assert report.duration_s == pytest.approx(1795597516.185123 - 1795597512.1124115)


def test_final_statistics_without_requests_leave_the_report_alone():
    """A run that answered nothing keeps the CSV's report (its duration is the run's)."""
    report = parse_stats(STATS_CSV, FAILURES_CSV, 5.0)
    empty = {"entries": [dict(FINAL_ENTRIES[0], num_requests=0, response_times={})]}
    assert with_final(report, empty) == report


def test_think_time_is_the_bookshop_visitors_wait_and_unknown_for_another_locustfile(tmp_path):
    """SERVERBENCH_LOCUST_WAIT seconds become ms for the bookshop visitor; another locustfile's wait is unknown."""
    from serverbench.drivers.locust import think_ms

    assert think_ms(BOOKSHOP, {}) == 0.0
    assert think_ms(BOOKSHOP, {"SERVERBENCH_LOCUST_WAIT": "0.25"}) == 250.0
    assert think_ms(BOOKSHOP, {"SERVERBENCH_LOCUST_WAIT": "soon"}) is None
    assert think_ms(tmp_path / "other.py", {}) is None


def _final(*entries, **changes):
    """locust's final statistics of these entries (each FINAL_ENTRIES[0] with the given keys replaced)."""
    return {"entries": [dict(FINAL_ENTRIES[0], **{**changes, **e}) for e in entries]}


def _csv_report(duration_s=5.0, **errors):
    return dataclasses.replace(
        parse_stats(STATS_CSV, EMPTY_FAILURES, duration_s), errors={**dict.fromkeys(ERROR_KEYS, 0), **errors}
    )


def test_final_percentiles_are_the_nearest_rank_of_every_bucket():
    """Of 10,000 answers in locust's buckets, p50, p75, p90, p99 and p99.9 are the values at ranks 5,000, 7,500,
    9,000, 9,900 and 9,991 (not the maximum); of two answers p50 is the first and p99 the second."""
    counts = {"1": 5000, "2": 1, "3": 2499, "4": 1, "5": 1499, "6": 1, "7": 899, "8": 1, "9": 95, "10": 4}
    report = with_final(_csv_report(), _final({"num_requests": 10000, "response_times": counts}))
    assert {k: report.latency_ms[k] for k in ("p50", "p75", "p90", "p99", "p999")} == {
        "p50": 1.0,
        "p75": 3.0,
        "p90": 5.0,
        "p99": 7.0,
        "p999": 9.0,
    }
    two = with_final(_csv_report(), _final({"num_requests": 2, "response_times": {"10": 1, "20": 1}}))
    assert (two.latency_ms["p50"], two.latency_ms["p99"]) == (10.0, 20.0)


def test_final_buckets_of_the_same_time_add_up_across_entries():
    """Two entries' answers at 10 ms are one bucket of 4 beside 4 at 20 ms: p50 is 10 ms."""
    report = with_final(
        _csv_report(),
        _final(
            {"num_requests": 3, "response_times": {"10": 3}}, {"num_requests": 5, "response_times": {"10": 1, "20": 4}}
        ),
    )
    assert report.latency_ms["p50"] == 10.0 and report.latency_ms["p90"] == 20.0


def test_final_stdev_is_that_of_the_buckets_around_the_mean():
    """One answer at 10 ms and three at 30 ms (mean 25 ms): the standard deviation is sqrt(75) ms."""
    report = with_final(
        _csv_report(), _final({"num_requests": 4, "total_response_time": 100.0, "response_times": {"10": 1, "30": 3}})
    )
    assert report.latency_ms["mean"] == 25.0 and report.latency_ms["stdev"] == pytest.approx(75**0.5)


def test_final_statistics_without_buckets_report_zero_latencies():
    """Entries that counted requests but kept no response-time bucket give zero percentiles and stdev, not an error."""
    report = with_final(_csv_report(), _final({"num_requests": 3, "response_times": {}}))
    assert {k: report.latency_ms[k] for k in ("p50", "p75", "p90", "p99", "p999", "stdev")} == dict.fromkeys(
        ("p50", "p75", "p90", "p99", "p999", "stdev"), 0.0
    )


def test_final_requests_bytes_and_window_at_their_edges():
    """Every request unanswered leaves 0 requests; an entry without content length adds 0 bytes; a window of one
    instant, or with no answer at all, keeps the run's duration, while a 0.5 s window is used as it is."""
    gone = with_final(_csv_report(timeout=4), _final({"num_requests": 4, "total_content_length": None}))
    assert gone.requests == 0 and gone.bytes == 0
    instant = _final({"num_requests": 1, "start_time": 100.0, "last_request_timestamp": 100.0})
    assert with_final(_csv_report(), instant).duration_s == 5.0
    half = _final({"num_requests": 1, "start_time": 100.0, "last_request_timestamp": 100.5})
    assert with_final(_csv_report(), half).duration_s == 0.5
    unanswered = _final({"num_requests": 2, "last_request_timestamp": None})
    assert with_final(_csv_report(), unanswered).duration_s == 5.0


def test_final_statistics_are_found_after_other_output_and_other_lists():
    """The entries are the first JSON array of objects with "num_requests": lines before it, text that is not JSON,
    a list of numbers or of other objects are passed over."""
    output = 'starting\n[not json\n[1, 2]\n[{"name": "x"}]\n' + FINAL_OUTPUT
    assert parse_final(output) == {"entries": FINAL_ENTRIES}


def test_printed_error_report_rows_add_up_and_stop_at_the_closing_separator():
    """Two rows of one class add up; rows are read between the two separators after the title (with or without a
    header line); a numbered line after the closing separator is not a row."""
    sep = "-" * 18 + "|" + "-" * 60
    table = f"Error report\n{sep}\n12   Timeout('timed out')\n5    <Timeout at 0x1>\n{sep}\n7    TimeoutError()\n"
    assert parse_error_report(table)["timeout"] == 17
    assert parse_error_report(ERROR_REPORT + "7    TimeoutError()\n")["timeout"] == 12


def test_an_exceptions_row_without_a_number_counts_as_one():
    """A row of the exceptions CSV whose Count is not a number is one exception; numbered rows count their number."""
    from serverbench.drivers.locust import check_exceptions

    with pytest.raises(GeneratorError, match=r"raised 1 exception\(s\) during the run \(locust's exceptions CSV\)"):
        check_exceptions(EXCEPTIONS_HEADER + "\r\n?,boom,tb,local\r\n")
    with pytest.raises(GeneratorError, match=r"raised 4 exception\(s\)"):
        check_exceptions(EXCEPTIONS_HEADER + "\r\n3,boom,tb,local\r\n,bang,tb,local\r\n")
    with pytest.raises(GeneratorError, match=r"^locust's run_exceptions\.csv is empty"):
        check_exceptions("", "run_exceptions.csv")


def test_each_csv_is_named_by_default_in_its_error():
    """Called without file names, the parsers name the stats, failures and exceptions CSV in their errors."""
    with pytest.raises(GeneratorError, match=r"^locust's stats CSV is empty"):
        parse_stats("", EMPTY_FAILURES, 5.0)
    with pytest.raises(GeneratorError, match=r"^locust's failures CSV is empty"):
        parse_stats(STATS_CSV, "", 5.0)
    with pytest.raises(GeneratorError, match=r"^locust's failures CSV is empty"):
        parse_failures("")


def test_read_report_names_the_file_each_error_is_in(tmp_path):
    """A malformed stats, failures or exceptions file is named by its file name in the error."""
    prefix = tmp_path / "run"
    (tmp_path / "run_stats.csv").write_text(STATS_CSV.replace("2220.8", "big"))
    (tmp_path / "run_failures.csv").write_text(FAILURES_CSV)
    with pytest.raises(GeneratorError, match=r"^locust's run_stats\.csv is malformed: 'Average Content Size'.*'big'"):
        read_report(prefix, 5.0)
    (tmp_path / "run_stats.csv").write_text(STATS_CSV)
    (tmp_path / "run_failures.csv").write_text("Method,Name\r\n")
    with pytest.raises(GeneratorError, match=r"^locust's run_failures\.csv is malformed: no column 'Error'"):
        read_report(prefix, 5.0)
    (tmp_path / "run_failures.csv").write_text(FAILURES_CSV)
    (tmp_path / "run_exceptions.csv").write_text(EXCEPTIONS_HEADER + "\r\n1,KeyError('x'),tb,local\r\n")
    with pytest.raises(GeneratorError, match=r"\(locust's run_exceptions\.csv\); the first: KeyError\('x'\)"):
        read_report(prefix, 5.0)


def test_numbers_of_the_aggregated_row_must_be_finite_and_not_negative():
    """A negative or infinite latency, an empty size, or N/A where requests were counted is malformed; an empty run
    may write N/A in any number column."""
    for bad, shown in (("-1", "'-1'"), ("inf", "'inf'")):
        with pytest.raises(GeneratorError, match=f"'Max Response Time' of the Aggregated row is {shown}"):
            parse_stats(STATS_CSV.replace(",0.5,95.2,2220.8,", f",0.5,{bad},2220.8,"), EMPTY_FAILURES, 5.0)
    with pytest.raises(GeneratorError, match="'Average Content Size' of the Aggregated row is '', not a number"):
        parse_stats(STATS_CSV.replace(",95.2,2220.8,", ",95.2,,"), EMPTY_FAILURES, 5.0)
    with pytest.raises(GeneratorError, match="'Max Response Time' of the Aggregated row is 'N/A', not a number"):
        parse_stats(STATS_CSV.replace(",0.5,95.2,2220.8,", ",0.5,N/A,2220.8,"), EMPTY_FAILURES, 5.0)
    empty = STATS_HEADER + "\r\n" + ",Aggregated,0,0,0,0,0,N/A,N/A,0,0," + ",".join(["N/A"] * 11) + "\r\n"
    report = parse_stats(empty, EMPTY_FAILURES, 5.0)
    assert report.bytes == 0 and report.latency_ms["max"] == 0.0


def test_only_the_untyped_row_named_aggregated_is_the_total():
    """A request named "Aggregated" (typed GET) and an untyped row of another name are not the total row."""
    rows = STATS_CSV.split("\r\n")
    extra = ["GET,Aggregated" + rows[1][len("GET,/site/search") :], "," + rows[1][len("GET,") :]]
    report = parse_stats("\r\n".join(rows[:3] + extra + rows[3:]), EMPTY_FAILURES, 5.0)
    assert report.requests == 10000 - 40


def test_unlisted_failures_add_to_the_listed_read_errors_and_every_unanswered_kind_is_subtracted():
    """Failure Count 50 with 40 listed (8 read): read becomes 8 + 10; a listed broken pipe (write) is no answer too."""
    failures = FAILURES_CSV + "GET,/x,\"BrokenPipeError(32, 'Broken pipe')\",2,,\r\n"
    report = parse_stats(STATS_CSV.replace(",Aggregated,10000,40,", ",Aggregated,10000,52,"), failures, 5.0)
    assert report.errors == {"connect": 5, "read": 8 + 10, "write": 2, "timeout": 4, "status": 23}
    assert report.requests == 10000 - (5 + 18 + 2 + 4)


def test_the_final_p999_of_a_thousand_answers_is_the_999th_not_the_maximum():
    """99.9% of 1,000 answers is rank 999: with 999 at 10 ms and 1 at 20 ms, p99.9 is 10 ms (the float noise of
    99.9 / 100 * 1000 made it 1000, the maximum)."""
    report = with_final(_csv_report(), _final({"num_requests": 1000, "response_times": {"10": 999, "20": 1}}))
    assert report.latency_ms["p999"] == 10.0


def test_a_final_rank_between_two_answers_is_the_next_one_up():
    """p50 of 5 answers (1 to 5 ms) is the 3rd (2.5 goes up, not to the even 2) and p90 the 5th (4.5 up, not 4)."""
    times = {str(v): 1 for v in range(1, 6)}
    report = with_final(_csv_report(), _final({"num_requests": 5, "response_times": times}))
    assert (report.latency_ms["p50"], report.latency_ms["p90"]) == (3.0, 5.0)


def test_the_final_p999_rank_is_exact_for_hundreds_of_thousands_of_answers():
    """99.9% of 328,000 answers is rank 327,672 exactly (rounding q% of n in floating point to 10 places gave 327,673)."""
    times = {"10": 327_672, "20": 328}
    report = with_final(_csv_report(), _final({"num_requests": 328_000, "response_times": times}))
    assert report.latency_ms["p999"] == 10.0


def test_a_final_rank_just_above_a_whole_number_goes_up():
    """99.9% of 1,999 answers is 1,997.001: rank 1,998, so with 1,997 answers at 10 ms and 2 at 20 ms p99.9 is 20 ms."""
    report = with_final(_csv_report(), _final({"num_requests": 1999, "response_times": {"10": 1997, "20": 2}}))
    assert report.latency_ms["p999"] == 20.0


def test_the_users_gaps_are_summed_over_every_process_that_wrote_one(tmp_path):
    """Two workers' files (10 gaps over 0.05 s, 30 over 0.35 s) give a mean gap of 10 ms a request; no file is no
    measurement; an unreadable file is a GeneratorError naming it and the module that writes it."""
    from serverbench.drivers.locust import mean_gap_ms

    (tmp_path / "gaps-1.json").write_text(json.dumps({"pairs": 10, "gap_s": 0.05}))
    (tmp_path / "gaps-2.json").write_text(json.dumps({"pairs": 30, "gap_s": 0.35}))
    assert abs(mean_gap_ms(tmp_path.glob("gaps-*.json")) - 10.0) < 1e-9
    assert mean_gap_ms([]) is None
    (tmp_path / "gaps-3.json").write_text('{"pairs": 3')
    with pytest.raises(GeneratorError, match=r"gaps-3.json: locust's gap file is unreadable .*gaps.py"):
        mean_gap_ms(tmp_path.glob("gaps-*.json"))


def test_the_users_answered_add_up_over_the_processes_files(tmp_path):
    """answered_users: the users each process had answered, summed; no file, or one written before the count, None."""
    from serverbench.drivers.locust import answered_users

    (tmp_path / "gaps-1.json").write_text('{"pairs": 3, "gap_s": 1.0, "users": 20}')
    (tmp_path / "gaps-2.json").write_text('{"pairs": 0, "gap_s": 0.0, "users": 4}')
    assert answered_users(sorted(tmp_path.glob("gaps-*.json"))) == 24
    assert answered_users([]) is None
    (tmp_path / "gaps-3.json").write_text('{"pairs": 3, "gap_s": 1.0}')
    assert answered_users(sorted(tmp_path.glob("gaps-*.json"))) is None


# Merged from test_mutation_locust.py: The locust driver's wiring with stand-in processes (issue 22, mutation
# survivors of drivers.locust): what the runner is told, which port, timeout and cores its processes get, what it
# reports, and the error of a failed run. No locust runs and no request is sent.
def _recording(monkeypatch, base=_FakeLocust, prints=""):
    """A stand-in runner whose calls are recorded: argv_master's and argv_worker's arguments, run_generator's
    timeout and cores, each worker's cores.  ``prints``: Python run by the master before it writes its CSVs."""
    seen = []

    class Recording(base):
        def argv_master(self, host_url, duration, csv_prefix, master_port=None, bind=None):
            seen.append(("master", host_url, duration, Path(csv_prefix), master_port))
            argv = super().argv_master(host_url, duration, csv_prefix, master_port)
            return argv[:2] + [prints + "\n" + argv[2]] + argv[3:]

        def argv_worker(self, master_port, master_host=None):
            seen.append(("worker", master_port))
            return super().argv_worker(master_port)

    real_run, real_start = places_module.run_generator, BackgroundProcess.start.__func__

    def gaps_folder(env, main_thread):
        # every process writes its users' gaps beside the run's files (the CSV prefix's folder), sampled on its users'
        # (main) thread
        run_dir = next(entry[3] for entry in seen if entry[0] == "master").parent
        assert main_thread is True and Path(env[locust_module.GAPS_ENV]) == run_dir
        assert {k: v for k, v in env.items() if k != locust_module.GAPS_ENV} == dict(os.environ)

    def run_generator(argv, timeout, cpus=None, env=None, main_thread=False):
        seen.append(("run_generator", timeout, cpus))
        gaps_folder(env, main_thread)
        return real_run(argv, timeout=timeout, cpus=cpus, env=env)

    def start(cls, argv, log, cpus=None, env=None, main_thread=False):
        seen.append(("start", cpus))
        assert Path(log).parent == Path(env[locust_module.GAPS_ENV]) and main_thread is True
        return real_start(cls, argv, log, cpus, env)

    monkeypatch.setattr(places_module, "run_generator", run_generator)
    monkeypatch.setattr(BackgroundProcess, "start", classmethod(start))
    return Recording, seen


def test_the_driver_tells_the_runner_its_users_spawn_rate_workers_and_locustfile(monkeypatch, tmp_path):
    """Users spawn at once without a ramp, over the ramp (at least 1 a second) with one; the URL, duration and cores
    reach the run; the report carries the bookshop visitor's think time (none known for another locustfile)."""
    calls = []
    report = dataclasses.replace(parse_stats(STATS_CSV, EMPTY_FAILURES, 3.0), think_ms=None)

    def run(self, url, duration, cpus=None):
        calls.append((self.users, self.spawn_rate, self.workers, self.locustfile, url, duration, cpus))
        return report, "the run"

    monkeypatch.setattr(LocustRunner, "run", run)
    monkeypatch.setenv(WAIT_ENV, "0.25")
    got, the_run = LocustDriver(workers=2).run("http://127.0.0.1:9", LoadShape(10, 3), cpus=[1])
    assert calls[-1] == (10, 10, 2, BOOKSHOP, "http://127.0.0.1:9", 3 + START_S, [1])  # and locust's own start
    assert got.think_ms == 250.0 and the_run == "the run" and got.requests == report.requests
    LocustDriver().run("u", LoadShape(10, 3, ramp=4.0))
    assert calls[-1][:3] == (10, 3, 0)  # ceil(10 / 4)
    LocustDriver().run("u", LoadShape(10, 3, ramp=20.0))
    assert calls[-1][1] == 1
    other = tmp_path / "other.py"
    got, _ = LocustDriver(locustfile=other).run("u", LoadShape(10, 3))
    assert calls[-1][3] == other and got.think_ms is None


def test_the_driver_check_finds_locust_or_names_its_install(monkeypatch):
    """With locust importable the check passes; without it, it is a missing tool naming locust and its install."""
    LocustDriver().check()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "locust" else real(name, *a))
    with pytest.raises(MissingBinaryError, match="locust"):
        LocustDriver().check()


def test_one_user_spawned_one_a_second_is_a_valid_runner():
    """The smallest shape, 1 user at 1 a second, is accepted."""
    runner = LocustRunner(users=1, spawn_rate=1)
    assert (runner.users, runner.spawn_rate) == (1, 1)


def test_only_loopback_http_and_https_urls_are_driven():
    """An https loopback URL runs; another scheme on loopback is refused."""
    report, _ = _FakeLocust().run("https://127.0.0.1:9", 5)
    assert report.requests == 10000 - 17
    with pytest.raises(ConfigError, match="loopback http URLs only"):
        _FakeLocust().run("ftp://127.0.0.1:9", 5)


def test_the_master_gets_the_host_the_duration_a_csv_prefix_and_its_workers_port(monkeypatch):
    """The master is told the URL's scheme, host and port (not its path), the duration and a CSV prefix "run" in a
    serverbench-locust- folder, and a free port its worker is told too; it runs within duration + stop timeout +
    worker wait + 60 s on the cores given, as the worker does; the run returns the master's argv and output."""
    runner, seen = _recording(monkeypatch, prints="import sys; print('out'); sys.stderr.write('err')")
    report, run = runner(workers=1).run("http://127.0.0.1:9/site/x", 5, cpus=[0])
    (master,) = [s for s in seen if s[0] == "master"]
    (worker,) = [s for s in seen if s[0] == "worker"]
    assert master[1:3] == ("http://127.0.0.1:9", 5) and master[3].name == "run"
    assert master[3].parent.name.startswith("serverbench-locust-")
    assert isinstance(master[4], int) and master[4] > 0 and worker == ("worker", master[4])
    assert ("run_generator", 5 + 2 + 30 + 60, [0]) in seen and ("start", [0]) in seen
    assert run.argv[:2] == (sys.executable, "-c") and run.argv[3] == str(master[3])
    assert run.stdout == "out\n" and run.stderr == "err" and report.requests == 10000 - 17


def test_a_single_process_run_needs_no_port(monkeypatch):
    """Without workers no port is taken: the master is told none."""
    runner, seen = _recording(monkeypatch)
    runner().run("http://127.0.0.1:9", 5)
    assert [s[4] for s in seen if s[0] == "master"] == [None]


def test_the_final_statistics_printed_by_the_master_make_the_report(monkeypatch):
    """A master that prints its final statistics (--json): the report's requests and bytes are theirs, not the CSV's."""
    runner, _ = _recording(monkeypatch, prints=f"print({FINAL_OUTPUT!r})")

    class Clean(runner):
        master_csv = (STATS_CSV.replace(",Aggregated,10000,40,", ",Aggregated,10000,0,"), EMPTY_FAILURES, "0")

    report, run = Clean().run("http://127.0.0.1:9", 5)
    assert run.returncode == 0 and report.requests == 10 and report.bytes == 19600


# A sender that works for its users' window: it burns ``burn`` seconds of CPU (or sleeps them) between two wall-clock
# readings, writes its users' gaps where the driver asked, and (the master) prints final statistics over that window.
WINDOWED = """
import json, os, time
t0 = time.time()
end = time.process_time() + {burn}
while {busy} and time.process_time() < end:
    pass
time.sleep(0 if {busy} else {burn})
t1 = time.time()
with open(os.path.join(os.environ[{env!r}], "gaps-%d.json" % os.getpid()), "w") as f:
    json.dump({{"pairs": {pairs}, "gap_s": {gap_s}}}, f)
entries = json.loads({entries!r})
for e in entries:
    e["start_time"], e["last_request_timestamp"] = t0, t1
if {master}:
    print(json.dumps(entries))
"""


def _windowed(burn: float, busy: bool, pairs: int, gap_s: float, master: bool) -> str:
    return WINDOWED.format(
        burn=burn,
        busy=busy,
        env=locust_module.GAPS_ENV,
        pairs=pairs,
        gap_s=gap_s,
        entries=json.dumps(FINAL_ENTRIES),
        master=master,
    )


class _Clean(_FakeLocust):
    master_csv = (STATS_CSV.replace(",Aggregated,10000,40,", ",Aggregated,10000,0,"), EMPTY_FAILURES, "0")


def test_one_process_gives_its_users_gaps_and_its_run_queue_over_their_window(monkeypatch):
    """One locust process that computes for 0.6 s of its users' window and wrote 4 gaps over 10 ms: gap_ms 2.5, and
    its run queue covers the window (at most its length, runnable through it), not its whole run."""
    runner, _ = _recording(monkeypatch, base=_Clean, prints=_windowed(0.6, True, 4, 0.01, True))
    report, run = runner().run("http://127.0.0.1:9", 5)
    assert report.gap_ms == pytest.approx(2.5)
    assert run.run_queue is not None and 0 < run.run_queue.wall_s <= report.duration_s
    assert run.run_queue.cpu_s + run.run_queue.wait_s >= 0.8 * run.run_queue.wall_s  # runnable: on a core or waiting


def test_with_workers_the_run_queue_and_gaps_are_the_workers(monkeypatch):
    """A master that sleeps through its users' window while its one worker computes: the run queue is the worker's
    (runnable through the window), and the gaps are summed over the files every process wrote (3 + 1 over 8 ms)."""

    class Busy(_Clean):
        worker_code = _windowed(1.5, True, 3, 0.006, False)

    runner, _ = _recording(
        monkeypatch, base=Busy, prints="import time; time.sleep(0.3)\n" + _windowed(0.6, False, 1, 0.002, True)
    )
    report, run = runner(workers=1).run("http://127.0.0.1:9", 5)
    assert report.gap_ms == pytest.approx(2.0)
    assert run.run_queue is not None and run.run_queue.cpu_s + run.run_queue.wait_s >= 0.8 * run.run_queue.wall_s > 0


def test_the_csv_failures_stay_when_locust_also_printed_an_error_report(monkeypatch):
    """Exit code 1 with failures in the CSV: the printed error report does not replace them."""
    runner, _ = _recording(monkeypatch, prints=f"print({ERROR_REPORT!r})")
    report, run = runner().run("http://127.0.0.1:9", 5)
    assert run.returncode == 1
    assert dict(report.errors) == {"connect": 5, "read": 8, "write": 0, "timeout": 4, "status": 23}


def test_a_failed_master_names_the_workers_that_failed_or_logged_an_error():
    """A master exiting 2 is an error ending with the last 300 characters of each worker that exited non-zero or
    whose output says "Error", in order; a clean worker is left out."""
    codes = iter(
        [
            "import sys; sys.stdout.write('x' * 400 + 'END'); sys.exit(3)",
            "print('ConnectionError: gave up')",
            "print('fine')",
        ]
    )

    class Failing(_FakeLocust):
        master_csv = (STATS_CSV, FAILURES_CSV, "2")

        def argv_worker(self, master_port, master_host=None):
            return [sys.executable, "-c", next(codes)]

    with pytest.raises(GeneratorError) as err:
        Failing(workers=3).run("http://127.0.0.1:9", 5)
    assert str(err.value).startswith("locust exited with code 2: ")
    assert str(err.value).endswith(
        "\nworker 0 (exit 3): " + ("x" * 400 + "END")[-300:] + "\nworker 1 (exit 0): ConnectionError: gave up\n"
    )


# Issue 35, item 6: the users no answer reached, and the run queue over the users' window only.
def _gaps_with_users(users: int) -> str:
    """Python for a stand-in master: the gap file a locust process writes, naming how many users it had answered."""
    return (
        "import json, os\n"
        f"json.dump({{'pairs': 2, 'gap_s': 0.01, 'users': {users}}}, "
        f"open(os.path.join(os.environ[{locust_module.GAPS_ENV!r}], 'gaps-1.json'), 'w'))"
    )


class _ThreeAnswered(_Clean):
    """A stand-in master whose gap file names 3 users answered."""

    def argv_master(self, host_url, duration, csv_prefix, master_port=None, bind=None):
        argv = super().argv_master(host_url, duration, csv_prefix, master_port)
        return argv[:2] + [_gaps_with_users(3) + "\n" + argv[2]] + argv[3:]


def test_the_users_no_answer_reached_are_held_through_the_run():
    """The gap files name 3 users answered: of 5 users 2 were held through; of 2 or 3 (no more users than answered)
    none; no gap file with the count leaves it unknown (None)."""
    for users, held in ((5, 2), (2, 0), (3, 0)):
        report, _ = _ThreeAnswered(users=users).run("http://127.0.0.1:9", 5)
        assert report.held_through == held and report.gap_ms == pytest.approx(5.0), users
    assert _Clean(users=5).run("http://127.0.0.1:9", 5)[0].held_through is None


def test_the_run_queue_is_the_users_window_not_the_whole_run(monkeypatch):
    """A master that sleeps 0.25 s before its users' window, computes 0.3 s in it and sleeps 0.25 s after: its run
    queue spans the window, not the sleeps around it, and is runnable through it."""
    prints = "import time; time.sleep(0.25)\n" + _windowed(0.3, True, 4, 0.01, True) + "\ntime.sleep(0.25)"
    runner, _ = _recording(monkeypatch, base=_Clean, prints=prints)
    _, run = runner().run("http://127.0.0.1:9", 5)
    queue = run.run_queue
    assert queue is not None and 0 < queue.wall_s <= run.wall_s - 0.4
    assert queue.cpu_s + queue.wait_s >= 0.8 * queue.wall_s


def test_locust_sized_to_any_cell_is_itself():
    """A scenario's users have no timeout, lead-in or trail of ours to size: the same driver on a queued cell too."""
    from serverbench.catalog.variants import registry
    from serverbench.catalog.workloads import WORKLOADS
    from serverbench.drivers.base import CellLoad

    driver = LocustDriver(workers=2)
    load = CellLoad(registry()["meinheld"], WORKLOADS["upstream"], LoadShape(48, 7, workers=2), warmup_s=1, warm=True)
    assert driver.sized(load) is driver
