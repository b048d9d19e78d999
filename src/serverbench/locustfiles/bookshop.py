"""A visitor of the book site every reference app serves under /site/ (see apps/sitedata.py).

Run by serverbench's LocustDriver (``python -m locust -f bookshop.py ...``), or by hand:

    locust -f src/serverbench/locustfiles/bookshop.py --headless -u 64 -r 64 -t 10s -H http://127.0.0.1:PORT

Each task is one request, weighted like the wrk ``site`` workload (serverbench.catalog.workloads.SITE_MIX,
less its /json entry): search pages, the JSON API, thumbnails, covers, the static CSS and JS.
Every response is checked (status 200, Content-Type, a cheap look at the body), so a wrong answer
is a failure in locust's statistics, not a fast success.  Requests are named by kind so that the
statistics group (one row for all search pages, one for all covers, ...).

``wait_time`` is 0: a ceiling measurement, each user sends its next request as soon as the last
one is answered (a closed model, like wrk).  ``SERVERBENCH_LOCUST_WAIT=<seconds>`` sets a
constant think time instead.
"""

from __future__ import annotations

import json
import os
import random

from locust import FastHttpUser, constant, task
from locust.contrib.fasthttp import LocustBadStatusCode

WAIT_ENV = "SERVERBENCH_LOCUST_WAIT"  # read by the driver too (drivers/locust.py: Little's law counts the wait)
# Search words: every book title is "Book NN: <Word> and the Server" (apps/sitedata.py).
WORDS = ("python", "server", "event", "worker", "book", "loop", "redis", "async", "queue")
BOOKS = range(1, 21)  # /site/covers/<n>.jpg and /site/thumbs/<n>.jpg exist for n in 1..20
COVER_BYTES = 30_000
THUMB_BYTES = 3_000
JPEG_START = b"\xff\xd8"


def think_time() -> float:
    """Seconds between a user's requests: 0, or SERVERBENCH_LOCUST_WAIT."""
    raw = os.environ.get(WAIT_ENV, "").strip()
    if not raw:
        return 0.0
    try:
        seconds = float(raw)
    except ValueError:
        raise ValueError(f"{WAIT_ENV} must be a number of seconds, got {raw!r}") from None
    if not seconds >= 0:  # also refuses nan
        raise ValueError(f"{WAIT_ENV} must be >= 0 seconds, got {raw!r}")
    return seconds


def problem(status: int, content_type: str | None, body: bytes | None, expected_type: str, body_check) -> str | None:
    """What is wrong with an answer (status, Content-Type, then body), or None if it is right."""
    if status != 200:
        return f"HTTP status {status}, expected 200"
    got = (content_type or "").split(";")[0].strip().lower()
    if got != expected_type:
        return f"Content-Type {content_type!r}, expected {expected_type!r}"
    return body_check(body or b"")


def has(*needles: bytes):
    def check(body: bytes) -> str | None:
        missing = [n for n in needles if n not in body]
        return f"body lacks {missing[0]!r}" if missing else None

    return check


def image(size: int):
    def check(body: bytes) -> str | None:
        if len(body) != size or not body.startswith(JPEG_START):
            return f"expected a {size}-byte JPEG, got {len(body)} bytes starting {body[:4]!r}"
        return None

    return check


def books_about(word: str):
    def check(body: bytes) -> str | None:
        try:
            books = json.loads(body)
        except ValueError:
            return f"body is not JSON: {body[:40]!r}"
        if not isinstance(books, list) or not books:
            return f"expected a non-empty list of books for {word!r}, got {body[:60]!r}"
        wrong = [b for b in books if word not in str(b.get("title", "")).lower()]
        return f"book {wrong[0]!r} does not match {word!r}" if wrong else None

    return check


class Visitor(FastHttpUser):
    """Searches the site, looks books up in the JSON API, loads covers, thumbnails and static files."""

    wait_time = constant(think_time())
    # The same per-request timeout as serverbench's wrk driver (WrkDriver.timeout_s).
    network_timeout = 5.0
    connection_timeout = 5.0

    def get_checked(self, path: str, name: str, expected_type: str, body_check) -> None:
        """GET ``path``, recorded under ``name``; a wrong answer is marked as a failure."""
        with self.client.get(path, name=name, catch_response=True) as response:
            error = getattr(response, "request_meta", {}).get("exception")
            if error is not None and not isinstance(error, LocustBadStatusCode):
                return  # refused, reset, timed out...: locust records that error as it is
            wrong = problem(
                response.status_code,
                response.headers.get("Content-Type") if response.headers else None,
                response.content,
                expected_type,
                body_check,
            )
            if wrong:
                response.failure(f"{path}: {wrong}")
            else:
                response.success()

    # Weights: requests per kind in SITE_MIX (7 search URLs x 3, 5 API URLs x 2, 9 thumbnails x 4,
    # 6 covers x 1, CSS 5, JS 5).
    @task(21)
    def search(self) -> None:
        word, page = random.choice(WORDS), random.choice((1, 1, 1, 2, 3))
        self.get_checked(
            f"/site/search?q={word}&page={page}",
            "/site/search",
            "text/html",
            has(f"<h1>Results for {word}, page {page}</h1>".encode()),
        )

    @task(10)
    def open_book(self) -> None:
        word = random.choice(WORDS)
        self.get_checked(f"/site/api/books?q={word}", "/site/api/books", "application/json", books_about(word))

    @task(36)
    def thumbnail(self) -> None:
        self.get_checked(
            f"/site/thumbs/{random.choice(BOOKS)}.jpg", "/site/thumbs/[n].jpg", "image/jpeg", image(THUMB_BYTES)
        )

    @task(6)
    def cover(self) -> None:
        self.get_checked(
            f"/site/covers/{random.choice(BOOKS)}.jpg", "/site/covers/[n].jpg", "image/jpeg", image(COVER_BYTES)
        )

    @task(5)
    def stylesheet(self) -> None:
        self.get_checked("/site/static/site.css", "/site/static/site.css", "text/css", has(b"font-family"))

    @task(5)
    def script(self) -> None:
        self.get_checked(
            "/site/static/site.js", "/site/static/site.js", "application/javascript", has(b"function show1")
        )
