"""The endpoint contract in aiohttp.  Redis through redis.asyncio, configured by SERVERBENCH_REDIS_URL;
MongoDB through pymongo's AsyncMongoClient (SERVERBENCH_MONGO_URL); the slow upstream through one
aiohttp.ClientSession (SERVERBENCH_UPSTREAM_URL).  Clients are created lazily inside the running
event loop, once per process, and closed by the app's cleanup context.

Served with ``python -m aiohttp.web -H HOST -P PORT aiohttp_app:init``.
"""
import asyncio
import json
import logging
import os
import time

import redis.asyncio as aioredis
from aiohttp import ClientSession, web

import async_clients
import injected_work
import sitedata

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
MONGO_DB = "serverbench"
EVENT_QUEUES = ("0", "1k", "64k")
MAX_SLEEP_MS = 10_000
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6
# Test-only knob: wait this many microseconds (without CPU) before answering: a latency-only regression.
DELAY_S = int(os.environ.get("SERVERBENCH_DELAY_US", "0")) / 1e6


@web.middleware
async def _burn(request, handler):
    end = time.thread_time() + BURN_S
    while time.thread_time() < end:
        pass
    if DELAY_S:
        await asyncio.sleep(DELAY_S)
    return await handler(request)


@web.middleware
async def _work(request, handler):
    response = await handler(request)
    response.headers[injected_work.HEADER] = injected_work.run()
    return response


@web.middleware
async def _leak(request, handler):
    injected_work.leak()
    return await handler(request)


async def plaintext(request):
    return web.Response(body=b"Hello, World!", content_type="text/plain")


async def json_endpoint(request):
    return web.json_response({"message": "Hello, World!"})


async def redis_endpoint(request):
    client = request.app[REDIS]
    if client is None:
        raise web.HTTPInternalServerError(text="SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
    async with client.pipeline(transaction=False) as pipe:
        counter, value = await pipe.incr(COUNTER_KEY).get(VALUE_KEY).execute()
    return web.json_response({"counter": counter, "value": value})


class _Clients:
    """Per-app holder of the clients made on first use (an app's own mapping is frozen once it runs)."""

    mongo = None
    http = None


# aiohttp >= 3.9 types app keys (a plain string key warns); 3.8 has only strings.
CLIENTS = web.AppKey("clients", _Clients) if hasattr(web, "AppKey") else "clients"
REDIS = web.AppKey("redis", object) if hasattr(web, "AppKey") else "redis"  # a redis.asyncio.Redis, or None


def _mongo_db(app):
    """The "serverbench" database, its client created on first use (inside the running loop)."""
    clients = app[CLIENTS]
    if clients.mongo is None:
        url = os.environ.get("SERVERBENCH_MONGO_URL")
        if not url:
            raise web.HTTPInternalServerError(text="SERVERBENCH_MONGO_URL is not set: this endpoint needs MongoDB")
        client_class = async_clients.mongo_client_class()
        if client_class is None:
            raise web.HTTPInternalServerError(
                text="no async MongoDB client: install pymongo >= 4.10 (AsyncMongoClient) or motor")
        clients.mongo = client_class(url)
    return clients.mongo[MONGO_DB]


async def _mongo_doc(request, doc_id):
    doc = await _mongo_db(request.app).docs.find_one({"_id": doc_id}, {"_id": 0})
    if doc is None:
        raise web.HTTPInternalServerError(text=f"no document {doc_id!r} in {MONGO_DB}.docs: is MongoDB seeded?")
    return web.json_response(doc)


async def mongo_small(request):
    return await _mongo_doc(request, "small")


async def mongo_big(request):
    return await _mongo_doc(request, "big")


async def events_endpoint(request):
    size = request.query.get("size")
    if size not in EVENT_QUEUES:
        raise web.HTTPBadRequest(text=f"size must be one of {', '.join(EVENT_QUEUES)}")
    rows = await _mongo_db(request.app).events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1).to_list(None)
    if not rows:
        return web.Response(status=204)
    return web.json_response(rows)


