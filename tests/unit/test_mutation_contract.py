"""The endpoint contract's body checks on broken answers, message by message (issue 22, mutation survivors)."""
import http.server
import json
import threading

from serverbench.catalog.contract import ENDPOINTS, REDIS_VALUE, Request, check_response
from serverbench.measure.ports import free_port
from serverbench.measure.verify import fetch

REDIS, EMPTY = ENDPOINTS["redis"].check_body, ENDPOINTS["events-0"].check_body
LONG = b"x" * 200


def test_redis_body_that_is_not_json_is_quoted_to_120_bytes():
    """A /redis body that is not JSON is refused, quoting its first 120 bytes."""
    assert REDIS(LONG) == f"body is not JSON: {LONG[:120]!r}"


def test_redis_body_must_be_an_object_with_exactly_its_two_keys():
    """A list, even of the right names, and an object with an extra key are refused, quoted to 120 characters."""
    assert REDIS(b'["counter", "value"]') == (
        "expected a JSON object with keys \"counter\" and \"value\", got ['counter', 'value']")
    extra = {"counter": 1, "value": REDIS_VALUE, "x": 1}
    assert REDIS(json.dumps(extra).encode()) == (
        f'expected a JSON object with keys "counter" and "value", got {str(extra)[:120]}')


def test_redis_counter_of_one_is_the_first_incr():
    """Counter 1 (the first INCR) is honoured; 0 and a string are refused."""
    assert REDIS(json.dumps({"counter": 1, "value": REDIS_VALUE}).encode()) is None
    assert REDIS(json.dumps({"counter": 0, "value": REDIS_VALUE}).encode()) == (
        "counter must be the INCR result (an integer >= 1), got 0")
    assert "got '2'" in REDIS(json.dumps({"counter": "2", "value": REDIS_VALUE}).encode())


def test_redis_wrong_value_is_quoted_to_40_characters():
    """A value other than the stored string is refused, quoting its first 40 characters."""
    wrong = "y" * 100
    assert REDIS(json.dumps({"counter": 3, "value": wrong}).encode()) == (
        f"value must be the stored 2000-character string, got {wrong[:40]!r}...")


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
            seen.update(method=self.command, path=self.path, connection=self.headers["Connection"],
                        token=self.headers["X-Token"], body=self.rfile.read(int(self.headers["Content-Length"])))
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
        status, headers, body = fetch(f"http://127.0.0.1:{server.server_port}", "/p?q=1",
                                      request=Request("POST", (("X-Token", "t"),), b"hi"))
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert (status, headers["X-Answer"], body) == (201, "yes", b"ok")
    assert seen == {"method": "POST", "path": "/p?q=1", "connection": "close", "token": "t", "body": b"hi"}
