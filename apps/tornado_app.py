"""The endpoint contract in Tornado.  Redis through redis.asyncio, configured by SERVERBENCH_REDIS_URL;
MongoDB through pymongo's AsyncMongoClient (SERVERBENCH_MONGO_URL); the slow upstream through
Tornado's AsyncHTTPClient (SERVERBENCH_UPSTREAM_URL), one per IOLoop, i.e. one per process.

Served with ``make_app().listen(port, address="127.0.0.1")`` inside ``asyncio.run`` (one process,
one event loop).  Tornado defaults to ``text/html`` and adds an ``Etag`` (a SHA-1 of every body);
both are overridden here so the responses match the other apps.  Per-request access logging is
off (``log_function`` is a no-op, and ``tornado.access`` is raised to WARNING as a second guard).
"""
import asyncio
import json
import logging
import os
import time

import redis.asyncio as aioredis
import tornado.web
from tornado.httpclient import AsyncHTTPClient

import async_clients
import injected_work
import sitedata

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6

MONGO_DB = "serverbench"
EVENT_QUEUES = ("0", "1k", "64k")
MAX_SLEEP_MS = 10_000
# Simultaneous upstream requests (Tornado's default is 10, the rest queue): as many as aiohttp's connector.
UPSTREAM_MAX_CLIENTS = 100

_TEXT = "text/plain"
_JSON = "application/json"
_redis = None
_mongo = None


def _client():
    """The Redis client, created once on first use (inside the server's event loop)."""
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            return None
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


class _Handler(tornado.web.RequestHandler):
    def compute_etag(self):
        return None  # no Etag / If-None-Match handling, like the other apps

    def _answer(self, status, content_type, body):
        self.set_status(status)
        self.set_header("Content-Type", content_type)
        self.finish(body)

    def _json(self, obj):
        self._answer(200, _JSON, json.dumps(obj))

    def _int_argument(self, name, default):
        """An integer query argument, None when it is not one."""
        try:
            return int(self.get_query_argument(name, default, strip=False))
        except ValueError:
            return None

    def log_exception(self, typ, value, tb):
        if typ is not _Unavailable:
            super().log_exception(typ, value, tb)

    def write_error(self, status_code, **kwargs):
        exc = kwargs.get("exc_info", (None, None))[1]
        if isinstance(exc, _Unavailable):
            self._answer(500, _TEXT, str(exc))
        else:
            super().write_error(status_code, **kwargs)


if BURN_S:  # no hook at all unless the burn knob is set

    class _Base(_Handler):
        def prepare(self):
            end = time.thread_time() + BURN_S
            while time.thread_time() < end:
                pass

else:
    _Base = _Handler

if injected_work.ITERS:  # no hook at all unless the work knob is set

    class _Worked(_Base):
        def prepare(self):
            super().prepare()
            self.set_header(injected_work.HEADER, injected_work.run())

    _Base = _Worked


class PlaintextHandler(_Base):
    def get(self):
        self.set_header("Content-Type", _TEXT)
        self.finish(b"Hello, World!")


class JsonHandler(_Base):
    def get(self):
        self.set_header("Content-Type", _JSON)
        self.finish(json.dumps({"message": "Hello, World!"}))


class RedisHandler(_Base):
    async def get(self):
        client = _client()
        if client is None:
            self.set_status(500)
            self.set_header("Content-Type", _TEXT)
            self.finish("SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
            return
        async with client.pipeline(transaction=False) as pipe:
            counter, value = await pipe.incr(COUNTER_KEY).get(VALUE_KEY).execute()
        self.set_header("Content-Type", _JSON)
        self.finish(json.dumps({"counter": counter, "value": value}))


class MongoDocHandler(_Base):
    def initialize(self, doc_id):
        self.doc_id = doc_id

    async def get(self):
        doc = await _mongo_db().docs.find_one({"_id": self.doc_id}, {"_id": 0})
        if doc is None:
            self._answer(500, _TEXT, f"no document {self.doc_id!r} in {MONGO_DB}.docs: is MongoDB seeded?")
            return
        self._json(doc)


class EventsHandler(_Base):
    async def get(self):
        size = self.get_query_argument("size", None, strip=False)
        if size not in EVENT_QUEUES:
            self._answer(400, _TEXT, f"size must be one of {', '.join(EVENT_QUEUES)}")
            return
        rows = await _mongo_db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1).to_list(None)
        if not rows:
            self.set_status(204)  # Tornado drops the Content-Type of a 204
            self.finish()
            return
        self._json(rows)


