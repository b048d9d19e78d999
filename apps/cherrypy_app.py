"""The endpoint contract in CherryPy, mounted as a plain WSGI app (CherryPy's engine and server never start).

Served with any WSGI server as ``cherrypy_app:app``.  Redis through redis-py (SERVERBENCH_REDIS_URL),
MongoDB through pymongo (SERVERBENCH_MONGO_URL), the slow upstream through http.client
(SERVERBENCH_UPSTREAM_URL), and the book site of sitedata.
"""
import json
import os
import time

import cherrypy
import redis

import injected_work
import sitedata
import sync_clients

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
EVENT_QUEUES = ("0", "1k", "64k")
_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


def _burn():
    end = time.thread_time() + BURN_S
    while time.thread_time() < end:
        pass


def _work():
    cherrypy.serving.response.headers[injected_work.HEADER] = injected_work.run()


def _setting(name, needs):
    value = os.environ.get(name)
    if not value:
        raise cherrypy.HTTPError(500, f"{name} is not set: {needs}")
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
            raise cherrypy.HTTPError(500, "SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


def _db():
    return sync_clients.mongo_db(_setting("SERVERBENCH_MONGO_URL", "/mongo/* and /events need a MongoDB server"))


def _upstream_get():
    return sync_clients.upstream_get(_setting("SERVERBENCH_UPSTREAM_URL", "/upstream needs an upstream HTTP server"))


def _book_number(filename):
    """The book of "<n>.jpg", else 404."""
    stem, dot, ext = filename.rpartition(".")
    try:
        if dot and ext == "jpg":
            return int(stem)
    except ValueError:
        pass
    raise cherrypy.NotFound()


def _image(data):
    if data is None:
        raise cherrypy.NotFound()
    cherrypy.response.headers["Content-Type"] = "image/jpeg"
    return data


class Api:
    @cherrypy.expose
    def books(self, q=""):
        cherrypy.response.headers["Content-Type"] = "application/json"
        return sitedata.books_json(q)


class Site:
    api = Api()

    @cherrypy.expose
    def search(self, q="", page="1"):
        try:
            page = int(page)
        except ValueError:
            page = 0
        if page < 1:
            raise cherrypy.HTTPError(400, "page must be an integer >= 1")
        cherrypy.response.headers["Content-Type"] = "text/html"
        return sitedata.search_page(q, page)

    @cherrypy.expose
    def covers(self, filename):
        return _image(sitedata.cover(_book_number(filename)))

    @cherrypy.expose
    def thumbs(self, filename):
        return _image(sitedata.thumb(_book_number(filename)))

    @cherrypy.expose
    def static(self, name):
        found = sitedata.static(name)
        if found is None:
            raise cherrypy.NotFound()
        cherrypy.response.headers["Content-Type"], data = found
        return data


class Root:
    site = Site()

    @cherrypy.expose
    def plaintext(self):
        cherrypy.response.headers["Content-Type"] = "text/plain"
        return b"Hello, World!"

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def json(self):
        return {"message": "Hello, World!"}

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def redis(self):
        pipe = _client().pipeline(transaction=False)
        pipe.incr(COUNTER_KEY)
        pipe.get(VALUE_KEY)
        counter, value = pipe.execute()
        return {"counter": counter, "value": value}

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def mongo(self, doc_id):
        if doc_id not in ("small", "big"):
            raise cherrypy.NotFound()
        doc = _db().docs.find_one({"_id": doc_id}, {"_id": 0})
        if doc is None:
            raise cherrypy.NotFound()
        return doc

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def events(self, size=None):
        if size not in EVENT_QUEUES:
            raise cherrypy.HTTPError(400, f"size must be one of {', '.join(EVENT_QUEUES)}")
        found = list(_db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1))
        if not found:
            cherrypy.response.status = 204  # CherryPy drops the body of a 204
            return None
        return found

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def upstream(self):
        status, body = _upstream_get()
        if status != 200:
            raise cherrypy.HTTPError(502, f"the upstream answered {status}")
        return {"upstream": json.loads(body)}

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def sleep(self, ms=None):
        try:
            ms = int(ms)
        except (TypeError, ValueError):
            ms = -1
        if not 0 <= ms <= 10000:
            raise cherrypy.HTTPError(400, "ms must be an integer from 0 to 10000")
        time.sleep(ms / 1000)
        return {"slept_ms": ms}


# "embedded": hosted by a foreign WSGI server (no autoreload, no checker, no screen logging, no signal handlers).
cherrypy.config.update({"environment": "embedded"})
config = {}
if BURN_S:
    cherrypy.tools.burn = cherrypy.Tool("on_start_resource", _burn)
    config = {"/": {"tools.burn.on": True}}
if injected_work.ITERS:  # no hook at all unless the work knob is set
    cherrypy.tools.work = cherrypy.Tool("before_finalize", _work)
    config.setdefault("/", {})["tools.work.on"] = True
app = cherrypy.tree.mount(Root(), "", config)
