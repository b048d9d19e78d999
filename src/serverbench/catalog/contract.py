"""The endpoint contract every reference app implements, and the pure check of one response.

TechEmpower-style: status, Content-Type and body are checked exactly; a wrong answer is
reported with what was expected and what came.  Redis keys and the stored value are part of
the contract so apps need no shared code with the harness.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable

REDIS_COUNTER_KEY = "serverbench:counter"
REDIS_VALUE_KEY = "serverbench:value"
# 2,000 characters, as the classic "click counter plus a 2,000-character value" benchmarks used.
REDIS_VALUE = ("serverbench-" * 200)[:2000]


def _expect_text(expected: bytes) -> Callable[[bytes], str | None]:
    def check(body: bytes) -> str | None:
        return None if body == expected else f"body {body[:120]!r} != expected {expected!r}"

    return check


def _expect_json(expected: object) -> Callable[[bytes], str | None]:
    def check(body: bytes) -> str | None:
        try:
            got = json.loads(body)
        except ValueError:
            return f"body is not JSON: {body[:120]!r}"
        return None if got == expected else f"JSON {got!r} != expected {expected!r}"

    return check


def _check_redis(body: bytes) -> str | None:
    try:
        got = json.loads(body)
    except ValueError:
        return f"body is not JSON: {body[:120]!r}"
    if not isinstance(got, dict) or set(got) != {"counter", "value"}:
        return f'expected a JSON object with keys "counter" and "value", got {str(got)[:120]}'
    if not isinstance(got["counter"], int) or got["counter"] < 1:
        return f"counter must be the INCR result (an integer >= 1), got {got['counter']!r}"
    if got["value"] != REDIS_VALUE:
        return f"value must be the stored {len(REDIS_VALUE)}-character string, got {str(got['value'])[:40]!r}..."
    return None


# MongoDB: database, collections and the seeded documents (the harness seeds, apps read).
MONGO_DB = "serverbench"
SMALL_DOC = {"_id": "small", "canonicalUrl": "https://books.example.org/b/0001-python-and-the-server"}
BIG_DOC = {
    "_id": "big",
    **{
        f"f{i:03d}": (i * 7919 if i % 3 == 0 else f"value-{i:03d}-" + "x" * (i % 17) if i % 3 == 1 else i % 2 == 0)
        for i in range(300)
    },
}
# Event queues: about 1 KB and 64 KB of shallow JSON events; queue "0" is empty (204).
EVENT_SIZES = {"0": 0, "1k": 7, "64k": 440}


def event(queue: str, seq: int) -> dict:
    """One shallow event of about 128 bytes as JSON (without _id and queue, as apps return it)."""
    return {
        "seq": seq,
        "type": ("view", "click", "buy")[seq % 3],
        "user": f"user{seq % 97:04d}",
        "path": f"/site/books/{seq % 20 + 1}",
        "ts": 1_700_000_000 + seq,
        "payload": "p" * 40,
    }


def events(queue: str) -> list[dict]:
    return [event(queue, i) for i in range(EVENT_SIZES[queue])]


UPSTREAM_BODY = {"message": "upstream"}
UPSTREAM_DELAY_S = 0.1


def _without_id(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "_id"}


def _expect_bytes_len(n: int, head: bytes = b"") -> Callable[[bytes], str | None]:
    def check(body: bytes) -> str | None:
        if len(body) != n:
            return f"body is {len(body)} bytes, expected {n}"
        return None if body.startswith(head) else f"body starts {body[:8]!r}, expected {head!r}"

    return check


def _expect_contains(*parts: bytes) -> Callable[[bytes], str | None]:
    def check(body: bytes) -> str | None:
        missing = [p for p in parts if p not in body]
        return f"body {body[:120]!r} lacks {missing!r}" if missing else None

    return check


def _expect_empty(body: bytes) -> str | None:
    return None if not body else f"a 204 must have no body, got {body[:60]!r}"


@dataclass(frozen=True)
class Request:
    """What is sent to an endpoint besides its path: the contract's endpoints are plain GETs."""

    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""

    @property
    def plain(self) -> bool:
        """A GET without headers or body: what every driver sends by default."""
        return self == Request()


