"""serverbench bisect for real, on a user's project in a scratch git repository (waitress-t4, 40 counted requests):
six commits, one that does not build and one whose render_home serializes 20 more times.  The broken commit is
skipped and named, the regression is found exactly with the user's function among those it came from, the gate
confirms it (its exit 1 comes from the counts), the record renders what was printed, and nothing is left
behind.  A good end that already fails is refused in one line."""

import os
import shutil
import subprocess
import tempfile

import pytest
from test_user_app_cost import INI, SHOP

from serverbench.cli import bisect as command
from serverbench.records import bisects
from serverbench.report import bisect as report

pytestmark = [
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed"),
]

# The gate as the user gate's tests run it: --blocks 8 is the fewest that reach alpha with --rate off; the
# regression's exit 1 comes from the counts (any regression fails the decision whatever the timed signals say).
QUICK_GATE = "--duration 1 --warmup 0 --rate off --cost-repeats 2 --retries 0 --blocks 8"
BROKEN = "\ndef half_written(:\n"


IDENTITY = {"GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example.org", "GIT_COMMITTER_NAME": "ci"}


def _git(repo, *argv):
    env = {**os.environ, **IDENTITY, "GIT_COMMITTER_EMAIL": "ci@example.org"}
    return subprocess.check_output(["git", "-C", str(repo), *argv], env=env, text=True).strip()


@pytest.fixture
def project(tmp_path):
    """c0 good; c1 a note; c2 does not build; c3 fixes it; c4 the regression; c5 a note (the bad end)."""
    repo = tmp_path / "shop"
    repo.mkdir()
    _git(tmp_path, "init", "-q", "-b", "main", str(repo))
    (repo / "pytest.ini").write_text(INI)
    steps = [
        ("shop.py", SHOP.format(extra=0), "c0 shop"),
        ("NOTES.md", "one\n", "c1 note"),
        ("shop.py", SHOP.format(extra=0) + BROKEN, "c2 start a helper"),
        ("shop.py", SHOP.format(extra=0), "c3 finish the helper"),
        ("shop.py", SHOP.format(extra=20), "c4 render the home page"),
        ("NOTES.md", "two\n", "c5 note"),
    ]
    for name, text, subject in steps:
        (repo / name).write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", subject)
    return repo


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """The command's temporary folder, so that what it leaves there is seen."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_bisect_skips_a_broken_commit_finds_the_regression_and_the_gate_confirms_it(project, scratch, capsys):
    """Exit 1; c2 skipped with its SyntaxError; the step is c3 -> c4 with render_home (app) named; the gate's
    verdict is a regression; the JSON renders the printed text; no worktree or temporary file is left."""
    out = project / "bisect.json"
    argv = ["--repo", str(project), "--good", "HEAD~5", "--endpoint", "home", "--json", str(out)]
    status = command.main([*argv, "--gate-args", QUICK_GATE, "--markdown", str(project / "summary.md")])
    printed = capsys.readouterr().out
    assert status == 1, printed
    record = bisects.read(out)
    rows = record["commits"]
    assert rows[2]["skipped"] and "SyntaxError" in rows[2]["skipped"], rows[2]
    assert [(s["before"], s["after"], s["kind"]) for s in record["steps"]] == [(3, 4, "regression")]
    assert record["counted"] <= 4 and record["skipped"] == 1
    step = record["steps"][0]
    assert any(a["function"] == "render_home" and a["role"] == "app" for a in step["attribution"]), step
    assert step["gate"]["verdict"] == "regression" and step["gate"]["exit_status"] == 1, step["gate"]
    assert report.text(record) == printed.rstrip("\n")
    summary = (project / "summary.md").read_text()
    assert "### serverbench bisect: waitress-t4/shop home (GET /): **regression**" in summary
    assert "`shop.render_home`" in summary, summary  # the gate's own table follows, with the function
    assert len(_git(project, "worktree", "list").splitlines()) == 1
    assert os.listdir(scratch) == []


def test_a_good_end_that_already_fails_is_refused_in_one_line(project, scratch, capsys):
    """--good at the commit that does not build: exit 2, one line naming it and the fix, nothing left."""
    status = command.main(["--repo", str(project), "--good", "HEAD~3", "--bad", "HEAD~2", "--no-confirm"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert err[-1].startswith("error: the good end ") and "(c2 start a helper) already fails" in err[-1], err
    assert "SyntaxError" in err[-1] and err[-1].endswith("pick an older --good that serves GET / under waitress-t4")
    assert len(_git(project, "worktree", "list").splitlines()) == 1
    assert os.listdir(scratch) == []
