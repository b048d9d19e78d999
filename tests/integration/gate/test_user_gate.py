"""The A/B gate in a user's project (serverbench gate, no pytest): their app at a git ref against
the working tree, on an endpoint by name.  An extra serialization in the user's function is a regression
(exit 1) whose Markdown names the function; a comment-only change passes; stopped by SIGTERM or Ctrl-C while it
counts, it ends at once and leaves nothing behind."""

import shutil
import signal
import subprocess
import sys

import pytest

from tests.integration.sessions.test_fault_census import Watched, _appeared, stopped_at
from tests.integration.userapps.test_user_app_cost import INI, SHOP

pytestmark = [
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed"),
]

# --blocks 8: with --rate off alpha 0.01 is split over throughput and CPU (0.005 each), which the exact Wilcoxon
# floor 0.5**n passes from n = 8 (judge.ab.min_blocks), the fewest the gate accepts; the default 12 buys power
# these tests do not assert (a regression's exit 1 comes from the counts; a comment-only change may exit 3).
# --cost-repeats 1, the shipped default: one count per arm, both at once, a second only when the pair is ambiguous.
QUICK = [
    "--endpoint",
    "home",
    "--duration",
    "1",
    "--warmup",
    "0",
    "--rate",
    "off",
    "--cost-repeats",
    "1",
    "--retries",
    "0",
    "--blocks",
    "8",
]


def _project(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "shop.py").write_text(SHOP.format(extra=0))
    (tmp_path / "pytest.ini").write_text(INI)
    git = ["git", "-C", str(tmp_path), "-c", "user.email=ci@example.org", "-c", "user.name=ci"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    return tmp_path


def _gate(project, *extra):
    return subprocess.run(
        [sys.executable, "-m", "serverbench", "gate", "--base-ref", "HEAD", *QUICK, *extra],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )


# Not alone: its exit 1 and the function named come from the counted cost (instructions do not move with the
# load beside it), and any regression fails the decision whatever its timed signals say.
def test_gate_fails_a_costlier_user_function_and_names_it(tmp_path):
    """The working tree's render_home serializes 20 more times: exit 1, the Markdown's table names it (role app)."""
    project = _project(tmp_path)
    (project / "shop.py").write_text(SHOP.format(extra=20))
    run = _gate(project, "--markdown", "summary.md")
    assert run.returncode == 1, run.stdout + run.stderr
    summary = (project / "summary.md").read_text()
    assert "waitress-t4/shop home" in summary and "| app | shop | `shop.render_home` |" in summary, summary


@pytest.mark.alone(reason="the gate's timed signals must not call a comment a regression")
def test_gate_passes_a_comment_only_change(tmp_path):
    """A comment added to the user's module is no regression: the counted signal passes and the gate exits 0
    (or 3 when this shared machine was too noisy for the timed signals: never 1, never reported as a pass)."""
    project = _project(tmp_path)
    (project / "shop.py").write_text("# a comment only\n" + SHOP.format(extra=0))
    run = _gate(project)
    counted = next(line for line in run.stdout.splitlines() if "instructions per request (counted)" in line)
    assert counted.endswith("-> pass") and run.returncode in (0, 3), run.stdout + run.stderr


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT"])
def test_a_gate_stopped_while_counting_leaves_nothing_behind(tmp_path, how):
    """The gate stopped by SIGTERM or Ctrl-C while both arms are counted under valgrind (in threads the signal does
    not reach): it exits 128 + the signal within seconds, not at the counts' end, with no process, base worktree or
    temporary file left."""
    project = _project(tmp_path / "shop")
    (project / "pytest.ini").write_text(INI.replace("perf_cost_requests = 40", "perf_cost_requests = 3000"))
    (tmp_path / "watch").mkdir()
    gate = Watched(
        tmp_path / "watch",
        [sys.executable, "-m", "serverbench", "gate", "--repo", str(project), "--base-ref", "HEAD", *QUICK],
    )
    # within 20 s, not at the counts' end: 3,000 requests under valgrind take minutes
    assert stopped_at(gate, _appeared("valgrind", 2), how, project) == 128 + getattr(signal, how)
