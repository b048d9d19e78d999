import http.server
import json
import threading

import pytest

from serverbench.catalog import contract
from serverbench.catalog.contract import ENDPOINTS, REDIS_VALUE, Request, check_response
from serverbench.errors import VerificationError
from serverbench.measure.serving import verify as verify_module
from serverbench.processes.ports import free_port


def test_correct_answers_pass():
    """Exact bodies with the right status and Content-Type honour the contract."""
    assert (
        check_response(ENDPOINTS["plaintext"], 200, {"Content-Type": "text/plain; charset=utf-8"}, b"Hello, World!")
        == []
    )
    assert (
        check_response(ENDPOINTS["json"], 200, {"content-type": "application/json"}, b'{"message": "Hello, World!"}')
        == []
    )
    body = json.dumps({"counter": 3, "value": REDIS_VALUE}).encode()
    assert check_response(ENDPOINTS["redis"], 200, {"Content-Type": "application/json"}, body) == []


def test_wrong_answers_show_expected_and_got():
    """Each broken part is reported with what was expected and what came."""
    problems = check_response(ENDPOINTS["json"], 200, {"Content-Type": "text/html"}, b'{"message": "hi"}')
    assert any("text/html" in p and "application/json" in p for p in problems)
    assert any("'hi'" in p and "Hello, World!" in p for p in problems)
    assert check_response(ENDPOINTS["plaintext"], 500, {"Content-Type": "text/plain"}, b"") == [
        "status 500 != expected 200"
    ]


def test_redis_answer_must_hold_the_stored_value():
    """A /redis answer that skips the GET (wrong value) or the INCR (counter 0) is refused."""
    bad_value = json.dumps({"counter": 1, "value": "x"}).encode()
    assert check_response(ENDPOINTS["redis"], 200, {"Content-Type": "application/json"}, bad_value)
    no_incr = json.dumps({"counter": 0, "value": REDIS_VALUE}).encode()
    assert check_response(ENDPOINTS["redis"], 200, {"Content-Type": "application/json"}, no_incr)


# Merged from test_mutation_contract.py: The endpoint contract's body checks on broken answers, message by message
# (issue 22, mutation survivors).
REDIS, EMPTY = ENDPOINTS["redis"].check_body, ENDPOINTS["events-0"].check_body
LONG = b"x" * 200


def test_redis_body_that_is_not_json_is_quoted_to_120_bytes():
    """A /redis body that is not JSON is refused, quoting its first 120 bytes."""
    assert REDIS(LONG) == f"body is not JSON: {LONG[:120]!r}"


def test_redis_body_must_be_an_object_with_exactly_its_two_keys():
    """A list, even of the right names, and an object with an extra key are refused, quoted to 120 characters."""
    assert REDIS(b'["counter", "value"]') == (
        "expected a JSON object with keys \"counter\" and \"value\", got ['counter', 'value']"
    )
    extra = {"counter": 1, "value": REDIS_VALUE, "x": 1}
    assert REDIS(json.dumps(extra).encode()) == (
        f'expected a JSON object with keys "counter" and "value", got {str(extra)[:120]}'
    )


def test_redis_counter_of_one_is_the_first_incr():
    """Counter 1 (the first INCR) is honoured; 0 and a string are refused."""
    assert REDIS(json.dumps({"counter": 1, "value": REDIS_VALUE}).encode()) is None
    assert REDIS(json.dumps({"counter": 0, "value": REDIS_VALUE}).encode()) == (
        "counter must be the INCR result (an integer >= 1), got 0"
    )
    assert "got '2'" in REDIS(json.dumps({"counter": "2", "value": REDIS_VALUE}).encode())


def test_redis_wrong_value_is_quoted_to_40_characters():
    """A value other than the stored string is refused, quoting its first 40 characters."""
    wrong = "y" * 100
    assert REDIS(json.dumps({"counter": 3, "value": wrong}).encode()) == (
        f"value must be the stored 2000-character string, got {wrong[:40]!r}..."
    )


def test_a_204_with_a_body_is_refused_quoting_60_bytes():
    """events-0 must answer an empty body; a body is refused, quoting its first 60 bytes."""
    assert EMPTY(b"") is None
    assert EMPTY(LONG) == f"a 204 must have no body, got {LONG[:60]!r}"


