"""benchmarks/answers.py: the times README.md and docs/lab/measurements.md state are rendered from one measurement file,
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
    """Rendering README.md and docs/lab/measurements.md from benchmarks/results/answers.json changes nothing: no time in
    their generated blocks was typed by hand or left behind by a newer measurement."""
    answers = _answers()
    stale = stale_renders(answers)
    assert not stale, f"{stale}: run `python benchmarks/answers.py render` and commit the result"


def test_a_stamped_tests_log_gives_the_installs_pytest_and_the_slowest_tests(tmp_path):
    """The seconds before pytest's session starts are the installs; its summary line ends pytest's time; stamp.sh's
    END line ends ./run's (which may wait for oha's build after pytest); ./run's "done in" lines are the steps; the
    JUnit file gives the slowest tests."""
    log = tmp_path / "tests.log"
    log.write_text(
        "00:00:00 +   0s START ./run tests\n"
        "00:00:40 +  40s serverbench: apt: done in 38 s\n"
        "00:01:10 +  70s ============================= test session starts ==============================\n"
        "00:09:30 + 570s ================= 3 passed, 1 skipped in 498.10s (0:08:18) =================\n"
        "00:09:35 + 575s serverbench: oha: done in 505 s (beside the tests)\n"
        "00:09:36 +576s END exit=0\n"
    )
    junit = tmp_path / "junit.xml"
    junit.write_text(
        '<testsuites><testsuite><testcase classname="tests.a" name="t1" time="12.5"/>'
        '<testcase classname="tests.b" name="t2" time="40.0"/></testsuite></testsuites>'
    )
    found = _answers().tests_figures(log, junit)
    assert (found["setup_s"], found["pytest_s"], found["total_s"]) == (70, 500, 576)
    assert found["steps_s"] == {"apt": 38, "oha": 505}
    assert found["slowest"][0] == {"test": "tests.b::t2", "s": 40.0}
    assert json.dumps(found)  # the answers file holds it as JSON


def test_the_readme_states_only_the_bare_figure_with_its_machine():
    """The README's tests time is the bare run's (benchmarks/bare_tests.sh), never a sum of two others: its whole
    time, ready, pytest and oha's build beside the tests, with the machine and what stayed installed; without a bare
    run the README's line is not rendered from the older fresh-clone figures."""
    answers = _answers()
    data = json.loads(answers.ANSWERS.read_text())
    data.pop(answers.BARE, None)
    assert "answers-readme" not in answers.blocks(data)
    data[answers.BARE] = {
        "total_s": 590,
        "setup_s": 95,
        "pytest_s": 480,
        "steps_s": {"apt": 70, "oha": 400},
        "summary": "2,400 passed in 480.00s",
        "conditions": "a fresh clone of abc1234 on a 2-core AMD EPYC; still installed: apt's wrk",
    }
    line = answers.blocks(data)["answers-readme"]
    assert "`./run tests` took 9 min 50 s (2,400 passed in 480.00s): ready in 1 min 35 s, then 8 min 00 s" in line
    assert "with oha built beside the tests in 6 min 40 s" in line
    assert "a fresh clone of abc1234 on a 2-core AMD EPYC; still installed: apt's wrk" in line
