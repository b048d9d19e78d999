"""The endpoint contract as a bare WSGI callable (stdlib json + redis-py + pymongo only): the framework-free baseline.

Redis through redis-py (SERVERBENCH_REDIS_URL), MongoDB through pymongo (SERVERBENCH_MONGO_URL),
the slow upstream through http.client (SERVERBENCH_UPSTREAM_URL), and the book site of sitedata.
Served with any WSGI server as ``raw_wsgi_app:app``.
"""
import json
import os
import time
from urllib.parse import parse_qsl

import redis

import injected_work
import sitedata
import sync_clients

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
EVENT_QUEUES = ("0", "1k", "64k")
PLAINTEXT = b"Hello, World!"
_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


class HTTPError(Exception):
    """An answer other than 200, as (status line, text)."""

    def __init__(self, status, text):
        super().__init__(text)
        self.status = status
        self.text = text


def _setting(name, needs):
    value = os.environ.get(name)
    if not value:
        raise HTTPError("500 Internal Server Error", f"{name} is not set: {needs}")
    return value


def close_clients():
    """Close the clients made on first use (see sync_clients.close)."""
    global _redis
    sync_clients.close(_redis)
    _redis = None


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            return None
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


def _db():
    return sync_clients.mongo_db(_setting("SERVERBENCH_MONGO_URL", "/mongo/* and /events need a MongoDB server"))


def _upstream_get():
    return sync_clients.upstream_get(_setting("SERVERBENCH_UPSTREAM_URL", "/upstream needs an upstream HTTP server"))


def _respond(start_response, status, content_type, body):
    start_response(status, [("Content-Type", content_type), ("Content-Length", str(len(body)))])
    return [body]


def _query(environ):
    """The query parameters, the first value of each."""
    params = {}
    for name, value in parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True):
        params.setdefault(name, value)
    return params


def _int_param(params, name, default, low, high, what):
    try:
        value = int(params.get(name, default))
    except (TypeError, ValueError):
        value = low - 1
    if not low <= value <= high:
        raise HTTPError("400 Bad Request", f"{name} must be {what}")
    return value


def _json(obj):
    return "200 OK", "application/json", json.dumps(obj).encode()


def _mongo_doc(doc_id):
    doc = _db().docs.find_one({"_id": doc_id}, {"_id": 0})
    if doc is None:
        raise HTTPError("404 Not Found", f"no document {doc_id!r}")
    return _json(doc)


def mongo_small(environ):
    return _mongo_doc("small")


def mongo_big(environ):
    return _mongo_doc("big")


def events(environ):
    size = _query(environ).get("size")
    if size not in EVENT_QUEUES:
        raise HTTPError("400 Bad Request", f"size must be one of {', '.join(EVENT_QUEUES)}")
    found = list(_db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1))
    if not found:
        return "204 No Content", None, b""
    return _json(found)


def upstream(environ):
    status, body = _upstream_get()
    if status != 200:
        raise HTTPError("502 Bad Gateway", f"the upstream answered {status}")
    return _json({"upstream": json.loads(body)})


def sleep(environ):
    ms = _int_param(_query(environ), "ms", None, 0, 10000, "an integer from 0 to 10000")
    time.sleep(ms / 1000)
    return _json({"slept_ms": ms})


def site_search(environ):
    params = _query(environ)
    page = _int_param(params, "page", 1, 1, float("inf"), "an integer >= 1")
    return "200 OK", "text/html; charset=utf-8", sitedata.search_page(params.get("q", ""), page)


def site_api_books(environ):
    return "200 OK", "application/json", sitedata.books_json(_query(environ).get("q", ""))


def _book_image(name, image):
    """/site/covers/<n>.jpg and /site/thumbs/<n>.jpg: the image of book n, else 404."""
    stem, dot, ext = name.rpartition(".")
    try:
        data = image(int(stem)) if dot and ext == "jpg" else None
    except ValueError:
        data = None
    if data is None:
        raise HTTPError("404 Not Found", "Not Found")
    return "200 OK", "image/jpeg", data


def site_static(name):
    found = sitedata.static(name)
    if found is None:
        raise HTTPError("404 Not Found", "Not Found")
    content_type, data = found
    return "200 OK", content_type, data


ROUTES = {
    "/mongo/small": mongo_small,
    "/mongo/big": mongo_big,
    "/events": events,
    "/upstream": upstream,
    "/sleep": sleep,
    "/site/search": site_search,
    "/site/api/books": site_api_books,
}
# Path prefix -> handler of the rest of the path (one segment).
PREFIX_ROUTES = (
    ("/site/covers/", lambda name: _book_image(name, sitedata.cover)),
    ("/site/thumbs/", lambda name: _book_image(name, sitedata.thumb)),
    ("/site/static/", site_static),
)


def _route(environ, path):
    handler = ROUTES.get(path)
    if handler is not None:
        return handler(environ)
    for prefix, handler in PREFIX_ROUTES:
        if path.startswith(prefix) and "/" not in path[len(prefix):]:
            return handler(path[len(prefix):])
    raise HTTPError("404 Not Found", "Not Found")


def app(environ, start_response):
    path = environ["PATH_INFO"]
    if path == "/plaintext":
        return _respond(start_response, "200 OK", "text/plain", PLAINTEXT)
    if path == "/json":
        body = json.dumps({"message": "Hello, World!"}).encode()
        return _respond(start_response, "200 OK", "application/json", body)
    if path == "/redis":
        client = _client()
        if client is None:
            body = b"SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server"
            return _respond(start_response, "500 Internal Server Error", "text/plain", body)
        pipe = client.pipeline(transaction=False)
        pipe.incr(COUNTER_KEY)
        pipe.get(VALUE_KEY)
        counter, value = pipe.execute()
        body = json.dumps({"counter": counter, "value": value}).encode()
        return _respond(start_response, "200 OK", "application/json", body)
    try:
        status, content_type, body = _route(environ, path)
    except HTTPError as exc:
        return _respond(start_response, exc.status, "text/plain", exc.text.encode())
    if content_type is None:  # 204: no body, so neither Content-Type nor Content-Length
        start_response(status, [])
        return []
    return _respond(start_response, status, content_type, body)


if BURN_S:
    _app = app

    def app(environ, start_response):
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass
        return _app(environ, start_response)


if injected_work.ITERS:  # no hook at all unless the work knob is set
    _unworked = app

    def app(environ, start_response):
        header = (injected_work.HEADER, injected_work.run())

        def start_worked_response(status, headers, exc_info=None):
            return start_response(status, headers + [header], exc_info)

        return _unworked(environ, start_worked_response)
