"""benchmarks/pr_job.py: the pull-request job's timing, read from act's log and rendered into docs/lab/gate.md."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_block_is_the_rendered_one():
    """docs/lab/gate.md's pr-job block is what the results file renders."""
    stale = stale_renders(script("pr_job.py"))
    assert not stale, f"{stale}: run `python benchmarks/pr_job.py render` and commit the result"


def test_acts_step_durations_read_as_seconds():
    """act's durations (minutes and seconds, seconds, milliseconds, hours) read as seconds, and a step's line in
    its log gives the step's name and time."""
    pr_job = script("pr_job.py")
    assert pr_job.seconds("1m2.5s") == 62.5
    assert pr_job.seconds("850ms") == 0.85
    assert pr_job.seconds("1h0m3s") == 3603.0
    line = "[serverbench/serverbench]   ✅  Success - Main serverbench ci [1m47.92s]"
    found = pr_job.STEP.search(line)
    assert found["step"].strip() == "serverbench ci" and pr_job.seconds(found["took"]) == 107.92


def test_the_table_names_each_cache_state_its_time_and_whether_the_fixed_rate_ran():
    """One row per cache state: minutes and seconds of the job, the gate step's seconds, the verdict with its exit,
    and the fixed-rate windows off when oha was missing."""
    line = {"label": "cold", "seconds": 131.9, "exit": 0, "verdict": "pass", "rate_off": True, "machine": "M"}
    line |= {"steps": {"serverbench ci": 107.9}, "commit": "abc", "at": "2026-12-03T18:00:00Z"}
    warm = {**line, "label": "warm", "seconds": 59.4, "rate_off": False, "steps": {}}
    text = script("pr_job.py").table([line, warm])
    assert "| cold | 2 min 12 s | 108 s | pass (exit 0) | off (no oha) | M, abc, 2026-12-03 |" in text
    assert "| warm | 59 s | ? | pass (exit 0) | on |" in text


def test_the_ci_pages_sentence_gives_each_cache_states_time_and_says_when_the_fixed_rate_was_off():
    """docs/ci.md's sentence: each cache state's job time in minutes and seconds, the missing fixed-rate windows
    named where oha could not be fetched, and the machine; with no measurement it says how to make one."""
    cold = {"label": "cold", "seconds": 131.9, "rate_off": True, "machine": "2-core M"}
    warm = {"label": "warm", "seconds": 59.4, "rate_off": False, "machine": "2-core M"}
    text = script("pr_job.py").in_words([cold, warm])
    assert text.startswith(
        "For three endpoints under one server, the whole job took 2 min 12 s from a cold cache (without the "
        "fixed-rate windows: no oha could be fetched); 59 s from a warm cache, on a 2-core M"
    ), text
    assert script("pr_job.py").in_words([]).startswith("Not measured yet")
