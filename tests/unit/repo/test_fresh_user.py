"""benchmarks/fresh_user.py: docs/lab/robustness.md's fresh-user times are rendered from its results file, and the
fresh-user test's output is read into that file's form."""

from __future__ import annotations

import pytest
import yaml

from tests.unit.repo.benchmark_scripts import ROOT, script, stale_renders

LOG = """\
tests/unit/repo/test_workflows.py ./run tests --collect-only as serverbench-ci: exit 0 in 170 s
  serverbench: installing chromium with sudo -n apt-get
  serverbench: apt: started (log: .tools/logs/apt.log)
  serverbench: uv-sync: started (log: .tools/logs/uv-sync.log)
  serverbench: apt: done in 41 s
  serverbench: uv-sync: done in 97 s
  serverbench: ready in 101 s
.
================ 1 passed, 60 deselected in 181.27s (0:03:01) ================
"""


def _script():
    return script("fresh_user.py")


def test_the_committed_fresh_user_figures_are_the_rendered_ones():
    """Rendering docs/lab/robustness.md from benchmarks/results/fresh-user.json changes nothing: no time of the
    fresh-user test was typed by hand or left behind by a newer run."""
    stale = stale_renders(_script())
    assert not stale, f"{stale}: run `python benchmarks/fresh_user.py render` and commit the result"


def test_it_times_the_command_the_doc_and_the_documented_job_give():
    """The command `record` runs is docs/lab/robustness.md's fresh-user line and the documented job's step, as written."""
    command = _script().COMMAND
    assert f"```sh\n{command}\n```" in (ROOT / "docs" / "lab" / "robustness.md").read_text()
    job = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text())["jobs"]["documented"]
    assert command in [step.get("run") for step in job["steps"]]


def test_a_run_gives_run_s_ready_s_its_steps_in_order_and_pytest_s_seconds():
    """The test's printed line, ./run's `done in` and `ready in` lines, in the order ./run waited, and the summary."""
    assert _script().parse(LOG) == {
        "exit": 0,
        "run_s": 170,
        "ready_s": 101,
        "steps": [["apt", 41], ["uv-sync", 97]],
        "test_s": 181.3,
    }


@pytest.mark.parametrize(
    ("summary", "said"),
    [("1 skipped, 60 deselected in 0.40s", "skipped .*needs root"), ("1 failed in 90.00s", "did not pass")],
)
def test_a_run_that_skips_or_fails_is_refused_naming_the_fix(summary, said):
    """A skipped or failed run records nothing and says why (a skip: what the test needs)."""
    with pytest.raises(SystemExit, match=f"{said}.*nothing recorded"):
        _script().parse(f"=========== {summary} ===========\n")


def test_output_without_a_summary_is_refused():
    """Output cut before pytest's summary line is refused, asking for the whole output."""
    with pytest.raises(SystemExit, match="keep the command's whole output"):
        _script().parse(LOG.rsplit("=", 20)[0].split("=====")[0])


def test_the_block_gives_spreads_and_only_the_first_step_s_own_time():
    """Each figure is its least to its most over the runs (one figure when they agree); a step after the first is
    not given, since ./run says its time only after waiting for those before it."""
    run = {"date": "2026-11-27", "commit": "abc1234", **_script().parse(LOG), "wall_s": 183.0}
    other = {**run, "wall_s": 200.4, "run_s": 180, "steps": [["apt", 55], ["uv-sync", 120]]}
    block = _script().render_block({"runs": [run, other]})
    text = " ".join(block.split())
    assert "Over 2 runs here (2026-11-27, at abc1234," in text and "183 to 200 s for the whole command" in text
    assert "`./run tests --collect-only` took 170 to 180 s" in text and "(`apt`, after 41 to 55 s)" in text
    assert "97" not in text and "120" not in text
    assert "collecting the tests took the other 69 to 79 s" in text  # run_s - ready_s


def test_the_block_names_each_commit_its_runs_were_at_once():
    """Runs at several commits name each once, in the order they ran."""
    run = {"date": "2026-11-27", "wall_s": 183.0, **_script().parse(LOG)}
    runs = [{**run, "commit": commit} for commit in ("a1", "a1", "b2", "c3")]
    assert "at a1, b2 and c3, the shared" in " ".join(_script().render_block({"runs": runs}).split())
