"""The endpoint contract in Flask (WSGI).

Redis through redis-py (SERVERBENCH_REDIS_URL), MongoDB through pymongo (SERVERBENCH_MONGO_URL),
the slow upstream through http.client (SERVERBENCH_UPSTREAM_URL), and the book site of sitedata.
"""
import json
import os
import time

import redis
from flask import Flask, Response, abort, jsonify, request

import injected_work
import sitedata
import sync_clients

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
EVENT_QUEUES = ("0", "1k", "64k")

app = Flask(__name__)
app.json.sort_keys = False
_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


class MissingSetting(Exception):
    """An endpoint's backend is not configured: a 500 that names the variable."""


@app.errorhandler(MissingSetting)
def _missing_setting(exc):
    return Response(str(exc), status=500, content_type="text/plain")


@app.before_request
def _burn():
    if BURN_S:
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass


if injected_work.LEAK_BYTES:  # no hook at all unless the leak knob is set
    @app.before_request
    def _leak():
        injected_work.leak()


if injected_work.ITERS:  # no hook at all unless the work knob is set
    @app.after_request
    def _work(response):
        response.headers[injected_work.HEADER] = injected_work.run()
        return response


def _setting(name, needs):
    value = os.environ.get(name)
    if not value:
        raise MissingSetting(f"{name} is not set: {needs}")
    return value


def close_clients():
    """Close the clients made on first use (see sync_clients.close)."""
    global _redis
    sync_clients.close(_redis)
    _redis = None


def _client():
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(_setting("SERVERBENCH_REDIS_URL", "/redis needs a Redis server"),
                                      decode_responses=True)
    return _redis


def _db():
    return sync_clients.mongo_db(_setting("SERVERBENCH_MONGO_URL", "/mongo/* and /events need a MongoDB server"))


def _upstream_get():
    return sync_clients.upstream_get(_setting("SERVERBENCH_UPSTREAM_URL", "/upstream needs an upstream HTTP server"))


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


@app.route("/mongo/<any(small, big):doc_id>")
def mongo_doc(doc_id):
    doc = _db().docs.find_one({"_id": doc_id}, {"_id": 0})
    if doc is None:
        abort(404)
    return jsonify(doc)


@app.route("/events")
def events():
    size = request.args.get("size")
    if size not in EVENT_QUEUES:
        abort(400, description=f"size must be one of {', '.join(EVENT_QUEUES)}")
    found = list(_db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1))
    if not found:
        return "", 204
    return jsonify(found)


@app.route("/upstream")
def upstream():
    status, body = _upstream_get()
    if status != 200:
        abort(502, description=f"the upstream answered {status}")
    return jsonify(upstream=json.loads(body))


@app.route("/sleep")
def sleep():
    ms = request.args.get("ms", type=int)
    if ms is None or not 0 <= ms <= 10000:
        abort(400, description="ms must be an integer from 0 to 10000")
    time.sleep(ms / 1000)
    return jsonify(slept_ms=ms)


@app.route("/site/search")
def site_search():
    try:
        page = int(request.args.get("page", 1))
    except ValueError:
        page = 0
    if page < 1:
        abort(400, description="page must be an integer >= 1")
    return Response(sitedata.search_page(request.args.get("q", ""), page), mimetype="text/html")


@app.route("/site/api/books")
def site_api_books():
    return Response(sitedata.books_json(request.args.get("q", "")), mimetype="application/json")


@app.route("/site/covers/<int:n>.jpg")
def site_cover(n):
    data = sitedata.cover(n)
    if data is None:
        abort(404)
    return Response(data, mimetype="image/jpeg")


@app.route("/site/thumbs/<int:n>.jpg")
def site_thumb(n):
    data = sitedata.thumb(n)
    if data is None:
        abort(404)
    return Response(data, mimetype="image/jpeg")


@app.route("/site/static/<name>")
def site_static(name):
    found = sitedata.static(name)
    if found is None:
        abort(404)
    content_type, data = found
    return Response(data, content_type=content_type)
