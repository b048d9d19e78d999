"""benchmarks/interrupt_sweep.py: docs/lab/robustness.md's sweep figures are rendered from its results file; a session's
outcome and a sweep's summary and verdict."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import script, stale_renders


def _script():
    return script("interrupt_sweep.py")


def test_the_committed_sweep_figures_are_the_rendered_ones():
    """Rendering docs/lab/robustness.md from benchmarks/results/interrupt-sweep.json changes nothing."""
    stale = stale_renders(_script())
    assert not stale, f"{stale}: run `python benchmarks/interrupt_sweep.py render` and commit the result"


def test_a_session_that_did_not_exit_hung_one_that_exited_0_lost_its_signal():
    """No exit status is hung, 0 is finished (the SIGINT was lost), 2 and -2 are interrupted."""
    outcome = _script().outcome
    assert [outcome(s) for s in (None, 0, 2, -2)] == ["hung", "finished", "interrupted", "interrupted"]


def test_a_sweep_passes_only_when_every_session_was_interrupted_and_left_nothing():
    """The summary counts each outcome and the processes left, and times only the sessions that exited; one lost
    signal, one hang or one process left fails the sweep."""
    s = _script()

    def row(outcome, exit_s=2.0, left=()):
        return {"outcome": outcome, "exit_s": exit_s, "left": list(left)}

    good = [row("interrupted", 2.0), row("interrupted", 3.0), row("interrupted", 5.5)]
    summary = s.summary(good)
    assert summary == {
        "sessions": 3,
        "interrupted": 3,
        "finished": 0,
        "hung": 0,
        "left_processes": 0,
        "exit_s_median": 3.0,
        "exit_s_max": 5.5,
    }
    assert s.honoured(summary)
    assert not s.honoured(s.summary(good + [row("finished")]))
    hung = s.summary(good + [row("hung", 60.0)])
    assert not s.honoured(hung) and hung["exit_s_max"] == 5.5
    assert not s.honoured(s.summary(good[:2] + [row("interrupted", left=["7 (pid) wrk"])]))
