"""The endpoint contract as a bare WSGI callable (stdlib json + redis-py + pymongo only): the framework-free baseline.

The workloads' work (Redis, MongoDB, the upstream, the sleep) is sync_workloads'; this module routes
the requests to it and shapes the answers by hand.  The book site is sitedata's.
Served with any WSGI server as ``raw_wsgi_app:app``.
"""

import json
from http import HTTPStatus
from urllib.parse import parse_qsl

import injected_work
import sitedata
import sync_workloads
from sync_workloads import Refused

PLAINTEXT = b"Hello, World!"
work = sync_workloads.Workloads()  # a refusal raises Refused, answered in app()
close_clients = work.close  # the handler benchmarks close the clients made on first use


def _respond(start_response, status, content_type, body):
    start_response(status, [("Content-Type", content_type), ("Content-Length", str(len(body)))])
    return [body]


def _query(environ):
    """The query parameters, the first value of each."""
    params = {}
    for name, value in parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True):
        params.setdefault(name, value)
    return params


def _json(obj):
    return "200 OK", "application/json", json.dumps(obj).encode()


def mongo_small(environ):
    return _json(work.mongo_doc("small"))


def mongo_big(environ):
    return _json(work.mongo_doc("big"))


def events(environ):
    found = work.events(_query(environ).get("size"))
    if not found:
        return "204 No Content", None, b""
    return _json(found)


def upstream(environ):
    return _json(work.upstream())


def sleep(environ):
    return _json(work.sleep(_query(environ).get("ms")))


def site_search(environ):
    params = _query(environ)
    page = work.page(params.get("page"))
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
        raise Refused(404, "Not Found")
    return "200 OK", "image/jpeg", data


def site_static(name):
    found = sitedata.static(name)
    if found is None:
        raise Refused(404, "Not Found")
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
        if path.startswith(prefix) and "/" not in path[len(prefix) :]:
            return handler(path[len(prefix) :])
    raise Refused(404, "Not Found")


def app(environ, start_response):
    path = environ["PATH_INFO"]
    if path == "/plaintext":
        return _respond(start_response, "200 OK", "text/plain", PLAINTEXT)
    if path == "/json":
        body = json.dumps({"message": "Hello, World!"}).encode()
        return _respond(start_response, "200 OK", "application/json", body)
    try:
        if path == "/redis":  # ahead of the table, as /plaintext and /json: the workloads' hot path
            return _respond(start_response, "200 OK", "application/json", json.dumps(work.redis()).encode())
        status, content_type, body = _route(environ, path)
    except Refused as exc:
        status = f"{exc.status} {HTTPStatus(exc.status).phrase}"
        return _respond(start_response, status, "text/plain", exc.text.encode())
    if content_type is None:  # 204: no body, so neither Content-Type nor Content-Length
        start_response(status, [])
        return []
    return _respond(start_response, status, content_type, body)


if injected_work.PER_REQUEST:  # the burn and leak knobs; no wrapper at all unless one is set
    _app = app

    def app(environ, start_response):
        injected_work.per_request()
        return _app(environ, start_response)


if injected_work.ITERS:  # no hook at all unless the work knob is set
    _unworked = app

    def app(environ, start_response):
        header = (injected_work.HEADER, injected_work.run())

        def start_worked_response(status, headers, exc_info=None):
            return start_response(status, headers + [header], exc_info)

        return _unworked(environ, start_worked_response)
