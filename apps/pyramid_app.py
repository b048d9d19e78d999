"""The endpoint contract in Pyramid (WSGI).  Redis through redis-py, configured by SERVERBENCH_REDIS_URL.

Served with any WSGI server as ``pyramid_app:app``.
"""
import os
import time

import redis
from pyramid.config import Configurator
from pyramid.events import NewRequest
from pyramid.httpexceptions import HTTPInternalServerError
from pyramid.response import Response

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"

_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


def _burn(event):
    end = time.thread_time() + BURN_S
    while time.thread_time() < end:
        pass


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            raise HTTPInternalServerError("SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


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


with Configurator() as config:
    if BURN_S:
        config.add_subscriber(_burn, NewRequest)
    config.add_route("plaintext", "/plaintext")
    config.add_route("json", "/json")
    config.add_route("redis", "/redis")
    config.add_view(plaintext, route_name="plaintext", request_method="GET")
    config.add_view(json_endpoint, route_name="json", request_method="GET", renderer="json")
    config.add_view(redis_endpoint, route_name="redis", request_method="GET", renderer="json")
    app = config.make_wsgi_app()
