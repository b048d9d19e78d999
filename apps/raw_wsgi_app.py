"""The endpoint contract as a bare WSGI callable (stdlib json + redis-py only): the framework-free baseline.

Served with any WSGI server as ``raw_wsgi_app:app``.
"""
import json
import os
import time

import redis

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
PLAINTEXT = b"Hello, World!"
_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            return None
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


def _respond(start_response, status, content_type, body):
    start_response(status, [("Content-Type", content_type), ("Content-Length", str(len(body)))])
    return [body]


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
    return _respond(start_response, "404 Not Found", "text/plain", b"Not Found")


if BURN_S:
    _app = app

    def app(environ, start_response):
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass
        return _app(environ, start_response)
