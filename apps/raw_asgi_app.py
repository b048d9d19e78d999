"""The endpoint contract as a bare ASGI callable: no framework, the fastest-possible ASGI baseline.

stdlib json for bodies (serialized per request, like every other app), redis.asyncio for /redis,
configured by SERVERBENCH_REDIS_URL; pymongo's AsyncMongoClient for /mongo and /events
(SERVERBENCH_MONGO_URL); one aiohttp.ClientSession for /upstream (SERVERBENCH_UPSTREAM_URL).
Clients are created once, on first use, inside the server's event loop.  Handles the ``lifespan``
scope (startup/shutdown complete; the clients are closed at shutdown).

Served with ``python -m uvicorn --host HOST --port PORT --no-access-log --app-dir apps raw_asgi_app:app``.
"""
import asyncio
import json
import os
import time
from urllib.parse import parse_qsl

import redis.asyncio as aioredis

import async_clients
import injected_work
import sitedata

try:  # the /upstream client; the other endpoints do without it
    import aiohttp
except ImportError:
    aiohttp = None

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6

MONGO_DB = "serverbench"
EVENT_QUEUES = ("0", "1k", "64k")
MAX_SLEEP_MS = 10_000

_HELLO = b"Hello, World!"
_TEXT = b"text/plain"
_JSON = b"application/json"
_HTML = b"text/html"
_JPEG = b"image/jpeg"
_redis = None
_mongo = None
_http = None


class _Unavailable(Exception):
    """A backend that is not configured: answered 500 with the reason."""


def _start(status, content_type, body):
    return {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())],
    }


async def _send(send, status, content_type, body):
    await send(_start(status, content_type, body))
    await send({"type": "http.response.body", "body": body})


def _client():
    """The Redis client, created once on first use (inside the server's event loop)."""
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            return None
        _redis = aioredis.Redis.from_url(url, decode_responses=True)
    return _redis


def _mongo_db():
    """The "serverbench" database, its client created once on first use (inside the server's event loop)."""
    global _mongo
    if _mongo is None:
        url = os.environ.get("SERVERBENCH_MONGO_URL")
        if not url:
            raise _Unavailable("SERVERBENCH_MONGO_URL is not set: this endpoint needs MongoDB")
        client_class = async_clients.mongo_client_class()
        if client_class is None:
            raise _Unavailable("no async MongoDB client: install pymongo >= 4.10 (AsyncMongoClient) or motor")
        _mongo = client_class(url)
    return _mongo[MONGO_DB]


def _http_session():
    """The upstream client: one aiohttp.ClientSession (one connection pool), made on first use."""
    global _http
    if _http is None:
        if aiohttp is None:
            raise _Unavailable("aiohttp is not installed: /upstream needs its client")
        _http = aiohttp.ClientSession()
    return _http


def _query(scope):
    """The query arguments, the first value of each (latin-1 bytes, %-escapes as UTF-8, like Starlette)."""
    args = {}
    for name, value in parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True):
        args.setdefault(name, value)
    return args


def _int_arg(args, name, default):
    try:
        return int(args.get(name, default))
    except ValueError:
        return None


async def _send_json(send, obj):
    await _send(send, 200, _JSON, json.dumps(obj).encode())


async def _not_found(send):
    await _send(send, 404, _TEXT, b"Not Found")


async def _plaintext(scope, send):
    await _send(send, 200, _TEXT, _HELLO)


async def _json(scope, send):
    await _send(send, 200, _JSON, json.dumps({"message": "Hello, World!"}).encode())


async def _redis_endpoint(scope, send):
    client = _client()
    if client is None:
        await _send(send, 500, _TEXT, b"SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
        return
    async with client.pipeline(transaction=False) as pipe:
        counter, value = await pipe.incr(COUNTER_KEY).get(VALUE_KEY).execute()
    await _send(send, 200, _JSON, json.dumps({"counter": counter, "value": value}).encode())


def _mongo_doc(doc_id):
    async def endpoint(scope, send):
        doc = await _mongo_db().docs.find_one({"_id": doc_id}, {"_id": 0})
        if doc is None:
            await _send(send, 500, _TEXT, f"no document {doc_id!r} in {MONGO_DB}.docs: is MongoDB seeded?".encode())
            return
        await _send_json(send, doc)

    return endpoint


async def _events(scope, send):
    size = _query(scope).get("size")
    if size not in EVENT_QUEUES:
        await _send(send, 400, _TEXT, f"size must be one of {', '.join(EVENT_QUEUES)}".encode())
        return
    rows = await _mongo_db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1).to_list(None)
    if not rows:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    await _send_json(send, rows)


