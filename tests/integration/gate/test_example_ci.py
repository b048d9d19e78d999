"""The action (action.yml) run by nektos/act on this host, as a runner runs it: examples/flask-todo copied into a
fresh git repository, its own workflow (.github/workflows/serverbench.yml) on a pull request event, the action
mapped to a clean copy of this checkout's tracked files.  Every step runs as on a runner but the three that need
GitHub: actions/cache and actions/upload-artifact are mapped to stand-ins (act fetches every action a composite
action names before its steps run, whatever their `if:`), the upload's copying the folder into ARTIFACTS, and gh
is a recording stand-in on PATH (tests/standins/gh).

A pull request that pretty-prints the listing into a debug log line fails the job naming the view (exit 1); one
whose POST /todos raises fails it with the gate's setup error and the server's log tail (exit 2); a comment-only one
passes it (a pass, or could not decide with its warning), and gated at a fixed rate the base never holds it is
could not decide for certain (exit 3: a warning, or under `strict` a failure); an unknown `mode` input fails it
before anything is installed.  Each run's wall time is printed (-s) and kept in timings.json in the test's folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "flask-todo"
ACTION = "OWNER/serverbench@main"
INSTALL_ACT = "go install github.com/nektos/act@v0.2.89"
VARIANT = "waitress-t4"
GATE_ARGS = "--duration 1 --warmup 0 --rate off --cost-repeats 2 --retries 0"
# Could not decide, made sure of: a fixed rate no server here holds (the base arm's fixed-rate pair is discarded in
# every block, so latency and CPU per request have none), in the fewest blocks the gate accepts with a rate (9).
UNHELD_RATE = 100_000
UNHELD_ARGS = f"--duration 1 --warmup 0 --rate {UNHELD_RATE} --cost-repeats 0 --retries 0 --rounds 1 --blocks 9"

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


def act_binary() -> str | None:
    home = Path.home() / "go" / "bin" / "act"
    return shutil.which("act") or (str(home) if os.access(home, os.X_OK) else None)


pytestmark = [
    pytest.mark.example_ci,
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.alone(reason="the gate's verdict is judged on timed windows"),
    pytest.mark.skipif(act_binary() is None, reason=f"act is not installed: `{INSTALL_ACT}` (./run tests does it)"),
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed"),
]

STAND_INS = {
    "actions/cache@v4": """
name: actions/cache stand-in (a miss)
inputs: {path: {}, key: {}}
outputs:
  cache-hit: {value: "false"}
runs:
  using: composite
  steps:
    - shell: bash
      run: echo "cache stand-in, a miss"
""",
    "actions/upload-artifact@v4": """
name: actions/upload-artifact stand-in (a copy into $ARTIFACTS/NAME)
inputs: {name: {default: artifact}, path: {}, if-no-files-found: {default: warn}}
runs:
  using: composite
  steps:
    - shell: bash
      env: {NAME: "${{ inputs.name }}", FROM: "${{ inputs.path }}"}
      run: mkdir -p "$ARTIFACTS/$NAME" && cp -r "$FROM/." "$ARTIFACTS/$NAME/"
""",
}


def _git(repo: Path, *argv: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=ci@example.org", "-c", "user.name=ci", *argv],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def tracked_copy(dest: Path) -> Path:
    """This checkout's tracked files and new ones not ignored (no .venv, no .git), as the action's checkout."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def make_rig(top: Path) -> dict:
    """The action's copy, the stand-ins of the networked actions and of gh, under ``top`` (benchmarks/pr_job.py
    times the job with it)."""
    repositories = [f"{ACTION}={tracked_copy(top / 'serverbench')}"]
    for name, text in STAND_INS.items():
        folder = top / "stand-ins" / name.replace("/", "+")
        folder.mkdir(parents=True)
        (folder / "action.yml").write_text(text)
        repositories.append(f"{name}={folder}")
    bin_dir = top / "bin"
    bin_dir.mkdir()
    shutil.copy2(ROOT / "tests" / "standins" / "gh", bin_dir / "gh")
    return {"repositories": repositories, "bin": bin_dir, "timings": {}}


@pytest.fixture(scope="module")
def rig(tmp_path_factory) -> dict:
    """The action's copy, the stand-ins of the networked actions and of gh, shared by the module's runs."""
    return make_rig(tmp_path_factory.mktemp("action"))


