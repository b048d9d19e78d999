"""The endpoint contract in Bottle (WSGI).  Redis through redis-py, configured by SERVERBENCH_REDIS_URL.

Served with any WSGI server as ``bottle_app:app``.
"""
import os
import time

import bottle
import redis

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"

app = bottle.Bottle()
_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6

if BURN_S:
    @app.hook("before_request")
    def _burn():
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            bottle.abort(500, "SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


@app.get("/plaintext")
def plaintext():
    bottle.response.content_type = "text/plain"
    return b"Hello, World!"


@app.get("/json")
def json_endpoint():
    return {"message": "Hello, World!"}


@app.get("/redis")
def redis_endpoint():
    pipe = _client().pipeline(transaction=False)
    pipe.incr(COUNTER_KEY)
    pipe.get(VALUE_KEY)
    counter, value = pipe.execute()
    return {"counter": counter, "value": value}
