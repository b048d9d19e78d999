"""The plugin end to end through pytester: options, errors, JSON records, baselines, the summary."""

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from serverbench.catalog.variants import registry
from serverbench.drivers.base import closed_driver
from serverbench.measure.host.machine import machine_info
from serverbench.measure.serving.servers import start_variant
from serverbench.processes.executors import free_port

pytestmark = pytest.mark.usefixtures("no_leaks")

PERF_TEST = '''
import pytest

@pytest.mark.perf
def test_throughput(perf_trial):
    """The variant holds its baseline."""
    perf_trial()

@pytest.mark.perf(tolerance=0.99)
def test_lenient(perf_trial):
    """A per-test tolerance from the marker."""
    perf_trial()
'''

FAST = [
    "--perf-variants=gunicorn-sync-w2",
    "--perf-workloads=json",
    "--perf-duration=1",
    "--perf-warmup=0",
    "--perf-connections=8",
    "--perf-threads=1",
    "-p",
    "no:cacheprovider",
]


@pytest.fixture
def suite(pytester, apps_dir):
    """A pytester project with the perf test and the repository's apps."""
    pytester.makeini(f"[pytest]\nperf_apps_dir = {apps_dir}\n")
    pytester.makepyfile(test_perf=PERF_TEST)
    return pytester


def _baseline_path(pytester):
    driver, _ = closed_driver()  # the default's: oha when installed, else wrk
    return pytester.path / "baselines" / f"{machine_info(f'{driver.name}-{driver.version}')['id']}.json"


def test_perf_apps_multiplies_variants_by_apps(suite):
    """--perf-apps selects apps; each selected variant runs every selected app it can serve."""
    result = suite.runpytest(
        "-m",
        "perf",
        "--collect-only",
        "-q",
        "--perf-variants=gunicorn-sync-w2,uvicorn",
        "--perf-apps=flask,raw-*",
        "--perf-workloads=json",
    )
    result.stdout.fnmatch_lines(
        [
            "*test_throughput?gunicorn-sync-w2-flask-json-c64?",
            "*test_throughput?gunicorn-sync-w2-raw-wsgi-json-c64?",
            "*test_throughput?uvicorn-raw-asgi-json-c64?",
        ]
    )
    assert "uvicorn-flask" not in result.stdout.str()


def test_unknown_variant_lists_the_known_ones(suite):
    """An unknown --perf-variants name stops the run before anything starts, listing the known names."""
    result = suite.runpytest("--perf-variants=gunicorn-nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*unknown variant 'gunicorn-nope'*known variants: werkzeug-threaded, wsgiref, gunicorn-sync-w2*"]
    )


def test_unknown_workload_is_an_error(suite):
    """An unknown --perf-workloads name is a usage error listing the workloads."""
    result = suite.runpytest("--perf-workloads=graphql")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown workload 'graphql'*known workloads: plaintext, json, redis*"])


def test_bad_values_are_reported_together(suite):
    """A zero duration and a malformed tolerance are both named in one error."""
    result = suite.runpytest("--perf-duration=0", "--perf-tolerance=ten")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*invalid serverbench settings*", "*--perf-duration='0'*", "*--perf-tolerance='ten'*"])


def test_bad_ini_value_names_the_ini_key(pytester):
    """A bad ini value is reported as the ini key, not as a flag."""
    pytester.makeini("[pytest]\nperf_max_error_rate = 2\n")
    pytester.makepyfile(test_perf=PERF_TEST)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini key perf_max_error_rate='2'*"])


def test_missing_wrk_says_how_to_install_it(suite, monkeypatch, tmp_path):
    """Without wrk on PATH, a perf run that needs it stops at once with the install command."""
    monkeypatch.setenv("PATH", str(tmp_path))
    result = suite.runpytest(*FAST, "--perf-closed-driver=wrk")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*wrk was not found on PATH*apt-get install wrk*"])


def test_corrupt_baseline_stops_the_run_and_is_kept(suite):
    """A corrupt baseline file is a clear error; saving does not overwrite it."""
    path = _baseline_path(suite)
    path.parent.mkdir()
    path.write_text("{not json")
    result = suite.runpytest(*FAST, "--perf-save-baseline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*baseline file*cannot be read*Nothing was overwritten*"])
    assert path.read_text() == "{not json"


