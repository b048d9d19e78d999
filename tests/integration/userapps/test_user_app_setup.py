"""A user's app whose state lives outside git (a SQLite table made by an init command): without its
perf_app_setup the server answers 500 and is reported at once, with the status and the exception in its log;
with it, the same app serves."""

import time

import pytest

pytestmark = pytest.mark.usefixtures("no_leaks")

NOTES = """
import json, sqlite3

def app(environ, start_response):
    rows = sqlite3.connect("notes.sqlite3").execute("SELECT title FROM note").fetchall()
    body = json.dumps({"notes": [title for title, in rows]}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
"""

INITDB = """
import sqlite3

connection = sqlite3.connect("notes.sqlite3")
connection.execute("CREATE TABLE IF NOT EXISTS note (title TEXT)")
connection.execute("INSERT INTO note VALUES ('milk')")
connection.commit()
"""

PERF_TEST = '''
import pytest

@pytest.mark.perf
def test_throughput(perf_trial):
    """The app serves the endpoint."""
    perf_trial()
'''

INI = """[pytest]
perf_app = notes:app
perf_endpoints = list GET /notes type=application/json contains=milk
"""

RUN = ["-m", "perf", "--perf-duration=1", "--perf-warmup=0", "--perf-connections=4", "--perf-threads=1"]
START_TIMEOUT_S = 120  # what the broken server would have been waited for before this change


def test_a_server_answering_500_fails_at_once_and_setup_makes_it_serve(pytester):
    """No table: the 500 is reported in seconds, not after the start timeout, with the status and the
    sqlite3 exception; with perf_app_setup = python -m initdb, the same app serves and is recorded."""
    pytester.makepyfile(notes=NOTES, initdb=INITDB, test_perf=PERF_TEST)
    pytester.makeini(INI)
    started = time.monotonic()
    result = pytester.runpytest_subprocess(
        *RUN, "--perf-variants=gunicorn-sync-w2", f"--perf-start-timeout={START_TIMEOUT_S}", "-p", "no:cacheprovider"
    )
    took = time.monotonic() - started
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*it answered GET /notes with status 500, not 2xx, for 2 s; the last exception in its log: "
            "sqlite3.OperationalError: no such table: note*"
        ]
    )
    assert took < START_TIMEOUT_S / 4, f"the broken server was waited for {took:.0f} s"
    print(f"the session with the broken server ended in {took:.1f} s (start timeout {START_TIMEOUT_S} s)")

    pytester.makeini(INI + "perf_app_setup = python -m initdb\n")
    result = pytester.runpytest_subprocess(*RUN, "--perf-variants=gunicorn-sync-w2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*perf_app_setup ran in * s in *: python -m initdb*"])
    assert (pytester.path / "notes.sqlite3").is_file()
