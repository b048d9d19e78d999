"""The contract check before load against deliberately broken answers (issue 22): a /sleep that answers at
once, a missing Date header, a wrong status.  The app is a canned answer and a clock (no server, no socket)."""

import json

import pytest

from serverbench.catalog.contract import ENDPOINTS, check_headers
from serverbench.errors import VerificationError
from serverbench.measure.serving import verify as verify_module

GOOD_HEADERS = {"Content-Type": "application/json", "Date": "Wed, 25 Nov 2026 06:00:00 GMT", "Server": "t"}
SLEEP_BODY = json.dumps({"slept_ms": 100}).encode()


class App:
    """A fake app: answers each request with ``answer`` after ``seconds`` on a fake monotonic clock."""

    def __init__(self, monkeypatch, seconds, status=200, headers=GOOD_HEADERS, body=SLEEP_BODY):
        self.now, self.seconds, self.answer = 1000.0, seconds, (status, dict(headers), body)
        monkeypatch.setattr(verify_module.time, "monotonic", lambda: self.now)
        monkeypatch.setattr(verify_module, "fetch", self.fetch)

    def fetch(self, base_url, path, timeout=10.0, request=None):
        self.asked = getattr(self, "asked", []) + [(base_url, path, request)]
        self.now += self.seconds
        return self.answer


def test_a_sleep_that_waits_its_100_ms_honours_the_contract(monkeypatch):
    """/sleep?ms=100 answered after exactly 100 ms, with Date and Server: no problem, headers checked too;
    the endpoint's path and request are what was sent, to the server's URL."""
    app = App(monkeypatch, 0.1)
    verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["sleep"]], "app", headers=True)
    assert app.asked == [("http://127.0.0.1:1", "/sleep?ms=100", ENDPOINTS["sleep"].request)]


def test_a_sleep_answered_at_once_is_refused(monkeypatch):
    """A /sleep that skips its sleep (answered after 99 ms, or at once) is refused, naming the endpoint."""
    for seconds in (0.099, 0.0):
        App(monkeypatch, seconds)
        with pytest.raises(VerificationError, match=r"/sleep\?ms=100: answered in \d+ ms, sooner than the 100 ms"):
            verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["sleep"]], "app")


def test_a_missing_date_header_is_refused_when_headers_are_checked(monkeypatch):
    """No Date header: the conformance check (headers=True) refuses it; the check before load does not."""
    App(monkeypatch, 0.1, headers={k: v for k, v in GOOD_HEADERS.items() if k != "Date"})
    with pytest.raises(VerificationError, match="header 'Date' missing"):
        verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["sleep"]], "app", headers=True)
    verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["sleep"]], "app", headers=False)


def test_every_broken_endpoint_is_listed_in_one_error(monkeypatch):
    """A wrong status on two endpoints: one error naming both, with what was expected."""
    App(monkeypatch, 0.2, status=500, body=b"")
    with pytest.raises(VerificationError) as caught:
        verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["sleep"], ENDPOINTS["json"]], "the app")
    message = str(caught.value)
    assert message.startswith("the app does not honour the endpoint contract")
    assert "/sleep?ms=100: status 500 != expected 200" in message and "/json: status 500 != expected 200" in message


def test_one_broken_endpoint_is_said_on_the_errors_first_line(monkeypatch):
    """A single failure follows the cell on one line: the line a pull request's comment and annotation carry."""
    App(monkeypatch, 0.2, status=500, body=b"")
    with pytest.raises(VerificationError) as caught:
        verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["json"]], "the app")
    assert str(caught.value) == "the app does not honour the endpoint contract: /json: status 500 != expected 200"