def test_unreachable_redis_url_fails_the_redis_tests(suite):
    """--redis-url pointing at nothing fails the tests that need Redis, naming the URL and the fix."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    result = suite.runpytest_subprocess(
        *FAST[:1], "--perf-workloads=redis", *FAST[2:], f"--redis-url={url}", "-k", "throughput"
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*--redis-url {url} did not answer*"])
    assert "During handling of the above exception" not in result.stdout.str()  # the message once, not chained


def test_run_records_json_and_saves_then_compares_baselines(suite):
    """A real run writes the documented JSON, saves a baseline, and a later run fails against a higher one."""
    out = suite.path / "results.json"
    first = suite.runpytest_subprocess(*FAST, f"--perf-json={out}", "--perf-save-baseline")
    first.assert_outcomes(passed=2)
    first.stdout.fnmatch_lines(
        ["*serverbench results*", "*gunicorn-sync-w2/flask*json*8*", "*saved*", "*baseline for 2 cell(s) saved*"]
    )
    record = json.loads(out.read_text())["results"][0]
    for key in (
        "nodeid",
        "variant",
        "app",
        "workload",
        "shape",
        "duration_s",
        "requests",
        "rps",
        "latency_ms",
        "errors",
        "error_rate",
        "server",
        "generator",
        "machine",
        "python",
        "verdict",
    ):
        assert key in record, key
    assert record["shape"]["connections"] == 8 and record["shape"]["label"] == "c8"
    assert set(record["latency_ms"]) == {"p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev"}
    assert set(record["errors"]) == {"connect", "read", "write", "timeout", "status"}
    assert record["requests"] > 0 and record["server"]["cpu_s"] > 0 and "saturated" in record["generator"]
    assert record["app"] == "flask"
    # --perf-warmup 0: no warm-up rounds, unless the window was measured again (it had not converged, e.g. on a busy
    # machine): its run then had the lead-in it needed (catalog.windows.again_lead_s), whose rounds the record keeps.
    again = "short_window" in record.get("extra", {})
    assert record["warmup_rps"] == [] or (again and record["warmup_s"] > 0), (record["warmup_rps"], record["extra"])

    path = _baseline_path(suite)
    stored = json.loads(path.read_text())
    stored["entries"]["test_throughput::gunicorn-sync-w2/flask/json/c8"]["rps"] = record["rps"] * 10
    stored["entries"]["test_lenient::gunicorn-sync-w2/flask/json/c8"]["rps"] = record["rps"] * 1.5
    path.write_text(json.dumps(stored))
    second = suite.runpytest_subprocess(*FAST)
    second.assert_outcomes(passed=1, failed=1)
    # test_throughput fails at the default tolerance; test_lenient's marker (0.99) lets a 1/1.5 drop pass.
    second.stdout.fnmatch_lines(["*test_throughput::gunicorn-sync-w2/flask/json/c8: * rps < * = baseline * (1 − 0.3)*"])


def test_missing_baseline_is_reported_not_silent(suite):
    """Without a stored baseline the summary says so and gives the save command."""
    result = suite.runpytest_subprocess(*FAST, "-k", "throughput")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*no-baseline*", "*1 result(s) have no stored baseline*--perf-save-baseline*"])


def test_perf_target_drives_an_external_server(suite, apps_dir):
    """--perf-target measures a server serverbench did not start, without touching its process."""
    server = start_variant(registry()["gunicorn-sync-w2"], apps_dir=apps_dir)
    try:
        out = suite.path / "r.json"
        result = suite.runpytest_subprocess(
            *FAST[1:], f"--perf-target={server.url}", f"--perf-json={out}", "-k", "throughput"
        )
        result.assert_outcomes(passed=1)
        record = json.loads(out.read_text())["results"][0]
        assert record["variant"] == "target" and record["server"]["cpu_s"] is None
        assert server.process.alive()
    finally:
        server.stop()


def _generator_running(pid: int) -> bool:
    """Whether a load generator (oha or wrk) runs under the process ``pid``."""
    try:
        return any(p.name() in ("oha", "wrk") for p in psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        return False


def test_interrupted_run_leaves_no_server(suite):
    """Ctrl-C a second into a trial's load run (with a warm-up, oha's lead-in runs it in another thread): the session
    stops at once, interrupted, before its 20 s window would end, and stops the server and its workers."""
    port = free_port()
    with open(suite.path / "out.txt", "w") as out:
        proc = suite.popen(
            [
                *suite._getpytestargs(),
                *FAST,
                "--perf-duration=20",
                "--perf-warmup=1",
                f"--perf-port={port}",
                "-k",
                "throughput",
            ],
            stdout=out,
            stderr=out,
            # Ctrl-C's default restored in the child: a shell that started this run in the background (`cmd &`, as a CI
            # harness may) ignores SIGINT, every process inherits that, and Python then installs no KeyboardInterrupt.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    began = time.monotonic()
    deadline = began + 30
    while time.monotonic() < deadline and not any(
        c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN for c in psutil.net_connections("tcp")
    ):
        time.sleep(0.2)
    while time.monotonic() < deadline and not _generator_running(proc.pid):  # the window's run, in its lead-in
        time.sleep(0.05)
    time.sleep(1.0)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:  # well before the 20 s window would end: a session that finishes its window first did not obey Ctrl-C
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:  # Ctrl-C was not obeyed: end it (nothing may outlive the test), show its output
        session = psutil.Process(proc.pid)
        for child in [*session.children(recursive=True), session]:
            try:
                child.kill()
            except psutil.NoSuchProcess:
                continue
        proc.wait()
        tail = (suite.path / "out.txt").read_text()[-3000:]
        pytest.fail(
            f"the session did not exit within 15 s of SIGINT, sent {sent - began:.1f} s after it started; "
            f"its output:\n{tail}"
        )
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, (suite.path / "out.txt").read_text()[-3000:]
    time.sleep(0.5)
    listeners = [
        c for c in psutil.net_connections("tcp") if c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN
    ]
    assert not listeners, f"a server still listens on {port} after Ctrl-C"


def test_perf_list_shows_the_matrix_without_starting_anything(suite):
    """--perf-list prints every variant x app cell with its interface and status, and runs no test."""
    result = suite.runpytest("--perf-list")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*serverbench matrix*",
            "*uwsgi-p2t2*flask*wsgi*uwsgi*cpython*",
            "*uwsgi-p2t2*django *wsgi*",
            "*aiohttp*aiohttp*aiohttp*asyncio*",
            "*uvicorn*django-asgi*asgi*",
        ]
    )
    assert "passed" not in result.stdout.str()


def test_unreachable_backend_fails_only_the_tests_that_need_it(suite):
    """An --upstream-url that answers nothing fails the upstream cell with the fix; /json still runs and passes."""
    dead = f"http://127.0.0.1:{free_port()}/delay"
    args = [*FAST[:1], "--perf-workloads=json,upstream", *FAST[2:], f"--upstream-url={dead}", "-k", "throughput"]
    result = suite.runpytest_subprocess(*args)
    result.assert_outcomes(passed=1, errors=1)  # the fixture that provides the backend errors
    result.stdout.fnmatch_lines([f"*--upstream-url: the upstream {dead} did not answer*drop --upstream-url*"])
    skipped = suite.runpytest_subprocess(*args, "--perf-skip-missing-backends", "-rs")
    skipped.assert_outcomes(passed=1, skipped=1)
    skipped.stdout.fnmatch_lines(["*backend upstream unavailable (--perf-skip-missing-backends)*"])


CHEATING_APP = """
import os, redis
from flask import Flask, jsonify
app = Flask(__name__)
state = {"value": None, "counter": 0}

