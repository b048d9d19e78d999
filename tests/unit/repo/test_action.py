"""The action (action.yml and its scripts in action/): each example's workflow is the few lines that use it, the
oha it fetches is the driver's, and the scripts' paths that start no server run for real: the inputs checked, the
comment posted or updated through gh (a recording stand-in, tests/standins/gh), a read-only token and a fork's
pull request said as such, and the job's status set from each exit of `serverbench ci`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from serverbench.drivers.oha import VERSION as OHA_VERSION

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = ROOT / "action"
EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir() if (p / "pyproject.toml").is_file())
MARKER = "<!-- serverbench ci: . -->"


def _environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "SB_", "RUNNER_"))}
    return {**base, "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(tmp_path / "output"), **extra}


def _script(name: str, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPTS / name), *args],
        env=_environment(tmp_path, **env),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _outputs(tmp_path: Path) -> dict[str, str]:
    lines = (tmp_path / "output").read_text().splitlines() if (tmp_path / "output").exists() else []
    return dict(line.split("=", 1) for line in lines)


def test_each_example_workflow_is_the_action_after_a_checkout():
    """Every example's workflow checks out and uses the action, nothing else; no example carries ci/ scripts."""
    for example in EXAMPLES:
        workflow = yaml.safe_load((example / ".github" / "workflows" / "serverbench.yml").read_text())
        (job,) = workflow["jobs"].values()
        assert [s["uses"] for s in job["steps"]] == ["actions/checkout@v4", "OWNER/serverbench@main"], example.name
        assert workflow["permissions"]["pull-requests"] == "write" and not (example / "ci").exists()