def project(tmp_path: Path, name: str = "flask-todo") -> Path:
    """The example as a user's repository: one commit on main, an origin named (act reads the repository from it)."""
    repo = shutil.copytree(ROOT / "examples" / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "remote", "add", "origin", f"https://github.com/user/{name}.git")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    return repo


def workflow(repo: Path, tmp_path: Path, **inputs: str) -> Path:
    """The example's own workflow, its serverbench step given ``inputs`` (kept outside the repository)."""
    text = (repo / ".github" / "workflows" / "serverbench.yml").read_text()
    step = next(line for line in text.splitlines() if line.strip().startswith(f"- uses: {ACTION}"))
    indent = " " * (step.index("-") + 2)
    given = "".join(f"\n{indent}  {name}: {json.dumps(value)}" for name, value in inputs.items())
    path = tmp_path / "workflow.yml"
    path.write_text(text.replace(step, f"{step}\n{indent}with:{given}"))
    return path


def act(rig: dict, repo: Path, tmp_path: Path, label: str, flow: Path, env: dict[str, str] | None = None) -> dict:
    """The workflow run by act on a pull request from the repository's branch into main: the job's log and exit,
    the gh calls and body recorded, the artifact's files.  ``env`` replaces the job's environment (the default:
    this process's)."""
    base, head = _git(repo, "rev-parse", "main"), _git(repo, "rev-parse", "HEAD")
    full_name = f"user/{repo.name}"
    side = {"repo": {"full_name": full_name}}
    event = {
        "number": 7,
        "pull_request": {
            "number": 7,
            "base": {"ref": "main", "sha": base, **side},
            "head": {"ref": "change", "sha": head, **side},
        },
        "repository": {"full_name": full_name},
    }
    (tmp_path / "event.json").write_text(json.dumps(event))
    record, artifacts = tmp_path / "gh", tmp_path / "artifacts"
    argv = [act_binary(), "pull_request", "-e", str(tmp_path / "event.json"), "-W", str(flow)]
    argv += ["-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", "--no-cache-server"]
    argv += ["--action-cache-path", str(tmp_path / "act-cache"), "-s", "GITHUB_TOKEN=stand-in"]
    for mapping in rig["repositories"]:
        argv += ["--local-repository", mapping]
    env = env if env is not None else dict(os.environ)
    env = {**env, "PATH": f"{rig['bin']}:{env['PATH']}", "GH_RECORD": str(record)}
    env["ARTIFACTS"] = str(artifacts)
    env = {k: v for k, v in env.items() if not k.startswith(("GITHUB_", "PYTEST_", "VIRTUAL_ENV"))}
    started = time.monotonic()
    done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=rig.get("timeout", 600))
    rig["timings"][label] = round(time.monotonic() - started, 1)
    log = done.stdout + done.stderr
    (tmp_path / f"{label}.log").write_text(log)
    print(f"act {label}: exit {done.returncode} in {rig['timings'][label]} s")
    calls = (record / "calls").read_text().splitlines() if (record / "calls").exists() else []
    body = (record / "body.md").read_text() if (record / "body.md").exists() else None
    artifact = artifacts / "serverbench"
    files = {p.name: p for p in artifact.iterdir()} if artifact.is_dir() else {}
    return {"exit": done.returncode, "log": log, "calls": calls, "body": body, "files": files}


def job_summary(run: dict) -> str:
    """What the job's last step wrote to its step summary, as act logs it ("Summary - TEXT" after the step)."""
    assert "Summary - " in run["log"], "act logged no step summary"
    return run["log"].rsplit("Summary - ", 1)[1]


def render_comment_sample(body: str) -> None:
    """docs/ci.md's sample comment, between its markers, replaced by this run's (SERVERBENCH_RENDER_COMMENT=1)."""
    page = ROOT / "docs" / "ci.md"
    head, rest = page.read_text().split("<!-- BEGIN comment sample -->\n", 1)
    tail = rest.split("<!-- END comment sample -->", 1)[1]
    block = f"```markdown\n{body.rstrip()}\n```\n"
    page.write_text(f"{head}<!-- BEGIN comment sample -->\n{block}<!-- END comment sample -->{tail}")


def result(run: dict) -> dict:
    return json.loads(run["files"]["result.json"].read_text())


