"""What a ``serverbench ci`` run concluded (change.result): each verdict's exit status, --comment's choice, and
result.json's fields."""

import pytest

from serverbench.change.event import Event
from serverbench.change.result import Outcome, check_comment, posted, record
from serverbench.errors import ConfigError


@pytest.mark.parametrize(
    "verdict,status",
    [("pass", 0), ("improvement", 0), ("not measured", 0), ("regression", 1), ("error", 2), ("could not decide", 3)],
)
def test_each_verdict_has_its_exit_status(verdict, status):
    """0 pass, improvement, not measured; 1 regression; 2 an error; 3 could not decide."""
    assert Outcome("gate", verdict, (), "").status == status


def test_on_change_posts_on_what_a_reader_must_see():
    """on-change posts a regression, an improvement, could-not-decide and an error, never a pass; always and never."""
    assert [
        v
        for v in ("pass", "improvement", "regression", "could not decide", "error", "not measured")
        if posted("on-change", v)
    ] == [
        "improvement",
        "regression",
        "could not decide",
        "error",
    ]
    assert posted("always", "pass") and posted("always", "not measured")
    assert not posted("never", "regression")


def test_an_unknown_comment_choice_is_refused():
    """--comment other than on-change, always or never names the choices."""
    with pytest.raises(
        ConfigError, match="--comment 'sometimes' is not a choice: give --comment on-change, always or never"
    ):
        check_comment("sometimes")


def test_result_json_has_the_contracts_fields():
    """mode, status, verdict, post, pull_request, fork, lines: what the action reads."""
    event = Event(
        "pull_request",
        {"pull_request": {"number": 7, "head": {"repo": {"full_name": "a/b"}}, "base": {"repo": {"full_name": "c/b"}}}},
    )
    assert record(Outcome("gate", "could not decide", ("⚠ line",), ""), "on-change", event) == {
        "mode": "gate",
        "status": 3,
        "verdict": "could not decide",
        "post": True,
        "pull_request": 7,
        "fork": True,
        "lines": ["⚠ line"],
    }