class UpstreamHandler(_Base):
    async def get(self):
        url = os.environ.get("SERVERBENCH_UPSTREAM_URL")
        if not url:
            raise _Unavailable("SERVERBENCH_UPSTREAM_URL is not set: /upstream needs an upstream")
        response = await AsyncHTTPClient().fetch(url)  # the IOLoop's shared client; raises on a non-2xx
        self._json({"upstream": json.loads(response.body)})


class SleepHandler(_Base):
    async def get(self):
        ms = self._int_argument("ms", "")
        if ms is None or not 0 <= ms <= MAX_SLEEP_MS:
            self._answer(400, _TEXT, f"ms must be an integer from 0 to {MAX_SLEEP_MS}")
            return
        await asyncio.sleep(ms / 1000)
        self._json({"slept_ms": ms})


class SiteSearchHandler(_Base):
    def get(self):
        page = self._int_argument("page", "1")
        if page is None or page < 1:
            self._answer(400, _TEXT, "page must be an integer >= 1")
            return
        self._answer(200, "text/html", sitedata.search_page(self.get_query_argument("q", "", strip=False), page))


class SiteBooksHandler(_Base):
    def get(self):
        self._answer(200, _JSON, sitedata.books_json(self.get_query_argument("q", "", strip=False)))


class SiteImageHandler(_Base):
    def initialize(self, make):
        self.make = make

    def get(self, n):
        body = self.make(int(n))
        if body is None:
            self._answer(404, _TEXT, "Not Found")
            return
        self._answer(200, "image/jpeg", body)


class SiteStaticHandler(_Base):
    def get(self, name):
        found = sitedata.static(name)
        if found is None:
            self._answer(404, _TEXT, "Not Found")
            return
        content_type, body = found
        self._answer(200, content_type, body)


class NotFoundHandler(_Handler):
    def prepare(self):  # every method, every unknown path
        self.set_status(404)
        self.set_header("Content-Type", _TEXT)
        self.finish("Not Found")


async def close_clients():
    """Close the clients made on first use.  A Tornado server's process just exits with them; a process that
    outlives the app (the in-process handler benchmarks) calls this on the app's loop."""
    global _redis, _mongo
    if _redis is not None:
        await _redis.aclose()
        _redis = None
    if _mongo is not None:
        await async_clients.close_mongo(_mongo)
        _mongo = None
    AsyncHTTPClient().close()  # the loop's shared upstream client


def _no_access_log(handler):
    pass


def make_app():
    logging.getLogger("tornado.access").setLevel(logging.WARNING)
    AsyncHTTPClient.configure(None, max_clients=UPSTREAM_MAX_CLIENTS)
    return tornado.web.Application(
        [(r"/plaintext", PlaintextHandler), (r"/json", JsonHandler), (r"/redis", RedisHandler),
         (r"/mongo/small", MongoDocHandler, {"doc_id": "small"}),
         (r"/mongo/big", MongoDocHandler, {"doc_id": "big"}),
         (r"/events", EventsHandler),
         (r"/upstream", UpstreamHandler),
         (r"/sleep", SleepHandler),
         (r"/site/search", SiteSearchHandler),
         (r"/site/api/books", SiteBooksHandler),
         (r"/site/covers/([0-9]+)\.jpg", SiteImageHandler, {"make": sitedata.cover}),
         (r"/site/thumbs/([0-9]+)\.jpg", SiteImageHandler, {"make": sitedata.thumb}),
         (r"/site/static/([^/]+)", SiteStaticHandler)],
        default_handler_class=NotFoundHandler,
        log_function=_no_access_log,
    )
