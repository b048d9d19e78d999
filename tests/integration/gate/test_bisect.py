"""serverbench bisect for real, in scratch git repositories, as docs/bisect.md shows it.  A user's project
(waitress-t4, 40 counted requests): six commits, one that does not build and one whose render_home serializes
20 more times.  The search skips the broken commit and names it, finds the regression exactly with the user's
function among those it came from, and the timed gate confirms it later from the stored file (its exit 1 comes
from the counts); the same run with the gate inline; a good end that already fails is refused in one line.
serverbench's own reference apps: /json made to log pretty-printed answers is found the same way.  Nothing is
left behind, also when the bisection is stopped by SIGTERM or Ctrl-C while it counts."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from serverbench.cli import bisect as command
from serverbench.records import bisects
from serverbench.report import bisect as report
from tests.integration.sessions.test_fault_census import Watched, _appeared, stopped_at
from tests.integration.userapps.test_user_app_cost import INI, SHOP

pytestmark = [
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed"),
]

# The gate as the user gate's tests run it: --blocks 8 is the fewest that reach alpha with --rate off; the
# regression's exit 1 comes from the counts (any regression fails the decision whatever the timed signals say), and
# --cost-repeats 1 (the shipped default) counts each arm once, a second time only when the pair is ambiguous.
QUICK_GATE = "--duration 1 --warmup 0 --rate off --cost-repeats 1 --retries 0 --blocks 8"
BROKEN = "\ndef half_written(:\n"
APPS = Path(__file__).resolve().parents[3] / "apps"
JSON_LINE = '    return jsonify(message="Hello, World!")\n'
# /json logs its answer at debug level, pretty-printed although debug logging is off (built before the logger
# decides): the regression of the reference apps' range.
DEBUG_LOG = (
    '    app.logger.debug("json: %s", [__import__("json").dumps({"items": list(range(50))}, indent=2)'
    " for _ in range(10)])\n"
)

IDENTITY = {"GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example.org", "GIT_COMMITTER_NAME": "ci"}


def _git(repo, *argv):
    env = {**os.environ, **IDENTITY, "GIT_COMMITTER_EMAIL": "ci@example.org"}
    return subprocess.check_output(["git", "-C", str(repo), *argv], env=env, text=True).strip()


def _commit(repo, steps):
    for name, text, subject in steps:
        (repo / name).write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", subject)


def _new_repo(path):
    path.mkdir()
    _git(path.parent, "init", "-q", "-b", "main", str(path))
    return path


@pytest.fixture
def project(tmp_path):
    """c0 good; c1 a note; c2 does not build; c3 fixes it; c4 the regression; c5 a note (the bad end)."""
    repo = _new_repo(tmp_path / "shop")
    (repo / "pytest.ini").write_text(INI)
    _commit(
        repo,
        [
            ("shop.py", SHOP.format(extra=0), "c0 shop"),
            ("NOTES.md", "one\n", "c1 note"),
            ("shop.py", SHOP.format(extra=0) + BROKEN, "c2 start a helper"),
            ("shop.py", SHOP.format(extra=0), "c3 finish the helper"),
            ("shop.py", SHOP.format(extra=20), "c4 render the home page"),
            ("NOTES.md", "two\n", "c5 note"),
        ],
    )
    return repo


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """The command's temporary folder, so that what it leaves there is seen."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _nothing_left(repo, scratch):
    assert len(_git(repo, "worktree", "list").splitlines()) == 1, "a worktree was left"
    assert os.listdir(scratch) == [], "left in the temporary folder"


def _gate_confirmed(step):
    gate = step["gate"]
    assert gate["verdict"] == "regression" and gate["exit_status"] == 1, gate


def test_the_search_skips_a_broken_commit_finds_the_regression_and_the_gate_confirms_it_later(project, scratch, capsys):
    """--no-confirm: exit 1, c2 skipped with its SyntaxError, the step c3 -> c4 with render_home (app) named, in at
    most 2 + ceil(log2 5) counts; then --confirm on the stored file: the gate's verdict is a regression, and the file
    it writes renders what was printed."""
    searched, confirmed = project / "bisect.json", project / "confirmed.json"
    argv = ["--repo", str(project), "--good", "HEAD~5", "--endpoint", "home", "--no-confirm", "--json", str(searched)]
    assert command.main(argv) == 1, capsys.readouterr()
    record = bisects.read(searched)
    rows = record["commits"]
    assert rows[2]["skipped"] and "SyntaxError" in rows[2]["skipped"], rows[2]
    assert [(s["before"], s["after"], s["kind"]) for s in record["steps"]] == [(3, 4, "regression")]
    assert record["counted"] <= 5 and record["skipped"] == 1
    step = record["steps"][0]
    assert any(a["function"] == "render_home" and a["role"] == "app" for a in step["attribution"]), step
    assert "gate" not in step
    capsys.readouterr()
    argv = ["--confirm", str(searched), "--gate-args", QUICK_GATE, "--json", str(confirmed)]
    assert command.main([*argv, "--markdown", str(project / "summary.md")]) == 1
    printed = capsys.readouterr().out
    record = bisects.read(confirmed)
    _gate_confirmed(record["steps"][0])
    assert report.text(record) == printed.rstrip("\n")
    summary = (project / "summary.md").read_text()
    assert "### serverbench bisect: waitress-t4/shop home (GET /): **regression**" in summary
    assert "`shop.render_home`" in summary, summary  # the gate's own table follows, with the function
    _nothing_left(project, scratch)


