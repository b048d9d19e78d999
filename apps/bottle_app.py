"""The endpoint contract in Bottle (WSGI).

Redis through redis-py (SERVERBENCH_REDIS_URL), MongoDB through pymongo (SERVERBENCH_MONGO_URL),
the slow upstream through http.client (SERVERBENCH_UPSTREAM_URL), and the book site of sitedata.
Served with any WSGI server as ``bottle_app:app``.
"""
import json
import os
import time

import bottle
import redis

import injected_work
import sitedata
import sync_clients

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
EVENT_QUEUES = ("0", "1k", "64k")

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

if injected_work.ITERS:  # no hook at all unless the work knob is set
    @app.hook("after_request")
    def _work():
        bottle.response.set_header(injected_work.HEADER, injected_work.run())


def _setting(name, needs):
    value = os.environ.get(name)
    if not value:
        bottle.abort(500, f"{name} is not set: {needs}")
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
            bottle.abort(500, "SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


def _db():
    return sync_clients.mongo_db(_setting("SERVERBENCH_MONGO_URL", "/mongo/* and /events need a MongoDB server"))


def _upstream_get():
    return sync_clients.upstream_get(_setting("SERVERBENCH_UPSTREAM_URL", "/upstream needs an upstream HTTP server"))


def _json_list(items):
    """Bottle turns only dicts into JSON by itself: a list is dumped by hand."""
    bottle.response.content_type = "application/json"
    return json.dumps(items)


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


@app.get("/mongo/<doc_id:re:small|big>")
def mongo_doc(doc_id):
    doc = _db().docs.find_one({"_id": doc_id}, {"_id": 0})
    if doc is None:
        bottle.abort(404, f"no document {doc_id!r}")
    return doc


@app.get("/events")
def events():
    size = bottle.request.query.size
    if size not in EVENT_QUEUES:
        bottle.abort(400, f"size must be one of {', '.join(EVENT_QUEUES)}")
    found = list(_db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1))
    if not found:
        return bottle.HTTPResponse(status=204)
    return _json_list(found)


@app.get("/upstream")
def upstream():
    status, body = _upstream_get()
    if status != 200:
        bottle.abort(502, f"the upstream answered {status}")
    return {"upstream": json.loads(body)}


@app.get("/sleep")
def sleep():
    try:
        ms = int(bottle.request.query.ms)
    except ValueError:
        ms = -1
    if not 0 <= ms <= 10000:
        bottle.abort(400, "ms must be an integer from 0 to 10000")
    time.sleep(ms / 1000)
    return {"slept_ms": ms}


@app.get("/site/search")
def site_search():
    try:
        page = int(bottle.request.query.page or 1)
    except ValueError:
        page = 0
    if page < 1:
        bottle.abort(400, "page must be an integer >= 1")
    bottle.response.content_type = "text/html; charset=utf-8"
    return sitedata.search_page(bottle.request.query.q, page)


@app.get("/site/api/books")
def site_api_books():
    bottle.response.content_type = "application/json"
    return sitedata.books_json(bottle.request.query.q)


@app.get("/site/covers/<n:int>.jpg")
def site_cover(n):
    data = sitedata.cover(n)
    if data is None:
        bottle.abort(404, "no such cover")
    bottle.response.content_type = "image/jpeg"
    return data


@app.get("/site/thumbs/<n:int>.jpg")
def site_thumb(n):
    data = sitedata.thumb(n)
    if data is None:
        bottle.abort(404, "no such thumbnail")
    bottle.response.content_type = "image/jpeg"
    return data


@app.get("/site/static/<name>")
def site_static(name):
    found = sitedata.static(name)
    if found is None:
        bottle.abort(404, "no such file")
    bottle.response.content_type, data = found
    return data
