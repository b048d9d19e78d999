"""Check a running server against the endpoint contract before any load is sent."""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterable
from urllib.parse import urlsplit

from ...catalog.contract import Endpoint, Request, check_headers, check_response
from ...errors import VerificationError

GET = Request()  # a plain GET, the default request


def fetch(base_url: str, path: str, timeout: float = 10.0, request: Request = GET) -> tuple[int, dict[str, str], bytes]:
    """One request (a GET unless ``request`` says otherwise) over a fresh connection: status, headers, body."""
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request(
            request.method, path, body=request.body or None, headers={**dict(request.headers), "Connection": "close"}
        )
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def verify(base_url: str, endpoints: Iterable[Endpoint], what: str, headers: bool = False) -> None:
    """Raise VerificationError listing every endpoint that does not honour the contract.

    ``headers`` also requires the Date and Server headers (the apps' conformance test does;
    the check before load does not, since some fast servers, uWSGI and bjoern, send neither).
    """
    failures = []
    for endpoint in endpoints:
        try:
            started = time.monotonic()
            status, got_headers, body = fetch(base_url, endpoint.path, request=endpoint.request)
            elapsed = time.monotonic() - started
        except OSError as exc:
            failures.append(f"{_label(endpoint)}: request failed: {exc}")
            continue
        problems = check_response(endpoint, status, got_headers, body)
        if headers:
            problems += check_headers(got_headers)
        if elapsed < endpoint.min_seconds:
            problems.append(
                f"answered in {elapsed * 1000:.0f} ms, sooner than the {endpoint.min_seconds * 1000:.0f} ms "
                "the endpoint must wait (it skipped the sleep or the upstream call)"
            )
        if problems:
            failures.append(f"{_label(endpoint)}: " + "; ".join(problems))
    if len(failures) == 1:  # on the error's first line: the line a pull request's comment leads with
        raise VerificationError(f"{what} does not honour the endpoint contract: {failures[0]}")
    if failures:
        raise VerificationError(f"{what} does not honour the endpoint contract:\n  " + "\n  ".join(failures))


def _label(endpoint: Endpoint) -> str:
    """How a failure names the endpoint: its path, with the method when it is not a GET."""
    method = endpoint.request.method
    return endpoint.path if method == "GET" else f"{method} {endpoint.path}"
