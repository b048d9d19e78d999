"""benchmarks/answers.py: the times README.md and docs/measurements.md state are rendered from one measurement file,
and the committed copies match it; the log and JUnit readers on small files."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from tests.unit.repo.benchmark_scripts import stale_renders

ROOT = Path(__file__).resolve().parents[3]


def _answers():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("answers", ROOT / "benchmarks" / "answers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_figures_are_the_rendered_ones():
    """Rendering README.md and docs/measurements.md from benchmarks/results/answers.json changes nothing: no time in
    their generated blocks was typed by hand or left behind by a newer measurement."""
    answers = _answers()
    stale = stale_renders(answers)
    assert not stale, f"{stale}: run `python benchmarks/answers.py render` and commit the result"


def test_a_stamped_tests_log_gives_the_installs_pytest_and_the_slowest_tests(tmp_path):
    """The seconds before pytest's session starts are the installs; its summary line ends pytest's time; ./run's
    "done in" lines are the steps; the JUnit file gives the slowest tests."""
    log = tmp_path / "tests.log"
    log.write_text(
        "00:00:00 +   0s START ./run tests\n"
        "00:00:40 +  40s serverbench: apt: done in 38 s\n"
        "00:01:10 +  70s ============================= test session starts ==============================\n"
        "00:09:30 + 570s ================= 3 passed, 1 skipped in 498.10s (0:08:18) =================\n"
        "00:09:31 +571s END exit=0\n"
    )
    junit = tmp_path / "junit.xml"
    junit.write_text(
        '<testsuites><testsuite><testcase classname="tests.a" name="t1" time="12.5"/>'
        '<testcase classname="tests.b" name="t2" time="40.0"/></testsuite></testsuites>'
    )
    found = _answers().tests_figures(log, junit)
    assert (found["setup_s"], found["pytest_s"], found["total_s"]) == (70, 500, 570)
    assert found["steps_s"] == {"apt": 38}
    assert found["slowest"][0] == {"test": "tests.b::t2", "s": 40.0}
    assert json.dumps(found)  # the answers file holds it as JSON


def test_a_run_with_oha_to_build_is_rendered_beside_the_fresh_clone():
    """A measurement under the fresh-machine name (oha still to be built) adds its time to the README's line and
    two rows to the table, with its conditions; without it, neither appears."""
    answers = _answers()
    data = json.loads(answers.ANSWERS.read_text())
    data.pop(answers.FRESH, None)
    without = answers.blocks(data)
    assert "oha was still to be built" not in without["answers-readme"]
    assert "with oha to build" not in without["answers-times"]
    data[answers.FRESH] = {"total_s": 545, "setup_s": 15, "pytest_s": 530, "conditions": "oha hidden"}
    made = answers.blocks(data)
    assert (
        ", and 9 min 05 s where oha was still to be built (15 s of installs, 8 min 50 s of pytest"
        in (made["answers-readme"])
    )
    before = data["tests-before"]
    assert (
        f"| `./run tests` with oha to build | {answers.clock(before['total_s'])} → 9 min 05 s ("
        in made["answers-times"]
    )
    assert "`./run tests` with oha to build: oha hidden." in made["answers-times"]
