"""The endpoint contract in aiohttp.  Redis through redis.asyncio, configured by SERVERBENCH_REDIS_URL.

Served with ``python -m aiohttp.web -H HOST -P PORT aiohttp_app:init``.
"""
import os
import time

import redis.asyncio as aioredis
from aiohttp import web

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6


@web.middleware
async def _burn(request, handler):
    end = time.thread_time() + BURN_S
    while time.thread_time() < end:
        pass
    return await handler(request)


async def plaintext(request):
    return web.Response(body=b"Hello, World!", content_type="text/plain")


async def json_endpoint(request):
    return web.json_response({"message": "Hello, World!"})


async def redis_endpoint(request):
    client = request.app["redis"]
    if client is None:
        raise web.HTTPInternalServerError(text="SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
    async with client.pipeline(transaction=False) as pipe:
        counter, value = await pipe.incr(COUNTER_KEY).get(VALUE_KEY).execute()
    return web.json_response({"counter": counter, "value": value})


async def _redis_lifecycle(app):
    url = os.environ.get("SERVERBENCH_REDIS_URL")
    app["redis"] = aioredis.Redis.from_url(url, decode_responses=True) if url else None
    yield
    if app["redis"] is not None:
        await app["redis"].aclose()


def init(argv=None):
    app = web.Application(middlewares=[_burn] if BURN_S else [])
    app.cleanup_ctx.append(_redis_lifecycle)
    app.router.add_get("/plaintext", plaintext)
    app.router.add_get("/json", json_endpoint)
    app.router.add_get("/redis", redis_endpoint)
    return app
