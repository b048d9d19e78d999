"""The endpoint contract in Flask (WSGI).  Redis through redis-py, configured by SERVERBENCH_REDIS_URL."""
import os
import time

import redis
from flask import Flask, Response, jsonify

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"

app = Flask(__name__)
app.json.sort_keys = False
_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


@app.before_request
def _burn():
    if BURN_S:
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            raise RuntimeError("SERVERBENCH_REDIS_URL is not set: the /redis endpoint needs a Redis server")
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


@app.route("/plaintext")
def plaintext():
    return Response(b"Hello, World!", content_type="text/plain")


@app.route("/json")
def json_endpoint():
    return jsonify(message="Hello, World!")


@app.route("/redis")
def redis_endpoint():
    client = _client()
    pipe = client.pipeline(transaction=False)
    pipe.incr(COUNTER_KEY)
    pipe.get(VALUE_KEY)
    counter, value = pipe.execute()
    return jsonify(counter=counter, value=value)
