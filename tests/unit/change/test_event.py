"""The GitHub event a ``serverbench ci`` run answers (change.event): the mode auto picks, a pull request's number,
base and fork, a push's before; an event that is not JSON and an event auto cannot answer are bad input."""

import json

import pytest

from serverbench.change.event import Event, mode_of, read
from serverbench.errors import ConfigError


def pull_request(head_repo="me/shop", base_repo="me/shop"):
    return {
        "number": 42,
        "pull_request": {
            "number": 42,
            "base": {"sha": "b" * 40, "repo": {"full_name": base_repo}},
            "head": {"sha": "h" * 40, "repo": {"full_name": head_repo}},
        },
    }


def _event(tmp_path, name, payload):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload) if not isinstance(payload, str) else payload)
    return read({"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path)})


def test_a_pull_request_is_gated_against_its_base(tmp_path):
    """pull_request: mode gate, its number, its base's sha, not a fork."""
    event = _event(tmp_path, "pull_request", pull_request())
    assert mode_of("auto", event) == "gate"
    assert (event.pull_request, event.base, event.fork) == (42, "b" * 40, False)
    assert mode_of("auto", Event("pull_request_target")) == "gate"


def test_a_pull_request_from_a_fork_says_so(tmp_path):
    """A head repository other than the base's: fork (its token cannot write the comment)."""
    assert _event(tmp_path, "pull_request", pull_request(head_repo="you/shop")).fork is True


def test_a_push_is_counted_against_before(tmp_path):
    """push: mode cost, its before (all zeros kept as such: the workflow takes the parent), no pull request."""
    event = _event(tmp_path, "push", {"before": "0" * 40, "after": "a" * 40})
    assert mode_of("auto", event) == "cost"
    assert (event.before, event.pull_request, event.fork, event.base) == ("0" * 40, None, False, None)


def test_an_event_auto_cannot_answer_names_mode():
    """A schedule event, or none at all: auto refuses, naming --mode gate or cost."""
    with pytest.raises(ConfigError, match="'schedule'.*give --mode gate or --mode cost"):
        mode_of("auto", Event("schedule"))
    with pytest.raises(ConfigError, match="GITHUB_EVENT_NAME is not set.*--mode gate"):
        mode_of("auto", read({}))
    assert mode_of("cost", Event("schedule")) == "cost"


def test_an_unknown_mode_is_refused():
    """--mode other than auto, gate or cost is bad input naming the choices."""
    with pytest.raises(ConfigError, match="--mode 'fast' is not a mode: give --mode auto, gate or cost"):
        mode_of("fast", Event("push"))


@pytest.mark.parametrize("text", ["{not json", "[1, 2]"])
def test_an_event_file_that_is_not_a_json_object_is_bad_input(tmp_path, text):
    """An event file that is not JSON, or not an object, is refused naming GITHUB_EVENT_PATH."""
    with pytest.raises(ConfigError, match="GITHUB_EVENT_PATH"):
        _event(tmp_path, "push", text)
