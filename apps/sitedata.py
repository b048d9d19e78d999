"""The small book site every app serves under /site/ (the mixed-URL workload), as plain data.

Shared by the apps (not by the harness): a search page (HTML with query parameters), a JSON
API, binary cover images and thumbnails, and static CSS/JS.  Everything is deterministic so
that every app answers byte for byte the same.
"""

from __future__ import annotations

import hashlib
import html
import json
import os

BOOKS = [
    {"id": i, "title": f"Book {i:02d}: {word.title()} and the Server", "author": f"Author {i % 7}", "year": 1990 + i}
    for i, word in enumerate(
        (
            "python",
            "gevent",
            "thread",
            "event",
            "loop",
            "socket",
            "worker",
            "async",
            "redis",
            "mongo",
            "nginx",
            "proxy",
            "cache",
            "queue",
            "lock",
            "greenlet",
            "reactor",
            "signal",
            "buffer",
            "stream",
        ),
        start=1,
    )
]
COVER_BYTES = 30_000
THUMB_BYTES = 3_000
_STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
STATIC_TYPES = {".css": "text/css", ".js": "application/javascript"}


def matches(q: str) -> list:
    q = (q or "").lower()
    return [b for b in BOOKS if q in b["title"].lower()]


def search_page(q: str, page: int) -> bytes:
    """The HTML search results page: 5 books per page."""
    found = matches(q)[(page - 1) * 5 : page * 5]
    items = "".join(
        f'<li><a href="/site/covers/{b["id"]}.jpg"><img src="/site/thumbs/{b["id"]}.jpg"></a> '
        f"{html.escape(b['title'])} ({b['year']})</li>"
        for b in found
    )
    return (
        f"<!doctype html><html><head><title>Search: {html.escape(q)}</title>"
        f'<link rel="stylesheet" href="/site/static/site.css"><script src="/site/static/site.js"></script>'
        f"</head><body><h1>Results for {html.escape(q)}, page {page}</h1><ul>{items}</ul></body></html>"
    ).encode()


def books_json(q: str) -> bytes:
    return json.dumps(matches(q)).encode()


def _image(kind: str, book: int, size: int) -> bytes:
    """A JPEG-framed deterministic blob of exactly ``size`` bytes (SOI ... EOI)."""
    seed = hashlib.sha256(f"{kind}-{book}".encode()).digest()
    body = (seed * (size // len(seed) + 1))[: size - 4]
    return b"\xff\xd8" + body + b"\xff\xd9"


def cover(book: int) -> bytes | None:
    return _image("cover", book, COVER_BYTES) if 1 <= book <= len(BOOKS) else None


def thumb(book: int) -> bytes | None:
    return _image("thumb", book, THUMB_BYTES) if 1 <= book <= len(BOOKS) else None


def static(name: str):
    """(content type, bytes) of a static file, or None."""
    ext = os.path.splitext(name)[1]
    path = os.path.join(_STATIC_DIR, os.path.basename(name))
    if ext not in STATIC_TYPES or not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return STATIC_TYPES[ext], f.read()
