"""The endpoint contract in Tornado.  Redis through redis.asyncio, configured by SERVERBENCH_REDIS_URL.

Served with ``make_app().listen(port, address="127.0.0.1")`` inside ``asyncio.run`` (one process,
one event loop).  Tornado defaults to ``text/html`` and adds an ``Etag`` (a SHA-1 of every body);
both are overridden here so the responses match the other apps.  Per-request access logging is
off (``log_function`` is a no-op, and ``tornado.access`` is raised to WARNING as a second guard).
"""
import json
import logging
import os
import time

import redis.asyncio as aioredis
import tornado.web

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6

_TEXT = "text/plain"
_JSON = "application/json"
_redis = None


def _client():
    """The Redis client, created once on first use (inside the server's event loop)."""
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            return None
        _redis = aioredis.Redis.from_url(url, decode_responses=True)
    return _redis


class _Handler(tornado.web.RequestHandler):
    def compute_etag(self):
        return None  # no Etag / If-None-Match handling, like the other apps


if BURN_S:  # no hook at all unless the burn knob is set

    class _Base(_Handler):
        def prepare(self):
            end = time.thread_time() + BURN_S
            while time.thread_time() < end:
                pass

else:
    _Base = _Handler


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


class NotFoundHandler(_Handler):
    def prepare(self):  # every method, every unknown path
        self.set_status(404)
        self.set_header("Content-Type", _TEXT)
        self.finish("Not Found")


def _no_access_log(handler):
    pass


def make_app():
    logging.getLogger("tornado.access").setLevel(logging.WARNING)
    return tornado.web.Application(
        [(r"/plaintext", PlaintextHandler), (r"/json", JsonHandler), (r"/redis", RedisHandler)],
        default_handler_class=NotFoundHandler,
        log_function=_no_access_log,
    )
