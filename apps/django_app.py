"""The endpoint contract as a single-file Django project (WSGI).  Redis through redis-py, configured by SERVERBENCH_REDIS_URL.

Served with any WSGI server as ``django_app:application`` (the ASGI variant is django_asgi_app.py).
"""
import os
import time

import redis
from django.conf import settings

# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost", "::1", "[::1]"],
    ROOT_URLCONF=__name__,
    # CommonMiddleware sets Content-Length (else the server falls back to chunked framing) and checks ALLOWED_HOSTS.
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"] + ([f"{__name__}.burn_middleware"] if BURN_S else []),
)

from django.core.wsgi import get_wsgi_application  # noqa: E402  (needs settings)
from django.http import HttpResponse, HttpResponseServerError, JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
_redis = None


def burn_middleware(get_response):
    def middleware(request):
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass
        return get_response(request)

    return middleware


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if url:
            _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


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


urlpatterns = [
    path("plaintext", plaintext),
    path("json", json_endpoint),
    path("redis", redis_endpoint),
]

application = get_wsgi_application()