async def _upstream(scope, send):
    url = os.environ.get("SERVERBENCH_UPSTREAM_URL")
    if not url:
        raise _Unavailable("SERVERBENCH_UPSTREAM_URL is not set: /upstream needs an upstream")
    async with _http_session().get(url) as response:
        response.raise_for_status()
        body = json.loads(await response.read())
    await _send_json(send, {"upstream": body})


async def _sleep(scope, send):
    ms = _int_arg(_query(scope), "ms", "")
    if ms is None or not 0 <= ms <= MAX_SLEEP_MS:
        await _send(send, 400, _TEXT, f"ms must be an integer from 0 to {MAX_SLEEP_MS}".encode())
        return
    await asyncio.sleep(ms / 1000)
    await _send_json(send, {"slept_ms": ms})


async def _site_search(scope, send):
    args = _query(scope)
    page = _int_arg(args, "page", "1")
    if page is None or page < 1:
        await _send(send, 400, _TEXT, b"page must be an integer >= 1")
        return
    await _send(send, 200, _HTML, sitedata.search_page(args.get("q", ""), page))


async def _site_books(scope, send):
    await _send(send, 200, _JSON, sitedata.books_json(_query(scope).get("q", "")))


def _site_image(make):
    async def endpoint(scope, send, name):
        stem, dot_jpg = name[:-4], name[-4:]
        body = make(int(stem)) if dot_jpg == ".jpg" and stem.isascii() and stem.isdigit() else None
        if body is None:
            await _not_found(send)
        else:
            await _send(send, 200, _JPEG, body)

    return endpoint


async def _site_static(scope, send, name):
    found = None if "/" in name else sitedata.static(name)
    if found is None:
        await _not_found(send)
        return
    content_type, body = found
    await _send(send, 200, content_type.encode(), body)


_ROUTES = {
    "/plaintext": _plaintext, "/json": _json, "/redis": _redis_endpoint,
    "/mongo/small": _mongo_doc("small"), "/mongo/big": _mongo_doc("big"), "/events": _events,
    "/upstream": _upstream, "/sleep": _sleep, "/site/search": _site_search, "/site/api/books": _site_books,
}
# Paths with a parameter: the rest of the path after the prefix is the handler's last argument.
_PREFIX_ROUTES = (
    ("/site/covers/", _site_image(sitedata.cover)),
    ("/site/thumbs/", _site_image(sitedata.thumb)),
    ("/site/static/", _site_static),
)


def _prefix_route(path):
    """(handler, (rest of the path,)) for a path with a parameter, or (None, ()) when nothing serves it."""
    for prefix, handler in _PREFIX_ROUTES:
        if path.startswith(prefix):
            return handler, (path[len(prefix):],)
    return None, ()


async def _close_clients():
    global _mongo, _http
    if _http is not None:
        await _http.close()
        _http = None
    if _mongo is not None:
        await async_clients.close_mongo(_mongo)
        _mongo = None


async def _lifespan(receive, send):
    global _redis
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if _redis is not None:
                await _redis.aclose()
                _redis = None
            await _close_clients()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _app(scope, receive, send):
    if scope["type"] == "http":
        handler = _ROUTES.get(scope["path"])
        extra = ()
        if handler is None:  # exact paths first; the parametrized ones only on a miss
            handler, extra = _prefix_route(scope["path"])
        if handler is None:
            await _not_found(send)
        elif scope["method"] not in ("GET", "HEAD"):
            await send({"type": "http.response.start", "status": 405,
                        "headers": [(b"content-type", _TEXT), (b"content-length", b"18"), (b"allow", b"GET, HEAD")]})
            await send({"type": "http.response.body", "body": b"Method Not Allowed"})
        else:
            try:
                await handler(scope, send, *extra)
            except _Unavailable as exc:
                await _send(send, 500, _TEXT, str(exc).encode())
    elif scope["type"] == "lifespan":
        await _lifespan(receive, send)
    else:  # e.g. websocket: not part of the contract
        raise RuntimeError(f"unsupported ASGI scope type {scope['type']!r}")


async def _burning_app(scope, receive, send):
    if scope["type"] == "http":
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass
    await _app(scope, receive, send)


async def _worked_app(scope, receive, send):
    if scope["type"] != "http":
        return await _unworked(scope, receive, send)
    header = (injected_work.HEADER.lower().encode(), injected_work.run().encode())

    async def send_worked(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), header]}
        await send(message)

    await _unworked(scope, receive, send_worked)


# No hook at all unless a knob is set.
_unworked = _burning_app if BURN_S else _app
app = _worked_app if injected_work.ITERS else _unworked
