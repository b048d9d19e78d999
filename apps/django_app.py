"""The endpoint contract as a single-file Django project (WSGI).

Redis through redis-py (SERVERBENCH_REDIS_URL), MongoDB through pymongo (SERVERBENCH_MONGO_URL),
the slow upstream through http.client (SERVERBENCH_UPSTREAM_URL), and the book site of sitedata.
Served with any WSGI server as ``django_app:application`` (the ASGI variant is django_asgi_app.py).
"""
import json
import os
import time

import redis
from django.conf import settings

import injected_work
import sitedata
import sync_clients

# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6

settings.configure(
    DEBUG=False,
    # Django's 500 handling reads SECRET_KEY; without one a 500 naming a missing backend URL became bare.
    SECRET_KEY="serverbench-reference-app-not-secret",
    ALLOWED_HOSTS=["127.0.0.1", "localhost", "::1", "[::1]"],
    ROOT_URLCONF=__name__,
    # CommonMiddleware sets Content-Length (else the server falls back to chunked framing) and checks ALLOWED_HOSTS.
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"] + ([f"{__name__}.burn_middleware"] if BURN_S else [])
    + ([f"{__name__}.work_middleware"] if injected_work.ITERS else []),
)

from django.core.wsgi import get_wsgi_application  # noqa: E402  (needs settings)
from django.http import (Http404, HttpResponse, HttpResponseBadRequest, HttpResponseServerError,  # noqa: E402
                         JsonResponse)
from django.urls import path  # noqa: E402

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
EVENT_QUEUES = ("0", "1k", "64k")
MONGO_NEEDS = "SERVERBENCH_MONGO_URL is not set: /mongo/* and /events need a MongoDB server"
_redis = None


def burn_middleware(get_response):
    def middleware(request):
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass
        return get_response(request)

    return middleware


def work_middleware(get_response):
    def middleware(request):
        response = get_response(request)
        response[injected_work.HEADER] = injected_work.run()
        return response

    return middleware


def close_clients():
    """Close the clients made on first use (see sync_clients.close)."""
    global _redis
    sync_clients.close(_redis)
    _redis = None


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if url:
            _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


def _db():
    """The pymongo database, None when SERVERBENCH_MONGO_URL is not set."""
    url = os.environ.get("SERVERBENCH_MONGO_URL")
    return sync_clients.mongo_db(url) if url else None


def plaintext(request):
    return HttpResponse(b"Hello, World!", content_type="text/plain")


def json_endpoint(request):
    return JsonResponse({"message": "Hello, World!"})


def redis_endpoint(request):
    client = _client()
    if client is None:
        return HttpResponseServerError("SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server", content_type="text/plain")
    pipe = client.pipeline(transaction=False)
    pipe.incr(COUNTER_KEY)
    pipe.get(VALUE_KEY)
    counter, value = pipe.execute()
    return JsonResponse({"counter": counter, "value": value})


def mongo_doc(request, doc_id):
    db = _db()
    if db is None:
        return HttpResponseServerError(MONGO_NEEDS, content_type="text/plain")
    doc = db.docs.find_one({"_id": doc_id}, {"_id": 0})
    if doc is None:
        raise Http404(f"no document {doc_id!r}")
    return JsonResponse(doc)


def events(request):
    size = request.GET.get("size")
    if size not in EVENT_QUEUES:
        return HttpResponseBadRequest(f"size must be one of {', '.join(EVENT_QUEUES)}", content_type="text/plain")
    db = _db()
    if db is None:
        return HttpResponseServerError(MONGO_NEEDS, content_type="text/plain")
    found = list(db.events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1))
    if not found:
        return HttpResponse(status=204)
    return JsonResponse(found, safe=False)


def upstream(request):
    url = os.environ.get("SERVERBENCH_UPSTREAM_URL")
    if not url:
        return HttpResponseServerError("SERVERBENCH_UPSTREAM_URL is not set: /upstream needs an upstream HTTP server",
                                       content_type="text/plain")
    status, body = sync_clients.upstream_get(url)
    if status != 200:
        return HttpResponse(f"the upstream answered {status}", status=502, content_type="text/plain")
    return JsonResponse({"upstream": json.loads(body)})


def sleep(request):
    try:
        ms = int(request.GET.get("ms", ""))
    except ValueError:
        ms = -1
    if not 0 <= ms <= 10000:
        return HttpResponseBadRequest("ms must be an integer from 0 to 10000", content_type="text/plain")
    time.sleep(ms / 1000)
    return JsonResponse({"slept_ms": ms})


def site_search(request):
    try:
        page = int(request.GET.get("page", 1))
    except ValueError:
        page = 0
    if page < 1:
        return HttpResponseBadRequest("page must be an integer >= 1", content_type="text/plain")
    return HttpResponse(sitedata.search_page(request.GET.get("q", ""), page), content_type="text/html")


def site_api_books(request):
    return HttpResponse(sitedata.books_json(request.GET.get("q", "")), content_type="application/json")


def site_cover(request, n):
    data = sitedata.cover(n)
    if data is None:
        raise Http404("no such cover")
    return HttpResponse(data, content_type="image/jpeg")


def site_thumb(request, n):
    data = sitedata.thumb(n)
    if data is None:
        raise Http404("no such thumbnail")
    return HttpResponse(data, content_type="image/jpeg")


def site_static(request, name):
    found = sitedata.static(name)
    if found is None:
        raise Http404("no such file")
    content_type, data = found
    return HttpResponse(data, content_type=content_type)


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
    path("site/api/books", site_api_books),
    path("site/covers/<int:n>.jpg", site_cover),
    path("site/thumbs/<int:n>.jpg", site_thumb),
    path("site/static/<str:name>", site_static),
]

application = get_wsgi_application()