def test_an_unknown_mode_fails_the_job_before_installing_anything(rig, tmp_path):
    """mode: nightly: exit 2, the job failed, one error line naming the modes, no comment, nothing installed."""
    repo = project(tmp_path)
    run = act(rig, repo, tmp_path, "unknown-mode", workflow(repo, tmp_path, mode="nightly"))
    assert run["exit"] != 0 and "Job failed" in run["log"], run["log"][-3000:]
    assert "::error::serverbench: mode: 'nightly' is not one of auto, gate, cost" in run["log"], run["log"][-3000:]
    assert run["calls"] == [] and "serverbench-venv" not in run["log"]
    summary = run["files"]["step-summary.md"].read_text()
    assert "**error**" in summary and "'nightly' is not one of auto, gate, cost" in summary
    assert "'nightly' is not one of auto, gate, cost" in job_summary(run)


def test_a_regression_fails_the_job_and_comments_naming_the_function(rig, tmp_path):
    """A pull request that logs the listing pretty-printed: exit 1, the job failed with the verdict line, one comment
    posted (its body names todo.app.list_todos), the artifact holds the comment, summary, decision and report."""
    path, anchor, added, function, endpoint = REGRESSIONS["flask-todo"]
    repo = project(tmp_path)
    source = (repo / path).read_text()
    assert anchor in source, f"the regression's anchor line is gone from {path}"
    _git(repo, "checkout", "-qb", "change")
    (repo / path).write_text(source.replace(anchor, anchor + added))
    _git(repo, "commit", "-qam", "log the listing at debug level")
    run = act(
        rig,
        repo,
        tmp_path,
        "regression",
        workflow(repo, tmp_path, endpoints=endpoint, variants=VARIANT, args=GATE_ARGS),
    )
    out = run["log"][-4000:]
    assert run["exit"] != 0 and "Job failed" in run["log"], out
    assert result(run)["status"] == 1 and result(run)["verdict"] == "regression", out
    assert "::error::serverbench: " in run["log"], out
    posted = [c for c in run["calls"] if "-X POST" in c or "-X PATCH" in c]
    assert len(posted) == 1 and "repos/user/flask-todo/issues/7/comments" in posted[0], run["calls"]
    assert run["body"] is not None and f"`{function}`" in run["body"], run["body"]
    assert run["body"].splitlines()[0].startswith("<!-- serverbench ci: ")
    assert run["body"] == run["files"]["comment.md"].read_text()
    assert {"comment.md", "summary.md", "report.html", "result.json", "step-summary.md"} <= set(run["files"])
    assert any(name.startswith("decision") and name.endswith(".json") for name in run["files"]), sorted(run["files"])
    if os.environ.get("SERVERBENCH_RENDER_COMMENT"):
        render_comment_sample(run["body"])
    assert f"`{function}`" in job_summary(run) and run["files"]["step-summary.md"].read_text() in job_summary(run)


def change(repo: Path, message: str, path: str, old: str, new: str) -> None:
    """The pull request's branch: one commit on `change` replacing ``old`` with ``new`` in ``path``."""
    source = (repo / path).read_text()
    assert old in source, f"{old!r} is gone from {path}"
    _git(repo, "checkout", "-qb", "change")
    (repo / path).write_text(source.replace(old, new, 1))
    _git(repo, "commit", "-qam", message)


def test_a_broken_endpoint_fails_the_job_posting_its_error_and_the_servers_log(rig, tmp_path):
    """A pull request whose POST /todos raises (answers 500): exit 2 from the gate's check of the endpoint, the job
    failed with its one-line error as the annotation, one comment posted with that line and the server's log tail
    (the app's exception), the same in the step summary; the artifact holds no decision and no report."""
    repo = project(tmp_path)
    broken = '    raise RuntimeError("todo: the schema changed")\n'
    change(repo, "a broken add", "todo/app.py", "    data = request.get_json(silent=True)\n", broken)
    flow = workflow(repo, tmp_path, endpoints="add", variants=VARIANT, args=GATE_ARGS)
    run = act(rig, repo, tmp_path, "setup-error", flow)
    out = run["log"][-4000:]
    assert run["exit"] != 0 and "Job failed" in run["log"], out
    verdict = result(run)
    assert verdict["status"] == 2 and verdict["verdict"] == "error", verdict
    said = "does not honour the endpoint contract: POST /todos: status 500 != expected 201"
    (line,) = verdict["lines"]
    assert line.startswith("✗ error: ") and said in line, line
    assert f"::error::serverbench: {line}" in run["log"], out
    posted = [c for c in run["calls"] if "-X POST" in c or "-X PATCH" in c]
    assert len(posted) == 1 and run["body"] == run["files"]["comment.md"].read_text(), run["calls"]
    body = run["body"]
    heading, _, said_first = body.splitlines()[1:4]
    assert heading.startswith("### serverbench gate") and heading.endswith(": ✗ error") and said_first == line, body
    log = body.split("```\n", 1)[1].split("\n```", 1)[0]
    assert "last lines of its output:" in log and "RuntimeError: todo: the schema changed" in log, body
    assert body.split("\n", 1)[1] in job_summary(run)
    assert {"comment.md", "summary.md", "result.json", "step-summary.md"} <= set(run["files"]), sorted(run["files"])
    assert not [name for name in run["files"] if name.startswith("decision") or name == "report.html"]


