"""The endpoint contract as a single-file Django project (ASGI, async views).  Redis through redis.asyncio, configured by SERVERBENCH_REDIS_URL.

MongoDB through pymongo's AsyncMongoClient (SERVERBENCH_MONGO_URL), the slow upstream through one
aiohttp.ClientSession (SERVERBENCH_UPSTREAM_URL): async clients, created once on first use inside the
server's event loop.  Django has no lifespan (no shutdown hook), so they live as long as the process.

Served with any ASGI server as ``django_asgi_app:application`` (the WSGI variant is django_app.py).
"""
import asyncio
import json
import os
import time

import redis.asyncio as aioredis
from django.conf import settings

import async_clients
import injected_work
import sitedata

try:  # the /upstream client; the other endpoints do without it
    import aiohttp
except ImportError:
    aiohttp = None

# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost", "::1", "[::1]"],
    # Nothing is signed; but Django 4.2 (the PyPy 3.9 env) builds the admin error report for every 5xx and that
    # reads SECRET_KEY: without one, a 500 (e.g. a backend URL not set) became a bare "Internal Server Error".
    SECRET_KEY="serverbench-reference-app-not-secret",
    ROOT_URLCONF=__name__,
    # CommonMiddleware sets Content-Length (else the server falls back to chunked framing) and checks ALLOWED_HOSTS.
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"] + ([f"{__name__}.burn_middleware"] if BURN_S else [])
    + ([f"{__name__}.work_middleware"] if injected_work.ITERS else []),
)

from django.core.asgi import get_asgi_application  # noqa: E402  (needs settings)
from django.http import (  # noqa: E402
    Http404, HttpResponse, HttpResponseBadRequest, HttpResponseServerError, JsonResponse)
from django.urls import path  # noqa: E402
from django.utils.decorators import async_only_middleware  # noqa: E402

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
MONGO_DB = "serverbench"
EVENT_QUEUES = ("0", "1k", "64k")
MAX_SLEEP_MS = 10_000
_redis = None
_mongo = None
_http = None


@async_only_middleware
def burn_middleware(get_response):
    async def middleware(request):
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass
        return await get_response(request)

    return middleware


@async_only_middleware
def work_middleware(get_response):
    async def middleware(request):
        response = await get_response(request)
        response[injected_work.HEADER] = injected_work.run()
        return response

    return middleware


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if url:
            _redis = aioredis.Redis.from_url(url, decode_responses=True)
    return _redis


class _Unavailable(Exception):
    """A backend that is not configured: answered 500 with the reason."""


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


async def close_clients():
    """Close the clients made on first use.  Django's ASGI handler has no lifespan, so a server's process just
    exits with them; a process that outlives the app (the in-process handler benchmarks) calls this."""
    global _redis, _mongo, _http
    if _redis is not None:
        await _redis.aclose()
        _redis = None
    if _mongo is not None:
        await async_clients.close_mongo(_mongo)
        _mongo = None
    if _http is not None:
        await _http.close()
        _http = None


def _unavailable(exc):
    return HttpResponseServerError(str(exc), content_type="text/plain")


def _int_arg(request, name, default):
    try:
        return int(request.GET.get(name, default))
    except ValueError:
        return None


async def plaintext(request):
    return HttpResponse(b"Hello, World!", content_type="text/plain")


async def json_endpoint(request):
    return JsonResponse({"message": "Hello, World!"})


async def redis_endpoint(request):
    client = _client()
    if client is None:
        return HttpResponseServerError("SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server", content_type="text/plain")
    async with client.pipeline(transaction=False) as pipe:
        counter, value = await pipe.incr(COUNTER_KEY).get(VALUE_KEY).execute()
    return JsonResponse({"counter": counter, "value": value})


async def mongo_doc(request, doc_id):
    try:
        doc = await _mongo_db().docs.find_one({"_id": doc_id}, {"_id": 0})
    except _Unavailable as exc:
        return _unavailable(exc)
    if doc is None:
        return HttpResponseServerError(f"no document {doc_id!r} in {MONGO_DB}.docs: is MongoDB seeded?",
                                       content_type="text/plain")
    return JsonResponse(doc)


async def events(request):
    size = request.GET.get("size")
    if size not in EVENT_QUEUES:
        return HttpResponseBadRequest(f"size must be one of {', '.join(EVENT_QUEUES)}", content_type="text/plain")
    try:
        db = _mongo_db()
    except _Unavailable as exc:
        return _unavailable(exc)
    rows = await db.events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1).to_list(None)
    if not rows:
        response = HttpResponse(status=204)
        del response["Content-Type"]  # no body, nothing to type (as HttpResponseNotModified does)
        return response
    return JsonResponse(rows, safe=False)


async def upstream(request):
    url = os.environ.get("SERVERBENCH_UPSTREAM_URL")
    try:
        if not url:
            raise _Unavailable("SERVERBENCH_UPSTREAM_URL is not set: /upstream needs an upstream")
        session = _http_session()
    except _Unavailable as exc:
        return _unavailable(exc)
    async with session.get(url) as response:
        response.raise_for_status()
        body = json.loads(await response.read())
    return JsonResponse({"upstream": body})


async def sleep(request):
    ms = _int_arg(request, "ms", "")
    if ms is None or not 0 <= ms <= MAX_SLEEP_MS:
        return HttpResponseBadRequest(f"ms must be an integer from 0 to {MAX_SLEEP_MS}", content_type="text/plain")
    await asyncio.sleep(ms / 1000)
    return JsonResponse({"slept_ms": ms})


async def site_search(request):
    page = _int_arg(request, "page", "1")
    if page is None or page < 1:
        return HttpResponseBadRequest("page must be an integer >= 1", content_type="text/plain")
    return HttpResponse(sitedata.search_page(request.GET.get("q", ""), page), content_type="text/html")


async def site_books(request):
    return HttpResponse(sitedata.books_json(request.GET.get("q", "")), content_type="application/json")


async def site_image(request, n, make):
    body = make(n)
    if body is None:
        raise Http404
    return HttpResponse(body, content_type="image/jpeg")


async def site_static(request, name):
    found = sitedata.static(name)
    if found is None:
        raise Http404
    content_type, body = found
    return HttpResponse(body, content_type=content_type)


urlpatterns = [
    path("plaintext", plaintext),
    path("json", json_endpoint),
    path("redis", redis_endpoint),
    path("mongo/small", mongo_doc, {"doc_id": "small"}),
    path("mongo/big", mongo_doc, {"doc_id": "big"}),
    path("events", events),
    path("upstream", upstream),
    path("sleep", sleep),
    path("site/search", site_search),
    path("site/api/books", site_books),
    path("site/covers/<int:n>.jpg", site_image, {"make": sitedata.cover}),
    path("site/thumbs/<int:n>.jpg", site_image, {"make": sitedata.thumb}),
    path("site/static/<str:name>", site_static),
]

application = get_asgi_application()