def test_the_gate_runs_inline_on_each_regression_found(project, scratch, capsys):
    """Without --no-confirm the gate runs on the step as soon as it is found: c3 -> c4 (the range's two ends, counted at
    once) confirmed, exit 1."""
    out = project / "bisect.json"
    argv = ["--repo", str(project), "--good", "HEAD~2", "--bad", "HEAD~1", "--endpoint", "home", "--json", str(out)]
    status = command.main([*argv, "--gate-args", QUICK_GATE, "--markdown", str(project / "summary.md")])
    assert status == 1, capsys.readouterr()
    record = bisects.read(out)
    assert [(s["before"], s["after"]) for s in record["steps"]] == [(0, 1)]
    _gate_confirmed(record["steps"][0])
    said = "confirmed by a second count, parent against culprit: regression (exit 1, no window timed: "
    assert said in (project / "summary.md").read_text()  # QUICK_GATE decides on the counts: no window is timed
    _nothing_left(project, scratch)


def test_a_good_end_that_already_fails_is_refused_in_one_line(project, scratch, capsys):
    """--good at the commit that does not build: exit 2, one line naming it and the fix, nothing left."""
    status = command.main(["--repo", str(project), "--good", "HEAD~3", "--bad", "HEAD~2", "--no-confirm"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert err[-1].startswith("error: the good end ") and "(c2 start a helper) already fails" in err[-1], err
    assert "SyntaxError" in err[-1] and err[-1].endswith("pick an older --good that serves GET / under waitress-t4")
    _nothing_left(project, scratch)


def test_the_reference_apps_regression_is_found_in_their_checkout(tmp_path, scratch, capsys):
    """A checkout of the reference apps (apps/, no perf_app): c1 a note, c2 /json logs pretty-printed answers;
    waitress-t4/flask json names c1 -> c2 and json_endpoint."""
    repo = _new_repo(tmp_path / "serverbench")
    shutil.copytree(APPS, repo / "apps", ignore=lambda folder, names: [n for n in names if not n.endswith(".py")])
    flask_app = (repo / "apps" / "flask_app.py").read_text()
    assert JSON_LINE in flask_app, "apps/flask_app.py no longer answers /json with this line"
    _commit(
        repo,
        [
            ("apps/flask_app.py", flask_app, "c0 the reference apps"),
            ("NOTES.md", "one\n", "c1 note"),
            ("apps/flask_app.py", flask_app.replace(JSON_LINE, DEBUG_LOG + JSON_LINE), "c2 log the answer"),
        ],
    )
    out = tmp_path / "bisect.json"
    argv = ["--good", "HEAD~2", "--variant", "waitress-t4", "--workload", "json", "--no-confirm"]
    assert command.main(["--repo", str(repo), *argv, "--requests", "40", "--json", str(out)]) == 1, capsys.readouterr()
    record = bisects.read(out)
    assert record["cell"] == "waitress-t4/flask json"
    assert [(s["before"], s["after"], s["kind"]) for s in record["steps"]] == [(1, 2, "regression")]
    assert any("json_endpoint" in a["function"] for a in record["steps"][0]["attribution"]), record["steps"]
    _nothing_left(repo, scratch)


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT"])
def test_a_bisection_stopped_while_counting_leaves_nothing_behind(project, tmp_path, how):
    """serverbench bisect stopped by SIGTERM or Ctrl-C while both ends are counted under valgrind (two worktrees, two
    servers, in threads the signal does not reach): it exits 128 + the signal within seconds, not at the counts' end,
    every process it started ends, and no worktree and no temporary folder is left."""
    bisect = Watched(
        tmp_path,
        [sys.executable, "-m", "serverbench", "bisect", "--repo", str(project), "--good", "HEAD~5", "--endpoint"]
        + ["home", "--no-confirm", "--requests", "3000"],
    )
    # within 20 s, not at the counts' end: 3,000 requests under valgrind take minutes
    assert stopped_at(bisect, _appeared("valgrind", 2), how, project) == 128 + getattr(signal, how)


TODO = """import json, os, sqlite3

def init():
    with sqlite3.connect(os.environ["TODO_DB"]) as db:
        db.execute("create table if not exists todo (title text)")
        db.execute("insert into todo values ('milk')")

def app(environ, start_response):
    with sqlite3.connect(os.environ["TODO_DB"]) as db:
        titles = [t for (t,) in db.execute("select title from todo")]
    for _ in range({extra}):
        json.dumps({{"items": list(range(50))}})
    body = json.dumps({{"todo": titles}}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
"""
TODO_INI = """[pytest]
perf_app = todo:app
perf_app_env = TODO_DB=todo.sqlite3
perf_app_setup = python -c 'import todo; todo.init()'
perf_variants = waitress-t4
perf_cost_requests = 40
perf_endpoints =
    list GET / status=200 type=application/json contains=milk
"""


def test_perf_app_setup_makes_each_commits_database_before_it_is_counted(tmp_path, scratch, capsys):
    """An app whose SQLite table its init command makes (perf_app_setup), untracked by git: each commit's fresh
    worktree is set up before its count, so both ends serve and the step is found (it answered 500 "no such table"
    at both ends, exit 2)."""
    repo = _new_repo(tmp_path / "todo")
    (repo / "pytest.ini").write_text(TODO_INI)
    (repo / ".gitignore").write_text("todo.sqlite3\n")
    _commit(repo, [("todo.py", TODO.format(extra=0), "c0 todo"), ("todo.py", TODO.format(extra=20), "c1 serialize")])
    status = command.main(["--repo", str(repo), "--good", "HEAD~1", "--endpoint", "list", "--no-confirm"])
    printed = capsys.readouterr()
    assert status == 1, printed.err + printed.out
    assert "step +" in printed.out and "(c1 serialize)" in printed.out, printed.out
    _nothing_left(repo, scratch)
