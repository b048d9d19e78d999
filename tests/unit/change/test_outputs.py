"""What a ``serverbench ci`` run leaves in --out (change.outputs): the decision files' names, and the files an
outcome that measured nothing still writes."""

import json

from serverbench.change.event import Event
from serverbench.change.outputs import decision_names, write
from serverbench.change.result import Outcome
from serverbench.report.comment import error_comment
from tests.unit.report.sample_decisions import BASE, timed


def test_one_decision_is_decision_json_several_are_named_by_cell():
    """decision.json alone; decision-ENDPOINT-VARIANT.json each when there are several."""
    one = timed(BASE)
    assert decision_names(Outcome("gate", "pass", (), "", ((one, ()),))) == ["decision.json"]
    other = timed(BASE, cell="wsgiref/todo.app add c32")
    assert decision_names(Outcome("gate", "pass", (), "", ((one, ()), (other, ())))) == [
        "decision-list-waitress-t4.json",
        "decision-add-wsgiref.json",
    ]


def test_an_error_writes_the_comment_summary_and_result_but_no_report(tmp_path, capsys):
    """Nothing measured: comment.md, summary.md (appended to the step summary too), result.json; no report.html,
    and a note saying why."""
    comment = error_comment(".", "gate", "no base commit: give --base SHA")
    step = tmp_path / "step.md"
    write(
        tmp_path / "out", Outcome("gate", "error", ("✗ error: no base commit",), comment), "never", Event(), str(step)
    )
    out = tmp_path / "out"
    assert (out / "comment.md").read_text() == comment
    assert (out / "summary.md").read_text() == step.read_text() == comment.split("\n", 1)[1]
    assert json.loads((out / "result.json").read_text())["post"] is False
    assert not (out / "report.html").exists() and "no report.html: nothing was measured" in capsys.readouterr().err
