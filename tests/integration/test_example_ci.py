"""The examples' CI recipe run for real: each example copied into a fresh git repository, installed with
serverbench's wheel in a fresh venv, and its own ci/cost.sh and ci/gate.sh (what its GitHub workflow calls)
run on two commits.  A realistic cost (a debug log line that pretty-prints the response even when debug
logging is off) fails both, naming the user's function; a comment-only commit passes both.

Kept short: one variant, one endpoint, 50 counted requests, 1 s windows, two counts per arm.  The timings
of each step are written to timings.json in the test's folder (and printed with -s)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import venv
from pathlib import Path

import pytest
from test_examples import EXAMPLES, run, user_environment, wheelhouse  # noqa: F401 - the session fixture

# Deselected by default (`pytest -m example_ci` runs it): 5-9 minutes, over .ci/run's budget.
pytestmark = [
    pytest.mark.example_ci,
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.alone(reason="the gate's verdict is judged on timed windows"),
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed"),
]

VARIANT = "waitress-t4"
COST_ARGS = [f"--perf-variants={VARIANT}", "--perf-cost-requests=50"]
GATE_ARGS = [
    "--variant",
    VARIANT,
    "--duration",
    "1",
    "--warmup",
    "0",
    "--rate",
    "off",
    "--cost-repeats",
    "2",
    "--retries",
    "0",
]

# example: (file, the line the regression follows, the lines it adds, the function named, the endpoint)
REGRESSIONS = {
    "django-notes": (
        "notes/views.py",
        '    if request.method == "GET":\n',
        "        import logging\n"
        '        logging.getLogger(__name__).debug("api: %s", json.dumps({"notes": NOTES}, indent=2, '
        "sort_keys=True))\n",
        "notes.views.api",
        "list",
    ),
    "flask-todo": (
        "todo/app.py",
        '    rows = db().execute("SELECT id, title, done FROM todo ORDER BY id").fetchall()\n',
        "    import json\n"
        '    app.logger.debug("listed: %s", json.dumps([list(r) for r in rows], indent=2, sort_keys=True))\n',
        "todo.app.list_todos",
        "list",
    ),
}


def _git(repo: Path, *argv: str) -> None:
    run(["git", "-C", str(repo), "-c", "user.email=ci@example.org", "-c", "user.name=ci", *argv])


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_ci_recipe_fails_a_realistic_cost_and_passes_a_comment(name, wheelhouse, tmp_path):  # noqa: F811
    """ci/cost.sh and ci/gate.sh fail the debug-log commit naming the function, and pass the comment-only one."""
    path, anchor, added, function, endpoint = REGRESSIONS[name]
    repo = shutil.copytree(EXAMPLES / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    venv_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(venv_dir)
    env = user_environment(venv_dir)
    run(
        [
            str(venv_dir / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--find-links",
            str(wheelhouse),
            f"{repo}[perf]",
        ],
        env=env,
    )
    timings: dict[str, float] = {}

    def step(label: str, script: str, *args: str) -> subprocess.CompletedProcess:
        started = time.monotonic()
        done = subprocess.run(
            ["sh", script, "HEAD~1", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=900
        )
        timings[label] = round(time.monotonic() - started, 1)
        (tmp_path / f"{label}.txt").write_text(done.stdout + done.stderr)
        return done

    source = (repo / path).read_text()
    assert anchor in source, f"{name}: the regression's anchor line is gone from {path}"
    _git(repo, "checkout", "-qb", "regression")
    (repo / path).write_text(source.replace(anchor, anchor + added))
    _git(repo, "commit", "-qam", "log the response at debug level")
    cost = step("cost-regression", "ci/cost.sh", *COST_ARGS, f"--perf-workloads={endpoint}")
    assert cost.returncode == 1 and "cost rose beyond tolerance" in cost.stdout, cost.stdout[-3000:]
    assert "app: " in cost.stdout and function in cost.stdout, cost.stdout[-3000:]
    gate = step("gate-regression", "ci/gate.sh", *GATE_ARGS, "--endpoint", endpoint)
    summary = (repo / "gate-summary.md").read_text()
    assert gate.returncode == 1 and f"`{function}`" in summary, gate.stdout + gate.stderr + summary

    _git(repo, "checkout", "-q", "main")
    _git(repo, "checkout", "-qb", "comment")
    (repo / path).write_text(f"# {name}: a comment, nothing else\n" + source)
    _git(repo, "commit", "-qam", "a comment")
    (repo / "gate-summary.md").unlink()
    cost = step("cost-comment", "ci/cost.sh", *COST_ARGS, f"--perf-workloads={endpoint}")
    assert cost.returncode == 0, cost.stdout[-3000:]
    gate = step("gate-comment", "ci/gate.sh", *GATE_ARGS, "--endpoint", endpoint)
    counted = next(line for line in gate.stdout.splitlines() if "instructions per request (counted)" in line)
    # 3: this shared machine was too noisy for the timed signals (never reported as a pass, never a failure).
    assert counted.endswith("-> pass") and gate.returncode in (0, 3), gate.stdout + gate.stderr
    timings["gate-comment-exit"] = gate.returncode
    (tmp_path / "timings.json").write_text(json.dumps(timings, indent=1))
    print(f"{name}: {json.dumps(timings)}")
