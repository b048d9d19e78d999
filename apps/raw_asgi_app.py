"""The endpoint contract as a bare ASGI callable: no framework, the fastest-possible ASGI baseline.

stdlib json for bodies (serialized per request, like every other app).  The workloads' work (Redis,
MongoDB, the upstream through one aiohttp.ClientSession, the sleep) is async_workloads'; this module
routes the requests to it and shapes the answers by hand.  The clients are created once, on first use,
inside the server's event loop.  Handles the ``lifespan`` scope (startup/shutdown complete; the clients
are closed at shutdown).

Served with ``python -m uvicorn --host HOST --port PORT --no-access-log --app-dir apps raw_asgi_app:app``.
"""

import json
from urllib.parse import parse_qsl

import async_workloads
import injected_work
import sitedata

_HELLO = b"Hello, World!"
_TEXT = b"text/plain"
_JSON = b"application/json"
_HTML = b"text/html"
_JPEG = b"image/jpeg"
# The process's workloads and their clients; a refusal raises async_workloads.Refused, answered in _app.
work = async_workloads.AsyncWorkloads()


def _start(status, content_type, body):
    return {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())],
    }


async def _send(send, status, content_type, body):
    await send(_start(status, content_type, body))
    await send({"type": "http.response.body", "body": body})


def _query(scope):
    """The query arguments, the first value of each (latin-1 bytes, %-escapes as UTF-8, like Starlette)."""
    args = {}
    for name, value in parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True):
        args.setdefault(name, value)
    return args


async def _send_json(send, obj):
    await _send(send, 200, _JSON, json.dumps(obj).encode())


async def _not_found(send):
    await _send(send, 404, _TEXT, b"Not Found")


async def _plaintext(scope, send):
    await _send(send, 200, _TEXT, _HELLO)


async def _json(scope, send):
    await _send(send, 200, _JSON, json.dumps({"message": "Hello, World!"}).encode())


async def _redis_endpoint(scope, send):
    await _send_json(send, await work.redis())


def _mongo_doc(doc_id):
    async def endpoint(scope, send):
        await _send_json(send, await work.mongo_doc(doc_id))

    return endpoint


async def _events(scope, send):
    rows = await work.events(_query(scope).get("size"))
    if not rows:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    await _send_json(send, rows)


async def _upstream(scope, send):
    await _send_json(send, await work.upstream())


async def _sleep(scope, send):
    await _send_json(send, await work.sleep(_query(scope).get("ms")))


async def _site_search(scope, send):
    args = _query(scope)
    page = work.page(args.get("page"))
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
    "/plaintext": _plaintext,
    "/json": _json,
    "/redis": _redis_endpoint,
    "/mongo/small": _mongo_doc("small"),
    "/mongo/big": _mongo_doc("big"),
    "/events": _events,
    "/upstream": _upstream,
    "/sleep": _sleep,
    "/site/search": _site_search,
    "/site/api/books": _site_books,
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
            return handler, (path[len(prefix) :],)
    return None, ()


async def close_clients():
    """Close the clients made on first use (at shutdown; the handler benchmarks)."""
    await work.close()


async def _lifespan(receive, send):
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await close_clients()
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
            await send(
                {
                    "type": "http.response.start",
                    "status": 405,
                    "headers": [(b"content-type", _TEXT), (b"content-length", b"18"), (b"allow", b"GET, HEAD")],
                }
            )
            await send({"type": "http.response.body", "body": b"Method Not Allowed"})
        else:
            try:
                await handler(scope, send, *extra)
            except async_workloads.Refused as exc:
                await _send(send, exc.status, _TEXT, exc.text.encode())
    elif scope["type"] == "lifespan":
        await _lifespan(receive, send)
    else:  # e.g. websocket: not part of the contract
        raise RuntimeError(f"unsupported ASGI scope type {scope['type']!r}")


async def _per_request_app(scope, receive, send):
    if scope["type"] == "http":
        injected_work.per_request()
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
_unworked = _per_request_app if injected_work.PER_REQUEST else _app
app = _worked_app if injected_work.ITERS else _unworked
