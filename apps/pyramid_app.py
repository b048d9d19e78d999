"""The endpoint contract in Pyramid (WSGI).

Redis through redis-py (SERVERBENCH_REDIS_URL), MongoDB through pymongo (SERVERBENCH_MONGO_URL),
the slow upstream through http.client (SERVERBENCH_UPSTREAM_URL), and the book site of sitedata.
Served with any WSGI server as ``pyramid_app:app``.
"""
import json
import os
import time

import redis
from pyramid.config import Configurator
from pyramid.events import NewRequest, NewResponse
from pyramid.httpexceptions import (HTTPBadGateway, HTTPBadRequest, HTTPInternalServerError, HTTPNoContent,
                                    HTTPNotFound)
from pyramid.response import Response

import injected_work
import sitedata
import sync_clients

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
EVENT_QUEUES = ("0", "1k", "64k")

_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


def _burn(event):
    end = time.thread_time() + BURN_S
    while time.thread_time() < end:
        pass


def _work(event):
    event.response.headers[injected_work.HEADER] = injected_work.run()


def _setting(name, needs):
    value = os.environ.get(name)
    if not value:
        raise HTTPInternalServerError(f"{name} is not set: {needs}")
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
            raise HTTPInternalServerError("SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


def _db():
    return sync_clients.mongo_db(_setting("SERVERBENCH_MONGO_URL", "/mongo/* and /events need a MongoDB server"))


def _upstream_get():
    return sync_clients.upstream_get(_setting("SERVERBENCH_UPSTREAM_URL", "/upstream needs an upstream HTTP server"))


def plaintext(request):
    return Response(b"Hello, World!", content_type="text/plain")


def json_endpoint(request):
    return {"message": "Hello, World!"}


def redis_endpoint(request):
    pipe = _client().pipeline(transaction=False)
    pipe.incr(COUNTER_KEY)
    pipe.get(VALUE_KEY)
    counter, value = pipe.execute()
    return {"counter": counter, "value": value}


def mongo_doc(request):
    doc_id = request.matchdict["doc_id"]
    doc = _db().docs.find_one({"_id": doc_id}, {"_id": 0})
    if doc is None:
        raise HTTPNotFound(f"no document {doc_id!r}")
    return doc


def events(request):
    size = request.GET.get("size")
    if size not in EVENT_QUEUES:
        raise HTTPBadRequest(f"size must be one of {', '.join(EVENT_QUEUES)}")
    found = list(_db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1))
    if not found:
        return HTTPNoContent()
    return found


def upstream(request):
    status, body = _upstream_get()
    if status != 200:
        raise HTTPBadGateway(f"the upstream answered {status}")
    return {"upstream": json.loads(body)}


def sleep(request):
    try:
        ms = int(request.GET.get("ms", ""))
    except ValueError:
        ms = -1
    if not 0 <= ms <= 10000:
        raise HTTPBadRequest("ms must be an integer from 0 to 10000")
    time.sleep(ms / 1000)
    return {"slept_ms": ms}


def site_search(request):
    try:
        page = int(request.GET.get("page", 1))
    except ValueError:
        page = 0
    if page < 1:
        raise HTTPBadRequest("page must be an integer >= 1")
    return Response(sitedata.search_page(request.GET.get("q", ""), page), content_type="text/html")


def site_api_books(request):
    return Response(sitedata.books_json(request.GET.get("q", "")), content_type="application/json")


def site_cover(request):
    data = sitedata.cover(int(request.matchdict["n"]))
    if data is None:
        raise HTTPNotFound("no such cover")
    return Response(data, content_type="image/jpeg")


def site_thumb(request):
    data = sitedata.thumb(int(request.matchdict["n"]))
    if data is None:
        raise HTTPNotFound("no such thumbnail")
    return Response(data, content_type="image/jpeg")


def site_static(request):
    found = sitedata.static(request.matchdict["name"])
    if found is None:
        raise HTTPNotFound("no such file")
    content_type, data = found
    return Response(data, content_type=content_type)


with Configurator() as config:
    if BURN_S:
        config.add_subscriber(_burn, NewRequest)
    if injected_work.ITERS:  # no hook at all unless the work knob is set
        config.add_subscriber(_work, NewResponse)
    config.add_route("plaintext", "/plaintext")
    config.add_route("json", "/json")
    config.add_route("redis", "/redis")
    config.add_route("mongo", "/mongo/{doc_id:small|big}")
    config.add_route("events", "/events")
    config.add_route("upstream", "/upstream")
    config.add_route("sleep", "/sleep")
    config.add_route("site_search", "/site/search")
    config.add_route("site_api_books", "/site/api/books")
    config.add_route("site_cover", r"/site/covers/{n:\d+}.jpg")
    config.add_route("site_thumb", r"/site/thumbs/{n:\d+}.jpg")
    config.add_route("site_static", "/site/static/{name}")
    config.add_view(plaintext, route_name="plaintext", request_method="GET")
    config.add_view(json_endpoint, route_name="json", request_method="GET", renderer="json")
    config.add_view(redis_endpoint, route_name="redis", request_method="GET", renderer="json")
    config.add_view(mongo_doc, route_name="mongo", request_method="GET", renderer="json")
    config.add_view(events, route_name="events", request_method="GET", renderer="json")
    config.add_view(upstream, route_name="upstream", request_method="GET", renderer="json")
    config.add_view(sleep, route_name="sleep", request_method="GET", renderer="json")
    config.add_view(site_search, route_name="site_search", request_method="GET")
    config.add_view(site_api_books, route_name="site_api_books", request_method="GET")
    config.add_view(site_cover, route_name="site_cover", request_method="GET")
    config.add_view(site_thumb, route_name="site_thumb", request_method="GET")
    config.add_view(site_static, route_name="site_static", request_method="GET")
    app = config.make_wsgi_app()