def test_a_response_without_content_type_names_the_missing_type():
    """No Content-Type header at all is reported as an empty type against the expected one."""
    body = json.dumps({"message": "Hello, World!"}).encode()
    assert check_response(ENDPOINTS["json"], 200, {}, body) == ["Content-Type '' != expected 'application/json'"]
    assert check_response(ENDPOINTS["events-0"], 204, {}, b"") == []


def test_fetch_sends_the_endpoints_request_and_returns_status_headers_body():
    """fetch() sends the method, headers and body asked for over a closing connection, and returns the answer."""
    seen = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            seen.update(
                method=self.command,
                path=self.path,
                connection=self.headers["Connection"],
                token=self.headers["X-Token"],
                body=self.rfile.read(int(self.headers["Content-Length"])),
            )
            self.send_response(201)
            self.send_header("X-Answer", "yes")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        status, headers, body = verify_module.fetch(
            f"http://127.0.0.1:{server.server_port}", "/p?q=1", request=Request("POST", (("X-Token", "t"),), b"hi")
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert (status, headers["X-Answer"], body) == (201, "yes", b"ok")
    assert seen == {"method": "POST", "path": "/p?q=1", "connection": "close", "token": "t", "body": b"hi"}


def test_a_text_check_compares_the_whole_body():
    """A text endpoint's check: the exact body passes; another is refused, quoted to 120 bytes."""
    check = contract._expect_text(b"Hello")
    assert check(b"Hello") is None
    assert check(LONG) == f"body {LONG[:120]!r} != expected b'Hello'"


def test_a_json_check_compares_the_value():
    """A JSON endpoint's check: an equal value passes whatever its spacing; another value or non-JSON is refused."""
    check = contract._expect_json({"a": 1})
    assert check(b'{ "a" : 1 }') is None
    assert check(b'{"a": 2}') == "JSON {'a': 2} != expected {'a': 1}"
    assert check(LONG) == f"body is not JSON: {LONG[:120]!r}"


def test_a_bytes_check_wants_the_length_and_the_head():
    """An image's check: the right length and first bytes pass; a wrong length or head is refused."""
    check = contract._expect_bytes_len(10, b"\xff\xd8")
    assert check(b"\xff\xd8" + b"x" * 8) is None
    assert check(b"\xff\xd8x") == "body is 3 bytes, expected 10"
    assert check(b"0123456789") == "body starts b'01234567', expected b'\\xff\\xd8'"
    assert contract._expect_bytes_len(3)(b"abc") is None


def test_a_contains_check_names_what_is_missing():
    """A page's check: every part present passes; the parts missing are named, the body quoted to 120 bytes."""
    check = contract._expect_contains(b"x", b"<h1>")
    assert check(b"x<h1>") is None
    assert check(LONG) == f"body {LONG[:120]!r} lacks [b'<h1>']"


def test_the_mongo_documents_are_served_without_their_id():
    """The documents an app returns are the seeded ones without _id."""
    assert contract._without_id({"_id": "small", "a": 1}) == {"a": 1}


def test_an_event_is_the_contracts_shape():
    """Event 100: its sequence, type (view, click, buy in turn), user (sequence mod 97), path, time and payload."""
    assert contract.event("1k", 100) == {
        "seq": 100,
        "type": "click",
        "user": "user0003",
        "path": "/site/books/1",
        "ts": 1_700_000_100,
        "payload": "p" * 40,
    }
    assert [e["type"] for e in contract.events("1k")[:3]] == ["view", "click", "buy"]
    assert len(contract.events("1k")) == 7 and contract.events("0") == []


def test_verify_checks_headers_only_when_asked(monkeypatch):
    """By default (before load) a missing Date and Server pass; asked, both are named beside a body problem."""
    answers = (200, {"Content-Type": "application/json"}, b'{"message": "wrong"}')
    monkeypatch.setattr(verify_module, "fetch", lambda *a, **k: answers)
    with pytest.raises(VerificationError) as caught:
        verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["json"]], "app", headers=True)
    assert str(caught.value).endswith(
        "/json: JSON {'message': 'wrong'} != expected {'message': 'Hello, World!'}; "
        "header 'Date' missing; header 'Server' missing"
    )
    answers = (200, {"Content-Type": "application/json"}, b'{"message": "Hello, World!"}')
    verify_module.verify("http://127.0.0.1:1", [ENDPOINTS["json"]], "app")
