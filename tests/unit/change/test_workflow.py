"""``serverbench ci`` from its options to its files (change.workflow) in real git repositories: a pull request
gated (the gate's runner answering canned decisions, so no server starts: tests/unit/gate/test_workflow.py's
``plans``), each bad input's one-line error in comment.md, summary.md and result.json, and the changes that cannot be
measured.  The live run is tests/integration/gate/test_ci.py's."""

import json

import pytest

from serverbench.change.workflow import CiOptions, run
from tests.unit.change.conftest import SETTINGS, commit
from tests.unit.gate.test_workflow import plans  # noqa: F401 - the fixture

APP = {"pyproject.toml": SETTINGS, "shop.py": "def app(environ, start_response): ...\n"}


def _event(tmp_path, name, payload):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload) if isinstance(payload, dict) else payload)
    return {"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path)}


def _out(tmp_path):
    out = tmp_path / "out"
    return out, (lambda name: (out / name).read_text()), (lambda: json.loads((out / "result.json").read_text()))


def test_a_pull_request_is_gated_and_every_file_written(repo, tmp_path, plans):  # noqa: F811
    """The event's base, every endpoint of the variant given: exit 0, the comment, the summary (also appended to
    $GITHUB_STEP_SUMMARY), a decision file per endpoint, the report and result.json."""
    base = commit(repo, APP, "base")
    commit(repo, {"shop.py": "def app(environ, start_response): return []\n"}, "head")
    out, text, result = _out(tmp_path)
    step = tmp_path / "step.md"
    step.write_text("earlier\n")
    environ = _event(tmp_path, "pull_request", {"pull_request": {"number": 42, "base": {"sha": base}}})
    options = CiOptions(project=repo, out=out, extra=("--variant", "wsgiref", "--rate", "off"))
    assert run(options, {**environ, "GITHUB_STEP_SUMMARY": str(step)}) == 0
    assert [p.workload.name for p in plans] == ["home", "create"]
    assert text("comment.md").startswith("<!-- serverbench ci: . -->\n### serverbench gate: ✓ pass\n")
    assert step.read_text() == "earlier\n" + text("summary.md") and "<!--" not in text("summary.md")
    assert sorted(p.name for p in out.glob("decision*.json")) == [
        "decision-create-wsgiref.json",
        "decision-home-wsgiref.json",
    ]
    assert (out / "report.html").stat().st_size > 1000
    assert result() == {
        "mode": "gate",
        "status": 0,
        "verdict": "pass",
        "post": False,
        "pull_request": 42,
        "fork": False,
        "lines": [
            "✓ `home` under wsgiref: throughput +0.0% (+0.0 … +0.0%)",
            "✓ `create` under wsgiref: throughput +0.0% (+0.0 … +0.0%)",
        ],
    }


@pytest.mark.parametrize(
    "case,said",
    [
        ("mode", "--mode 'fast' is not a mode: give --mode auto, gate or cost"),
        ("event", "GITHUB_EVENT_PATH"),
        ("settings", "has no serverbench settings (perf_app in pyproject.toml, pytest.ini, tox.ini or setup.cfg)"),
        ("base", "is not in this clone and origin would not send it"),
        ("endpoint", "unknown endpoint(s) 'nope'"),
        ("extra", "the gate's arguments after --: unrecognized arguments: --json"),
        ("comment", "--comment 'loud' is not a choice"),
    ],
)
def test_each_bad_input_reaches_the_comment_the_summary_and_result_json(repo, tmp_path, case, said):
    """Exit 2, one line naming the fix in comment.md, summary.md and result.json (verdict error)."""
    base = commit(repo, APP if case != "settings" else {"README": "no settings\n"}, "base")
    out, text, result = _out(tmp_path)
    options = {
        "mode": "fast" if case == "mode" else "auto",
        "base": "1" * 40 if case == "base" else base,
        "endpoints": ("nope",) if case == "endpoint" else (),
        "variants": ("wsgiref",),
        "extra": ("--json", "x.json") if case == "extra" else (),
        "comment": "loud" if case == "comment" else "on-change",
    }
    environ = _event(tmp_path, "pull_request", "{not json" if case == "event" else {"pull_request": {"number": 3}})
    assert run(CiOptions(project=repo, out=out, **options), environ) == 2
    line = next(x for x in text("comment.md").splitlines() if x.startswith("✗ error: "))
    assert said in line, line
    assert line in text("summary.md").splitlines()
    assert result()["status"] == 2 and result()["verdict"] == "error" and result()["lines"] == [line]
    assert result()["post"] is True and not (out / "report.html").exists()


def test_a_base_without_settings_is_not_measured(repo, tmp_path):
    """The pull request that adds serverbench's settings: not measured, exit 0, the reason in the comment."""
    base = commit(repo, {"README": "before serverbench\n"}, "base")
    commit(repo, APP, "adds serverbench")
    out, text, result = _out(tmp_path)
    assert run(CiOptions(mode="gate", project=repo, out=out, base=base), {}) == 0
    assert "○ not measured: the base (" in text("comment.md") and "this change adds them" in text("comment.md")
    assert result()["verdict"] == "not measured" and result()["mode"] == "gate" and result()["post"] is False


def test_a_push_that_made_the_repository_is_not_measured(repo, tmp_path):
    """A push whose before is all zeros and whose commit has no parent: nothing before it to count."""
    commit(repo, APP, "first")
    out, text, result = _out(tmp_path)
    assert run(CiOptions(project=repo, out=out), _event(tmp_path, "push", {"before": "0" * 40})) == 0
    assert "the repository's first commit" in text("comment.md")
    assert result()["mode"] == "cost" and result()["verdict"] == "not measured"


def test_a_new_branch_is_counted_against_the_parent(repo, tmp_path, capsys):
    """All zeros on a later commit: the parent, here one without settings (this push adds them)."""
    parent = commit(repo, {"README": "x\n"}, "before")
    commit(repo, APP, "adds serverbench")
    out, text, _ = _out(tmp_path)
    assert run(CiOptions(mode="cost", project=repo, out=out, before="0" * 40), {}) == 0
    assert f"counting against the pushed commit's parent {parent}" in capsys.readouterr().err
    assert f"the commit before the push ({parent}) has no serverbench settings" in text("comment.md")
    assert "this push adds them" in text("comment.md")
