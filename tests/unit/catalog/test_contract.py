import json

from serverbench.catalog.contract import ENDPOINTS, REDIS_VALUE, check_response


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
