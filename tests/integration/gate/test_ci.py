"""`serverbench ci --mode gate` run for real on examples/flask-todo: the example copied into a fresh git
repository, installed with serverbench's wheel in a fresh venv, a realistic cost planted on a branch (a debug log
line that pretty-prints the listing even when debug logging is off: test_example_ci's REGRESSIONS), and the
pull request's one step run against its base.  It fails (exit 1) naming the user's function in the comment's
verdict line, and leaves every file of --out; a bad input (an unknown endpoint) exits 2 with its error in the
comment.  Kept short: one variant, one endpoint, 1 s windows, two counts per arm (a counted regression ends the
gate before any timed window, so it judges no timing and need not run alone)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.integration.gate.test_example_ci import REGRESSIONS
from tests.integration.userapps.test_examples import EXAMPLES, run, user_environment, uv_or_skip, wheelhouse  # noqa: F401

pytestmark = [
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed"),
]

EXAMPLE = "flask-todo"
GATE = ["--variant", "waitress-t4", "--duration", "1", "--warmup", "0", "--rate", "off", "--cost-repeats", "2"]
GATE += ["--retries", "0"]


def _git(repo, *argv: str) -> str:
    return run(["git", "-C", str(repo), "-c", "user.email=ci@example.org", "-c", "user.name=ci", *argv]).stdout.strip()


def test_ci_gates_a_pull_request_and_writes_its_verdict(wheelhouse, tmp_path):  # noqa: F811
    """A planted cost fails the pull request (exit 1) naming todo.app.list_todos; the comment, the summary, the
    decision, the report and result.json are in --out; an unknown endpoint is exit 2 with its error in the comment."""
    path, anchor, added, function, endpoint = REGRESSIONS[EXAMPLE]
    repo = shutil.copytree(EXAMPLES / EXAMPLE, tmp_path / EXAMPLE, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    venv_dir = tmp_path / "venv"
    uv = uv_or_skip()
    run([uv, "venv", "-q", "--python", sys.executable, str(venv_dir)])
    env = user_environment(venv_dir)
    python = str(venv_dir / "bin" / "python")
    run([uv, "pip", "install", "-q", "--python", python, "--find-links", str(wheelhouse), f"{repo}[perf]"], env=env)
    _git(repo, "checkout", "-qb", "regression")
    (repo / path).write_text((repo / path).read_text().replace(anchor, anchor + added))
    _git(repo, "commit", "-qam", "log the listing at debug level")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "base": {"sha": base}}}))
    step = tmp_path / "step-summary.md"
    github = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_STEP_SUMMARY": str(step)}
    out = tmp_path / "out"
    ci = [str(venv_dir / "bin" / "serverbench"), "ci", "--out", str(out), "--endpoint", endpoint]
    done = subprocess.run(
        [*ci, "--", *GATE], cwd=repo, env={**env, **github}, capture_output=True, text=True, timeout=300
    )
    said = done.stdout + done.stderr
    (tmp_path / "ci-output.txt").write_text(said)
    assert done.returncode == 1, said[-3000:]
    comment = (out / "comment.md").read_text()
    line = next(x for x in comment.splitlines() if x.startswith("- ✗ "))
    assert line.startswith(f"- ✗ `{endpoint}` under waitress-t4: +") and f"`{function}`" in line, comment
    assert comment.startswith("<!-- serverbench ci: . -->\n### serverbench gate: ✗ regression\n")
    assert (out / "summary.md").read_text() == step.read_text() == comment.split("\n", 1)[1]
    result = json.loads((out / "result.json").read_text())
    assert result == {
        "mode": "gate",
        "status": 1,
        "verdict": "regression",
        "post": True,
        "pull_request": 7,
        "fork": False,
        "lines": [line.removeprefix("- ")],
    }
    decision = json.loads((out / "decision.json").read_text())
    assert decision["verdict"] == "regression" and decision["stopped"] == "counted"
    assert (out / "report.html").read_text().lower().startswith("<!doctype html>")
    assert line.removeprefix("- ") in done.stdout.splitlines()  # the terminal leads with the same line

    bad = subprocess.run(
        [*ci[:-1], "nope", "--", *GATE], cwd=repo, env={**env, **github}, capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2, bad.stdout + bad.stderr
    error = next(x for x in (out / "comment.md").read_text().splitlines() if x.startswith("✗ error: "))
    assert "unknown endpoint(s) 'nope'" in error and "list, add (perf_endpoints)" in error
    assert json.loads((out / "result.json").read_text())["verdict"] == "error"
    assert not (out / "decision.json").exists() and not (out / "report.html").exists()  # the earlier run's: gone