def test_every_step_of_the_action_runs_a_script_that_exists_and_the_cache_is_keyed_by_ohas_version():
    """Each `run:` of action.yml calls one script of action/ (the logic stays out of YAML); oha's cache key ends
    in the version the driver reads, which inputs.sh reads from the same line."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = action["runs"]["steps"]
    for step in (s for s in steps if "run" in s):
        script = step["run"].split('"$GITHUB_ACTION_PATH/', 1)[1].split('"', 1)[0]
        assert (ROOT / script).is_file() and script.startswith("action/"), step["run"]
    (cache,) = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
    assert cache["with"]["key"].endswith("-${{ steps.inputs.outputs.oha-version }}")
    assert [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@v4")]


def test_the_scripts_pass_shellcheck():
    """shellcheck finds nothing in action/*.sh and the gh stand-in."""
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    scripts = [*map(str, sorted(SCRIPTS.glob("*.sh"))), str(ROOT / "tests" / "standins" / "gh")]
    done = subprocess.run(["shellcheck", "-x", *scripts], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def _inputs(tmp_path: Path, **inputs: str) -> subprocess.CompletedProcess:
    given = {"INPUT_MODE": "auto", "INPUT_COMMENT": "on-change", "INPUT_STRICT": "false", "INPUT_PROJECT": "."}
    given.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return _script("inputs.sh", tmp_path, GITHUB_ACTION_PATH=str(ROOT), GITHUB_EVENT_NAME="pull_request", **given)


def test_the_inputs_pick_gate_on_a_pull_request_and_name_ohas_version(tmp_path):
    """auto on a pull request is the gate; the oha to cache is the driver's version, in a folder named by it."""
    done = _inputs(tmp_path)
    outputs = _outputs(tmp_path)
    assert done.returncode == 0, done.stderr
    assert outputs["mode"] == "gate" and outputs["oha-version"] == OHA_VERSION
    assert outputs["oha-dir"].endswith(f"/oha-{OHA_VERSION}") and outputs["out"] == str(tmp_path / "serverbench-out")


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ({"mode": "nightly"}, "mode: 'nightly' is not one of auto, gate, cost"),
        ({"comment": "sometimes"}, "comment: 'sometimes' is not one of on-change, always, never"),
        ({"strict": "yes"}, "strict: 'yes' is not true or false"),
        ({"project": "app"}, "project: there is no folder 'app'"),
    ],
)
def test_a_bad_input_is_one_error_line_in_the_summary(tmp_path, inputs, said):
    """A wrong input: exit 2, an error annotation and the summary naming the values it takes."""
    done = _inputs(tmp_path, **inputs)
    assert done.returncode == 2 and f"::error::serverbench: {said}" in done.stdout, done.stdout + done.stderr
    assert said in (tmp_path / "serverbench-out" / "step-summary.md").read_text()


def _decided(tmp_path: Path, status: int, verdict: str, **fields) -> Path:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    line = f"{verdict}: the line"
    record = {"mode": "gate", "status": status, "verdict": verdict, "post": True, "pull_request": 7, "fork": False}
    (out / "result.json").write_text(json.dumps({**record, "lines": [line], **fields}))
    (out / "comment.md").write_text(f"{MARKER}\n### {line}\n")
    return out


@pytest.mark.parametrize(
    ("status", "verdict", "strict", "exit_status", "annotation"),
    [
        (0, "pass", "false", 0, None),
        (0, "not measured", "false", 0, "::notice::"),
        (0, "not measured", "true", 1, "::error::"),
        (1, "regression", "false", 1, "::error::"),
        (2, "error", "false", 2, "::error::"),
        (3, "could not decide", "false", 0, "::warning::"),
        (3, "could not decide", "true", 3, "::error::"),
    ],
)
def test_the_last_step_sets_the_jobs_status_from_the_exit(tmp_path, status, verdict, strict, exit_status, annotation):
    """1 and 2 fail the job with the verdict line; 3 warns and passes unless strict; not measured fails only strict."""
    out = _decided(tmp_path, status, verdict)
    done = _script("conclude.sh", tmp_path, SB_OUT=str(out), SB_STATUS=str(status), INPUT_STRICT=strict)
    assert done.returncode == exit_status, done.stdout + done.stderr
    if annotation is None:
        assert "::" not in done.stdout
    else:
        assert f"{annotation}serverbench: {verdict}: the line" in done.stdout, done.stdout


def test_the_last_step_appends_the_actions_summary_to_the_jobs(tmp_path):
    """step-summary.md (what serverbench ci and the action's steps said) goes to $GITHUB_STEP_SUMMARY in one piece."""
    out = _decided(tmp_path, 0, "pass")
    (out / "step-summary.md").write_text("### serverbench A/B: **pass**\n")
    job = tmp_path / "job-summary.md"
    done = _script("conclude.sh", tmp_path, SB_OUT=str(out), SB_STATUS="0", GITHUB_STEP_SUMMARY=str(job))
    assert done.returncode == 0 and job.read_text() == "### serverbench A/B: **pass**\n"


def _post(tmp_path: Path, out: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, Path]:
    record = tmp_path / "gh"
    path = f"{ROOT / 'tests' / 'standins'}:{os.environ['PATH']}"
    env = {"GH_RECORD": str(record), "PATH": path, "GITHUB_REPOSITORY": "user/project", **env}
    return _script("post.sh", tmp_path, str(out), *args, SB_OUT=str(out), **env), record


def test_the_comment_is_posted_once_then_updated(tmp_path):
    """No comment holds the marker: one POST of comment.md; one does: that comment is PATCHed, none is added."""
    out = _decided(tmp_path, 1, "regression")
    done, record = _post(tmp_path, out)
    calls = (record / "calls").read_text().splitlines()
    assert done.returncode == 0 and calls[0].startswith("api --paginate repos/user/project/issues/7/comments")
    assert calls[1] == f"api -X POST repos/user/project/issues/7/comments -F body=@{out}/comment.md --jq .html_url"
    assert (record / "body.md").read_text() == (out / "comment.md").read_text()
    shutil.rmtree(record)
    done, record = _post(tmp_path, out, GH_EXISTING="42")
    calls = (record / "calls").read_text().splitlines()
    assert calls[1] == f"api -X PATCH repos/user/project/issues/comments/42 -F body=@{out}/comment.md --jq .html_url"
    assert len(calls) == 2 and "comment updated" in done.stderr


def test_a_token_that_cannot_write_is_a_warning_naming_the_permission(tmp_path):
    """gh's HTTP 403: a warning annotation naming `permissions: pull-requests: write`, exit 0 (the verdict decides)."""
    done, _ = _post(tmp_path, _decided(tmp_path, 0, "improvement"), GH_FAIL="403")
    assert done.returncode == 0 and "::warning::" in done.stdout and "pull-requests: write" in done.stdout


def test_a_fork_gets_no_comment_and_the_summary_names_the_workflow_run_pattern(tmp_path):
    """A fork's pull request: gh is never called; the summary says comment.md is in the artifact, for workflow_run.
    The comment action's --from-artifact posts it."""
    out = _decided(tmp_path, 1, "regression", fork=True)
    done, record = _post(tmp_path, out)
    assert done.returncode == 0 and not record.exists()
    summary = (out / "step-summary.md").read_text()
    assert "from a fork" in summary and "comment.md" in summary and "workflow_run" in summary
    done, record = _post(tmp_path, out, "--from-artifact", GITHUB_STEP_SUMMARY=str(tmp_path / "job.md"))
    assert "-X POST" in (record / "calls").read_text()


def test_nothing_is_posted_when_the_verdict_says_not_to(tmp_path):
    """post: false (a pass under on-change, or comment: never): gh is never called."""
    done, record = _post(tmp_path, _decided(tmp_path, 0, "pass", post=False))
    assert done.returncode == 0 and not record.exists()


def test_the_comment_action_posts_with_the_same_script():
    """comment/action.yml downloads the artifact and runs action/post.sh on it with --from-artifact."""
    steps = yaml.safe_load((ROOT / "comment" / "action.yml").read_text())["runs"]["steps"]
    assert steps[0]["uses"] == "actions/download-artifact@v4" and "run-id" in steps[0]["with"]
    assert '"$GITHUB_ACTION_PATH/../action/post.sh" "$SB_DIR" --from-artifact' in steps[1]["run"]


DOC = ROOT / "docs" / "ci.md"


def _yaml_blocks(text: str) -> list[str]:
    return [block.split("\n```", 1)[0] + "\n" for block in text.split("```yaml\n")[1:]]


def test_the_page_shows_the_examples_workflow_and_every_input_with_its_default():
    """docs/ci.md's workflow is flask-todo's file as it is; its table has a row for each input of action.yml."""
    page = DOC.read_text()
    workflow = (ROOT / "examples" / "flask-todo" / ".github" / "workflows" / "serverbench.yml").read_text()
    assert _yaml_blocks(page)[0] == workflow
    inputs = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    rows = {
        line.split("|")[1].strip(" `"): line.split("|")[2].strip()
        for line in page.splitlines()
        if line.startswith("| `")
    }
    assert set(inputs) <= set(rows), sorted(set(inputs) - set(rows))
    for name, spec in inputs.items():
        default = spec.get("default", "")
        if default and "${{" not in default and not rows[name].startswith("the project"):
            assert rows[name] == f"`{default}`", (name, rows[name], default)
    assert "(docs/ci.md)" in (ROOT / "README.md").read_text()


def test_the_pages_comment_is_one_the_action_posted():
    """The sample between the page's markers is a comment.md the act test copied in (its marker line first, the
    planted regression's function named), not text typed into the page."""
    sample = DOC.read_text().split("<!-- BEGIN comment sample -->\n", 1)[1].split("<!-- END comment sample -->", 1)[0]
    body = sample.split("```markdown\n", 1)[1].rsplit("\n```", 1)[0]
    assert body.startswith("<!-- serverbench ci: ") and "`todo.app.list_todos`" in body, sample


def test_the_fork_workflow_on_the_page_passes_actionlint(tmp_path):
    """docs/ci.md's workflow_run example is a valid workflow (actionlint) that runs the comment action."""
    block = _yaml_blocks(DOC.read_text())[1]
    assert "workflow_run:" in block and "OWNER/serverbench/comment@main" in block
    actionlint = shutil.which("actionlint") or str(Path.home() / "go" / "bin" / "actionlint")
    if not os.access(actionlint, os.X_OK):
        pytest.skip("actionlint is not installed (./run tests builds it when go is on PATH)")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    path = tmp_path / ".github" / "workflows" / "comment.yml"
    path.write_text(block)
    done = subprocess.run([actionlint, "-no-color", str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("mode", "passed"), [("gate", True), ("cost", False)])
def test_the_interpreter_inputs_reach_the_gate_after_its_arguments(tmp_path, mode, passed):
    """base-python and cand-python are passed to the gate (after --, behind args); mode cost leaves them out, saying
    so: `serverbench ci` is a stand-in that records its arguments."""
    out, bindir = tmp_path / "out", tmp_path / "venv" / "bin"
    out.mkdir()
    bindir.mkdir(parents=True)
    fake = bindir / "serverbench"
    fake.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path}/argv"\n'
        'echo \'{"mode": "gate", "status": 0, "verdict": "pass", "post": false}\' > "$SB_OUT/result.json"\n'
    )
    fake.chmod(0o755)
    done = _script(
        "run.sh",
        tmp_path,
        SB_OUT=str(out),
        SB_PYTHON=str(bindir / "python"),
        SB_MODE=mode,
        SB_INPUT_MODE=mode,
        SB_RATE_OFF="false",
        INPUT_PROJECT=".",
        INPUT_ENDPOINTS="",
        INPUT_VARIANTS="",
        INPUT_COMMENT="on-change",
        INPUT_ARGS="--blocks 6",
        INPUT_BASE_PYTHON="3.11",
        INPUT_CAND_PYTHON="3.13",
    )
    assert done.returncode == 0, done.stderr
    argv = (tmp_path / "argv").read_text().split()
    after = argv[argv.index("--") + 1 :]
    if passed:
        assert after == ["--blocks", "6", "--base-python", "3.11", "--cand-python", "3.13"]
    else:
        assert after == ["--blocks", "6"] and "base-python and cand-python are the gate's" in done.stderr
