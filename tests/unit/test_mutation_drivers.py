"""The drivers' run(): the command, the script and the error of a failed run, with the generator process
replaced by a canned one (issue 22, mutation survivors of drivers.wrk and drivers.oha; no load is sent)."""

from pathlib import Path

import pytest

from serverbench.catalog.contract import Request
from serverbench.catalog.shapes import LoadShape
from serverbench.drivers import oha as oha_module
from serverbench.drivers import wrk as wrk_module
from serverbench.drivers.oha import OhaDriver
from serverbench.drivers.wrk import REPORTER, WrkDriver
from serverbench.errors import GeneratorError
from serverbench.processes.executors import GeneratorRun

WRK_LINE = (
    'SERVERBENCH-WRK {"requests":10,"duration_us":2000000,"bytes":100,"synthetic_removed":0,"latency_us":{"p50":1000,"p75":1000,'
    '"p90":1000,"p99":1000,"p999":1000,"max":1000,"mean":1000,"stdev":0},"errors":{"connect":0,"read":0,'
    '"write":0,"timeout":0,"status":0}}\n'
)
OHA_JSON = (
    '{"summary": {"total": 2.0, "slowest": 0.001, "average": 0.001, "totalData": 100}, '
    '"latencyPercentiles": {"p50": 0.001, "p75": 0.001, "p90": 0.001, "p99": 0.001, "p99.9": 0.001}, '
    '"statusCodeDistribution": {"200": 10}, "errorDistribution": {}}'
)


def _fake(monkeypatch, module, stdout, returncode=0, stderr=""):
    """Replace the module's run_generator; returns the calls it saw (argv, timeout, cpus, the script's text)."""
    calls = []

    def run_generator(argv, timeout, cpus=None, env=None):
        script = next((Path(a).read_text() for a in argv if a.endswith(".lua")), None)
        body = next((Path(argv[i + 1]).read_bytes() for i, a in enumerate(argv) if a == "-D"), None)
        calls.append({"argv": list(argv), "timeout": timeout, "cpus": cpus, "script": script, "body": body, "env": env})
        return GeneratorRun(tuple(argv), returncode, stdout, stderr, 1.0, 0.5)

    monkeypatch.setattr(module, "run_generator", run_generator)
    return calls


def _wrk():
    driver = WrkDriver(threads=2, timeout_s=4)
    driver.__dict__["binary"] = "wrk"  # the cached lookup: no wrk needed
    return driver


def _oha():
    driver = OhaDriver(timeout_s=4, lead_s=2, trail_s=1)  # whole seconds: the figures below are easy to follow
    driver.__dict__["binary"] = "oha"
    return driver


def test_wrk_plain_run_uses_the_reporter_and_a_bounded_timeout(monkeypatch):
    """A plain GET keep-alive run uses the reporter script alone (told -c and --timeout, to undo wrk's
    coordinated-omission samples), timeout duration + per-request timeout + 30 s."""
    calls = _fake(monkeypatch, wrk_module, WRK_LINE)
    report, run = _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2), cpus=[1])
    assert report.requests == 10 and run.returncode == 0
    (call,) = calls
    assert call["argv"][:6] == ["wrk", "-t2", "-c8", "-d2s", "--timeout=4s", "-s"]
    assert call["argv"][6].endswith(".lua") and call["argv"][7:] == ["http://127.0.0.1:1/json"]
    assert call["script"] == "local connections, timeout_us = 8, 4000000\n" + REPORTER.read_text()
    assert call["timeout"] == 2 + 4 + 30 and call["cpus"] == [1]


def test_wrk_with_requests_per_connection_writes_a_script_for_the_urls_path_and_query(monkeypatch):
    """A shape that closes connections gets a request script for the URL's path and query, then the reporter."""
    calls = _fake(monkeypatch, wrk_module, WRK_LINE)
    _wrk().run("http://127.0.0.1:1/sleep?ms=5", LoadShape(8, 2, requests_per_connection=3))
    script = calls[0]["script"]
    assert 'local paths = {"/sleep?ms=5"}' in script and "local per_connection = 3" in script
    assert script.endswith(REPORTER.read_text())
    _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2, requests_per_connection=1))
    assert 'local paths = {"/json"}' in calls[1]["script"]