async def upstream_endpoint(request):
    url = os.environ.get("SERVERBENCH_UPSTREAM_URL")
    if not url:
        raise web.HTTPInternalServerError(text="SERVERBENCH_UPSTREAM_URL is not set: /upstream needs an upstream")
    clients = request.app[CLIENTS]
    if clients.http is None:
        clients.http = ClientSession()
    async with clients.http.get(url) as response:
        response.raise_for_status()
        body = json.loads(await response.read())
    return web.json_response({"upstream": body})


async def sleep_endpoint(request):
    try:
        ms = int(request.query.get("ms", ""))
    except ValueError:
        ms = -1
    if not 0 <= ms <= MAX_SLEEP_MS:
        raise web.HTTPBadRequest(text=f"ms must be an integer from 0 to {MAX_SLEEP_MS}")
    await asyncio.sleep(ms / 1000)
    return web.json_response({"slept_ms": ms})


async def site_search(request):
    try:
        page = int(request.query.get("page", "1"))
    except ValueError:
        page = 0
    if page < 1:
        raise web.HTTPBadRequest(text="page must be an integer >= 1")
    return web.Response(body=sitedata.search_page(request.query.get("q", ""), page), content_type="text/html")


async def site_books(request):
    return web.Response(body=sitedata.books_json(request.query.get("q", "")), content_type="application/json")


def _image(make):
    async def handler(request):
        body = make(int(request.match_info["n"]))
        if body is None:
            raise web.HTTPNotFound()
        return web.Response(body=body, content_type="image/jpeg")

    return handler


async def site_static(request):
    found = sitedata.static(request.match_info["name"])
    if found is None:
        raise web.HTTPNotFound()
    content_type, body = found
    return web.Response(body=body, content_type=content_type)


async def _redis_lifecycle(app):
    url = os.environ.get("SERVERBENCH_REDIS_URL")
    app[REDIS] = aioredis.Redis.from_url(url, decode_responses=True) if url else None
    yield
    if app[REDIS] is not None:
        await app[REDIS].aclose()


async def _clients_lifecycle(app):
    """The MongoDB client and the upstream session are made on first use; closed here at shutdown."""
    clients = app[CLIENTS] = _Clients()
    yield
    if clients.http is not None:
        await clients.http.close()
    if clients.mongo is not None:
        await async_clients.close_mongo(clients.mongo)


def init(argv=None):
    # ``python -m aiohttp.web`` configures logging at DEBUG: keep pymongo's per-command debug records out of it.
    logging.getLogger("pymongo").setLevel(logging.WARNING)
    # The burn middleware is installed whenever the knob is set, even to 0, so an A/B proof can give
    # both arms the same middleware and differ only in the burn itself.
    knobs = "SERVERBENCH_BURN_US" in os.environ or "SERVERBENCH_DELAY_US" in os.environ
    app = web.Application(middlewares=([_burn] if knobs else []) + ([_work] if injected_work.ITERS else [])
                          + ([_leak] if injected_work.LEAK_BYTES else []))
    app.cleanup_ctx.append(_redis_lifecycle)
    app.cleanup_ctx.append(_clients_lifecycle)
    app.router.add_get("/plaintext", plaintext)
    app.router.add_get("/json", json_endpoint)
    app.router.add_get("/redis", redis_endpoint)
    app.router.add_get("/mongo/small", mongo_small)
    app.router.add_get("/mongo/big", mongo_big)
    app.router.add_get("/events", events_endpoint)
    app.router.add_get("/upstream", upstream_endpoint)
    app.router.add_get("/sleep", sleep_endpoint)
    app.router.add_get("/site/search", site_search)
    app.router.add_get("/site/api/books", site_books)
    app.router.add_get(r"/site/covers/{n:\d+}.jpg", _image(sitedata.cover))
    app.router.add_get(r"/site/thumbs/{n:\d+}.jpg", _image(sitedata.thumb))
    app.router.add_get("/site/static/{name}", site_static)
    return app