@dataclass(frozen=True)
class Endpoint:
    """One endpoint of the contract: where it is, what it must answer, what it needs.

    ``min_seconds``: the response may not come sooner (a sleep or a slow upstream that was
    skipped is a wrong answer).  ``content_type`` None: no body, nothing to check (a user's
    endpoint: the type is not checked).  ``request``: the method, headers and body sent (a
    user's endpoint, :mod:`serverbench.catalog.userapp`; the contract's are plain GETs).
    """

    name: str
    path: str
    content_type: str | None
    check_body: Callable[[bytes], str | None]
    backends: tuple[str, ...] = ()
    status: int = 200
    min_seconds: float = 0.0
    request: Request = Request()


ENDPOINTS: Mapping[str, Endpoint] = {
    e.name: e
    for e in (
        Endpoint("plaintext", "/plaintext", "text/plain", _expect_text(b"Hello, World!")),
        Endpoint("json", "/json", "application/json", _expect_json({"message": "Hello, World!"})),
        Endpoint("redis", "/redis", "application/json", _check_redis, backends=("redis",)),
        Endpoint(
            "mongo-small", "/mongo/small", "application/json", _expect_json(_without_id(SMALL_DOC)), backends=("mongo",)
        ),
        Endpoint(
            "mongo-big", "/mongo/big", "application/json", _expect_json(_without_id(BIG_DOC)), backends=("mongo",)
        ),
        Endpoint("events-0", "/events?size=0", None, _expect_empty, backends=("mongo",), status=204),
        Endpoint("events-1k", "/events?size=1k", "application/json", _expect_json(events("1k")), backends=("mongo",)),
        Endpoint(
            "events-64k", "/events?size=64k", "application/json", _expect_json(events("64k")), backends=("mongo",)
        ),
        Endpoint(
            "upstream",
            "/upstream",
            "application/json",
            _expect_json({"upstream": UPSTREAM_BODY}),
            backends=("upstream",),
            min_seconds=UPSTREAM_DELAY_S,
        ),
        Endpoint("sleep", "/sleep?ms=100", "application/json", _expect_json({"slept_ms": 100}), min_seconds=0.1),
        Endpoint(
            "site-search",
            "/site/search?q=server&page=1",
            "text/html",
            _expect_contains(b"<h1>Results for server, page 1</h1>", b"/site/thumbs/1.jpg"),
        ),
        Endpoint(
            "site-api",
            "/site/api/books?q=python",
            "application/json",
            _expect_json([{"id": 1, "title": "Book 01: Python and the Server", "author": "Author 1", "year": 1991}]),
        ),
        Endpoint("site-cover", "/site/covers/3.jpg", "image/jpeg", _expect_bytes_len(30_000, b"\xff\xd8")),
        Endpoint("site-thumb", "/site/thumbs/3.jpg", "image/jpeg", _expect_bytes_len(3_000, b"\xff\xd8")),
        Endpoint("site-css", "/site/static/site.css", "text/css", _expect_contains(b"font-family")),
        Endpoint("site-js", "/site/static/site.js", "application/javascript", _expect_contains(b"function show1")),
    )
}

# The backends the endpoints talk to, in the order they first appear: the names a backend fault may strike
# (catalog.faults).  How each is started is the registry's (backends.base.BACKENDS, a floor above); a unit test holds
# the two to the same names, so a backend added there needs its endpoint here.
BACKEND_NAMES = tuple(dict.fromkeys(b for e in ENDPOINTS.values() for b in e.backends))


REQUIRED_HEADERS = ("Date", "Server")


def check_headers(headers: Mapping[str, str]) -> list[str]:
    """TechEmpower's header rule: every response carries Date and Server (set by the app or its server)."""
    present = {k.lower() for k in headers}
    return [f"header {name!r} missing" for name in REQUIRED_HEADERS if name.lower() not in present]


def check_response(endpoint: Endpoint, status: int, headers: Mapping[str, str], body: bytes) -> list[str]:
    """Every way a response breaks the contract (empty when it honours it)."""
    problems = []
    if status != endpoint.status:
        problems.append(f"status {status} != expected {endpoint.status}")
    content_type = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
    if endpoint.content_type is not None and content_type.split(";")[0].strip().lower() != endpoint.content_type:
        problems.append(f"Content-Type {content_type!r} != expected {endpoint.content_type!r}")
    if status == endpoint.status:
        body_problem = endpoint.check_body(body)
        if body_problem:
            problems.append(body_problem)
    return problems
