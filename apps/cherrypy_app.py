"""The endpoint contract in CherryPy, mounted as a plain WSGI app (CherryPy's engine and server never start).

Served with any WSGI server as ``cherrypy_app:app``.  Redis through redis-py, configured by SERVERBENCH_REDIS_URL.
"""
import os
import time

import cherrypy
import redis

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
_redis = None
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


def _burn():
    end = time.thread_time() + BURN_S
    while time.thread_time() < end:
        pass


def _client():
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            raise cherrypy.HTTPError(500, "SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
        _redis = redis.Redis.from_url(url, decode_responses=True)
    return _redis


class Root:
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


# "embedded": hosted by a foreign WSGI server (no autoreload, no checker, no screen logging, no signal handlers).
cherrypy.config.update({"environment": "embedded"})
config = {}
if BURN_S:
    cherrypy.tools.burn = cherrypy.Tool("on_start_resource", _burn)
    config = {"/": {"tools.burn.on": True}}
app = cherrypy.tree.mount(Root(), "", config)