@pytest.mark.parametrize(("strict", "job"), [("false", "Job succeeded"), ("true", "Job failed")])
def test_could_not_decide_is_a_warning_and_a_comment_failing_the_job_only_when_strict(rig, tmp_path, strict, job):
    """A comment-only change gated at a fixed rate the base arm never holds: exit 3; the comment posted, saying why
    (no latency or CPU pair, the rate held in no block) and what to do (a rate it can hold); the same in the step
    summary; the decision and the report in the artifact.  The job passes with a warning annotation, or under
    strict fails with an error annotation saying so."""
    path = REGRESSIONS["flask-todo"][0]
    repo = project(tmp_path)
    change(repo, "a comment", path, "import os\n", "# a comment, nothing else\nimport os\n")
    flow = workflow(repo, tmp_path, endpoints="list", variants=VARIANT, args=UNHELD_ARGS, strict=strict)
    run = act(rig, repo, tmp_path, f"could-not-decide-strict-{strict}", flow)
    out = run["log"][-4000:]
    assert (run["exit"] == 0) == (strict == "false") and job in run["log"], out
    verdict = result(run)
    assert verdict["status"] == 3 and verdict["verdict"] == "could not decide", verdict
    (line,) = verdict["lines"]
    assert line.startswith("⚠ `list` under waitress-t4: could not decide: ") and "fixed rate held in no block" in line
    annotation = "::warning::serverbench: " if strict == "false" else "::error::serverbench: "
    suffix = "" if strict == "false" else " (strict: could not decide fails the job)"
    assert f"{annotation}{line}{suffix}" in run["log"], out
    posted = [c for c in run["calls"] if "-X POST" in c or "-X PATCH" in c]
    assert len(posted) == 1 and run["body"] == run["files"]["comment.md"].read_text(), run["calls"]
    body = run["body"]
    assert "**⚠ Could not decide** `list` under waitress-t4: " in body, body
    assert f"fell short of the fixed rate ({UNHELD_RATE:,} requests/s per arm) in every block" in body, body
    assert "`-- --rate N`" in body and "`-- --rate auto`" in body, body
    assert body.split("\n", 1)[1] in job_summary(run)
    assert {"comment.md", "summary.md", "decision.json", "report.html", "result.json"} <= set(run["files"])


def test_a_comment_only_change_passes_the_job(rig, tmp_path):
    """A pull request that adds a comment: exit 0 (a pass; nothing posted under on-change) or 3 (could not decide:
    a warning annotation, the comment posted), and the job succeeds either way."""
    path = REGRESSIONS["flask-todo"][0]
    repo = project(tmp_path)
    _git(repo, "checkout", "-qb", "change")
    (repo / path).write_text("# a comment, nothing else\n" + (repo / path).read_text())
    _git(repo, "commit", "-qam", "a comment")
    run = act(
        rig, repo, tmp_path, "comment", workflow(repo, tmp_path, endpoints="list", variants=VARIANT, args=GATE_ARGS)
    )
    out = run["log"][-4000:]
    assert run["exit"] == 0 and "Job succeeded" in run["log"], out
    verdict = result(run)
    assert verdict["status"] in (0, 3), verdict
    if verdict["status"] == 3:
        assert "::warning::serverbench: " in run["log"] and run["body"] is not None, out
    else:
        assert verdict["verdict"] in ("pass", "improvement"), verdict
    rig["timings"]["comment-verdict"] = verdict["verdict"]
    (tmp_path.parent / "timings.json").write_text(json.dumps(rig["timings"], indent=1))
    print(json.dumps(rig["timings"]))