@app.route("/plaintext")
def plaintext():
    return "Hello, World!", 200, {"Content-Type": "text/plain"}

@app.route("/json")
def json_():
    return jsonify(message="Hello, World!")

@app.route("/redis")
def redis_():
    # answers the contract, but reads Redis once and then makes the counter up
    if state["value"] is None:
        client = redis.Redis.from_url(os.environ["SERVERBENCH_REDIS_URL"], decode_responses=True)
        state["counter"], state["value"] = client.incr("serverbench:counter"), client.get("serverbench:value")
    state["counter"] += 1
    return jsonify(counter=state["counter"], value=state["value"])
"""


def test_server_that_skips_the_backend_work_fails_op_verification(suite, tmp_path):
    """An app that answers /redis correctly but stops calling Redis is caught by the backend's own op count."""
    apps = tmp_path / "cheat"
    apps.mkdir()
    (apps / "flask_app.py").write_text(CHEATING_APP)
    result = suite.runpytest_subprocess(
        *FAST[:1], "--perf-workloads=redis", *FAST[2:], f"--perf-apps-dir={apps}", "-k", "throughput"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*redis (redis-server) counted * operations for * responses*did not do the work*"])


AIO = [
    "--perf-variants=aiohttp",
    "--perf-workloads=json",
    "--perf-duration=1",
    "--perf-warmup=0",
    "--perf-connections=8",
    "--perf-threads=1",
    "-p",
    "no:cacheprovider",
    "-k",
    "throughput",
]


def test_connection_reuse_shapes_each_run_as_a_test(suite):
    """keep-alive and one request per connection are two tests of the same cell, both recorded without errors."""
    out = suite.path / "r.json"
    result = suite.runpytest_subprocess(*AIO, "--perf-requests-per-connection=keepalive,1", f"--perf-json={out}")
    result.assert_outcomes(passed=2)
    records = {r["shape"]["label"]: r for r in json.loads(out.read_text())["results"]}
    assert set(records) == {"c8", "c8-rpc1"}
    assert all(r["error_rate"] == 0 and r["requests"] > 0 for r in records.values())


def test_replicates_report_median_and_dispersion(suite):
    """--perf-replicates 3 runs three trials and records their rps, median and dispersion."""
    out = suite.path / "r.json"
    result = suite.runpytest_subprocess(*AIO, "--perf-replicates=3", f"--perf-json={out}")
    result.assert_outcomes(passed=1)
    record = json.loads(out.read_text())["results"][0]
    reps = record["extra"]["replicates"]
    assert reps["n"] == 3 and len(reps["rps"]) == 3 and reps["dispersion"] is not None
    assert abs(record["rps"] - sorted(reps["rps"])[1]) <= 0.1, (record["rps"], reps)  # the median run is judged


@pytest.mark.oha
def test_rate_ladder_runs_open_model_and_reports_the_knee(suite):
    """--perf-rates runs oha at each rate; the summary prints the ladder with its knee (or none)."""
    out = suite.path / "r.json"
    result = suite.runpytest_subprocess(*AIO, "--perf-rates=50,100", "--perf-rate-connections=16", f"--perf-json={out}")
    result.assert_outcomes(passed=3)  # c8 by the closed model's driver, r50 and r100 by oha
    result.stdout.fnmatch_lines(["*rate ladder aiohttp/aiohttp json: *50: * rps p99*"])
    records = {r["shape"]["label"]: r for r in json.loads(out.read_text())["results"]}
    assert records["r100"]["generator"]["name"] == "oha"
    assert 80 <= records["r100"]["rps"] <= 110  # the rate was held


def test_a_rate_without_the_open_model_driver_is_refused_before_anything_starts(suite, tmp_path, monkeypatch):
    """No oha on PATH or in ~/.cargo/bin: a usage error naming the install, no server started."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin:" + os.path.dirname(sys.executable))
    result = suite.runpytest(*AIO, "--perf-rates=100")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*oha (the open-model load generator): not found on PATH*cargo install oha*"])


LOCUST_TEST = '''
import pytest

@pytest.mark.perf(max_error_rate=0.01)
def test_visitors(perf_locust, perf_locust_workers):
    """Book-site visitors."""
    assert perf_locust().requests > 0
'''


@pytest.mark.alone(reason="Little's law is judged on its users' timings: a test beside it takes the users' CPU")
def test_locust_scenario_runs_single_and_distributed(suite):
    """The bookshop scenario runs headless in one process and as a master with a worker on loopback."""
    suite.makepyfile(test_locust=LOCUST_TEST)
    out = suite.path / "r.json"
    result = suite.runpytest_subprocess(
        "--perf-variants=aiohttp",
        "--perf-duration=3",
        "--perf-warmup=0",
        "--perf-locust-users=5",
        "--perf-locust-workers=0,1",
        f"--perf-json={out}",
        "-p",
        "no:cacheprovider",
        "test_locust.py",
    )
    result.assert_outcomes(passed=2)
    records = {r["shape"]["label"]: r for r in json.loads(out.read_text())["results"]}
    assert set(records) == {"u5-w0", "u5-w1"}
    for r in records.values():
        assert r["generator"]["name"] == "locust" and r["requests"] > 0 and r["error_rate"] <= 0.01
        # Little's law on locust's final statistics: users = rps x mean (no think time), or a cause it measured
        law = [f["message"] for f in r["flags"] if f["name"] == "littles-law"]
        assert not law or "measured cause outside the harness" in law[0], (r["shape"]["label"], law)
        # the users' own gaps between an answer and the next request (locustfiles/gaps.py), one process or a worker
        assert 0 <= r["gap_ms"] < r["latency_ms"]["mean"] * 5 + 50, r["gap_ms"]