def test_wrk_with_a_mix_or_a_request_writes_a_script(monkeypatch):
    """A URL mix, or a request with a method, writes the request script (the mix's paths, the method)."""
    calls = _fake(monkeypatch, wrk_module, WRK_LINE)
    _wrk().run("http://127.0.0.1:1/", LoadShape(8, 2), mix=[("/a", 2), ("/b", 1)])
    assert 'local paths = {"/a", "/a", "/b"}' in calls[0]["script"]
    _wrk().run("http://127.0.0.1:1/x", LoadShape(8, 2), request=Request("POST"))
    assert 'local method, body = "POST", nil' in calls[1]["script"]


def test_wrk_failed_run_is_an_error_with_the_end_of_its_output(monkeypatch):
    """wrk exiting non-zero is a GeneratorError with its exit code and the last 500 characters it printed."""
    _fake(monkeypatch, wrk_module, "out", returncode=3, stderr="x" * 600 + "the end")
    with pytest.raises(GeneratorError) as err:
        _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2))
    assert str(err.value) == "wrk exited with code 3: " + ("x" * 600 + "the end")[-500:]
    _fake(monkeypatch, wrk_module, "only stdout", returncode=1)
    with pytest.raises(GeneratorError, match="wrk exited with code 1: only stdout$"):
        _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2))


def test_wrk_uses_no_more_threads_than_connections():
    """Two threads for one connection would leave one idle: wrk gets one."""
    assert _wrk().argv("u", 1, 2, Path("s.lua"))[1] == "-t1" and _wrk().argv("u", 8, 2, Path("s.lua"))[1] == "-t2"


def test_oha_open_model_run_holds_the_rate_and_writes_the_body(monkeypatch):
    """At a rate, oha runs once with -q, the request's method and headers, and the body from a file."""
    calls = _fake(monkeypatch, oha_module, OHA_JSON)
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
    _fake(monkeypatch, oha_module, "", returncode=2, stderr="bad url")
    with pytest.raises(GeneratorError, match="^oha exited with code 2: bad url$"):
        _oha().run("u", LoadShape(8, 2, rate=10.0))
    with pytest.raises(GeneratorError, match="^oha exited with code 2: bad url$"):
        _oha().run("u", LoadShape(8, 2))


def test_oha_closed_run_reports_the_window_from_its_rows(monkeypatch):
    """The closed model runs lead-in + window + trail once (its timeout covering all three), and reports only the
    window: the request sent at 4.5 s is the trail's."""
    calls = _fake(monkeypatch, oha_module, OHA_JSON)
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
    calls = _fake(
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


def test_wrk_writes_its_script_in_a_temporary_folder_named_for_it(monkeypatch):
    """The script wrk is given lives in a temporary folder named serverbench-wrk-…, so a leftover says whose it is."""
    calls = _fake(monkeypatch, wrk_module, WRK_LINE)
    _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2))
    assert Path(calls[0]["argv"][6]).parent.name.startswith("serverbench-wrk-")


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
    calls = _fake(
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
    _fake(monkeypatch, oha_module, OHA_JSON)
    report, _ = _oha().run("http://127.0.0.1:1/x", LoadShape(8, 2))
    assert report.requests == 0 and report.window == "steady"


def test_oha_open_run_writes_the_body_in_its_own_folder_and_falls_back_to_the_asked_duration(monkeypatch):
    """The body is written as body in a serverbench-oha- folder; a JSON without the run's length takes the shape's."""
    calls = _fake(monkeypatch, oha_module, OHA_JSON.replace('"total": 2.0', '"total": 0'))
    report, _ = _oha().run("http://127.0.0.1:1/x", LoadShape(8, 3, rate=100.0), request=Request("POST", (), b"x"))
    body = Path(calls[0]["argv"][calls[0]["argv"].index("-D") + 1])
    assert body.name == "body" and body.parent.name.startswith("serverbench-oha-")
    assert report.duration_s == 3.0
