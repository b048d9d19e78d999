"""The endpoint contract every reference app implements, and the pure check of one response.

TechEmpower-style: status, Content-Type and body are checked exactly; a wrong answer is
reported with what was expected and what came.  Redis keys and the stored value are part of
the contract so apps need no shared code with the harness.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Mapping

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


@dataclass(frozen=True)
class Endpoint:
    """One endpoint of the contract: where it is, what it must answer, what it needs."""

    name: str
    path: str
    content_type: str
    check_body: Callable[[bytes], str | None]
    backends: tuple[str, ...] = ()
    status: int = 200


ENDPOINTS: Mapping[str, Endpoint] = {
    e.name: e
    for e in (
        Endpoint("plaintext", "/plaintext", "text/plain", _expect_text(b"Hello, World!")),
        Endpoint("json", "/json", "application/json", _expect_json({"message": "Hello, World!"})),
        Endpoint("redis", "/redis", "application/json", _check_redis, backends=("redis",)),
    )
}


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
    if content_type.split(";")[0].strip().lower() != endpoint.content_type:
        problems.append(f"Content-Type {content_type!r} != expected {endpoint.content_type!r}")
    if status == endpoint.status:
        body_problem = endpoint.check_body(body)
        if body_problem:
            problems.append(body_problem)
    return problems