def test_a_request_that_fails_is_named_and_the_next_endpoint_still_checked(monkeypatch):
    """A refused connection is a contract failure naming the endpoint and the error; the next endpoint is asked."""

    def fetch(base_url, path, timeout=10.0, request=None):
        if path == "/json":
            raise ConnectionRefusedError("refused")
        return 500, dict(GOOD_HEADERS), b""

    monkeypatch.setattr(verify_module, "fetch", fetch)
    with pytest.raises(VerificationError) as caught:
        verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["json"], ENDPOINTS["plaintext"]], "app")
    assert "/json: request failed: refused" in str(caught.value)
    assert "/plaintext: status 500 != expected 200" in str(caught.value)


def test_check_headers_needs_date_and_server_in_any_case():
    """Date and Server are required, matched case-insensitively; each missing one is named."""
    assert check_headers({"date": "x", "SERVER": "y"}) == []
    assert check_headers({"Server": "y"}) == ["header 'Date' missing"]
    assert check_headers({}) == ["header 'Date' missing", "header 'Server' missing"]


def test_redis_counter_starts_at_one_and_the_keys_are_exact():
    """counter 1 (the first INCR) passes, 0 fails; a list, or an object with an extra or a missing key, fails."""
    from serverbench.catalog.contract import REDIS_VALUE

    redis = ENDPOINTS["redis"]
    answer = lambda doc: redis.check_body(json.dumps(doc).encode())  # noqa: E731
    assert answer({"counter": 1, "value": REDIS_VALUE}) is None
    assert "got 0" in answer({"counter": 0, "value": REDIS_VALUE})
    assert 'keys "counter" and "value", got [1, 2]' in answer([1, 2])
    assert answer({"counter": 1, "value": REDIS_VALUE, "extra": 1}).startswith("expected a JSON object with keys")
    assert answer({"counter": 1}) is not None
    assert "not JSON" in redis.check_body(b"{oops")


def test_a_failure_names_a_non_get_endpoint_with_its_method(monkeypatch):
    """A POST endpoint is named 'POST /path' in the error; a GET by its path alone."""
    import dataclasses

    from serverbench.catalog.contract import Request

    post = dataclasses.replace(
        ENDPOINTS["json"], request=Request("POST", (("Content-Type", "application/json"),), b"{}")
    )
    App(monkeypatch, 0.0, status=500, body=b"")
    with pytest.raises(VerificationError) as caught:
        verify_module.verify("http://127.0.0.1:1", [post, ENDPOINTS["json"]], "app")
    assert "\n  POST /json: status 500" in str(caught.value) and "\n  /json: status 500" in str(caught.value)


def test_an_answer_after_exactly_the_minimum_wait_honours_the_contract(monkeypatch):
    """/sleep?ms=100 answered after exactly 0.1 s on the clock is not refused: the limit is 'sooner than'."""
    app = App(monkeypatch, 0.1)
    app.now = 0.0  # 0.0 + 0.1 - 0.0 is exactly 0.1
    verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["sleep"]], "app")


def test_a_too_fast_answer_states_both_times_in_milliseconds(monkeypatch):
    """An endpoint that must wait 1.5 s, answered after 1.49945 s: 'answered in 1499 ms, sooner than the 1500 ms'."""
    import dataclasses

    app = App(monkeypatch, 1.49945)
    app.now = 0.0
    slow = dataclasses.replace(ENDPOINTS["sleep"], min_seconds=1.5)
    with pytest.raises(VerificationError, match=r"/sleep\?ms=100: answered in 1499 ms, sooner than the 1500 ms "):
        verify_module.verify("http://127.0.0.1:1", [slow], "app")


def test_fetch_gives_up_after_its_timeout():
    """A server that accepts the connection and never answers: fetch raises a timeout (an OSError) after the
    timeout it was given, not later."""
    import socket
    import time

    from serverbench.processes.ports import free_port

    silent = socket.socket()
    silent.bind(("127.0.0.1", free_port()))
    silent.listen(1)
    started = time.monotonic()
    try:
        with pytest.raises(OSError):
            verify_module.fetch(f"http://127.0.0.1:{silent.getsockname()[1]}", "/", timeout=0.3)
    finally:
        silent.close()
    assert time.monotonic() - started < 5.0
