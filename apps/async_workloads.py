"""Each workload's work for the asyncio apps (aiohttp, tornado, raw ASGI, Django ASGI), written once: the
Redis counter, the MongoDB documents and event queues, the upstream call and the sleep, with their clients
made on first use (inside the server's running event loop) and their errors.  Each app is a thin adapter:
its framework routes the request, hands the parameters to an :class:`AsyncWorkloads` method and shapes the
answer (its own response object and JSON); a refusal (a missing ``SERVERBENCH_*_URL``, a bad parameter, an
upstream error) is raised through the app's ``refuse``, so it becomes the framework's own HTTP error.

Redis through redis.asyncio (SERVERBENCH_REDIS_URL), MongoDB through pymongo's AsyncMongoClient (Motor on
an older pymongo; SERVERBENCH_MONGO_URL), the upstream through one aiohttp.ClientSession, or the app's own
client (tornado's AsyncHTTPClient) given as ``fetch`` (SERVERBENCH_UPSTREAM_URL).
"""

import asyncio
import json

import injected_work
import redis.asyncio as aioredis
from sync_workloads import (
    COUNTER_KEY,
    EVENT_QUEUES,
    MONGO_DB,
    VALUE_KEY,
    Refused,
    page_number,
    refused,
    setting,
    sleep_ms,
)

try:  # the default /upstream client; the other endpoints do without it
    import aiohttp
except ImportError:
    aiohttp = None

__all__ = ["AsyncWorkloads", "Refused", "close_mongo", "mongo_client_class"]


def mongo_client_class():
    """pymongo's native async client (pymongo >= 4.10); Motor's on an older pymongo, when Motor is installed."""
    try:
        from pymongo import AsyncMongoClient

        return AsyncMongoClient
    except ImportError:
        pass
    try:
        from motor.motor_asyncio import AsyncIOMotorClient

        return AsyncIOMotorClient
    except ImportError:
        return None


async def close_mongo(client):
    """Close a MongoDB client: a coroutine for pymongo's AsyncMongoClient, a plain call for Motor's."""
    closed = client.close()
    if asyncio.iscoroutine(closed):
        await closed


class AsyncWorkloads:
    """One app's workloads and their clients (one per app object: an app made again in another event loop
    makes its own).  ``refuse(status, text)`` raises the app framework's HTTP error; ``fetch(url)`` is a
    coroutine answering (status, body bytes), the app's own HTTP client (default: an aiohttp.ClientSession)."""

    def __init__(self, refuse=refused, fetch=None):
        self.refuse = refuse
        self._fetch = fetch or self._aiohttp_fetch
        self._redis = None
        self._redis_url = None
        self._mongo = None
        self._http = None

    async def redis(self):
        """/redis: INCR the counter and GET the seeded value in one pipeline (planted: on a connection of its
        own, SERVERBENCH_REDIS_CONNECT; then more GETs, SERVERBENCH_REDIS_EXTRA_GET)."""
        if self._redis is None:
            self._redis_url = setting("SERVERBENCH_REDIS_URL", "/redis needs a Redis server", self.refuse)
            self._redis = aioredis.Redis.from_url(self._redis_url, decode_responses=True)
        if injected_work.REDIS_CONNECT:
            async with aioredis.Redis.from_url(self._redis_url, decode_responses=True) as client:
                return await self._redis_work(client)  # closing the client closes its connection
        return await self._redis_work(self._redis)

    async def _redis_work(self, client):
        async with client.pipeline(transaction=False) as pipe:
            counter, value = await pipe.incr(COUNTER_KEY).get(VALUE_KEY).execute()
        for _ in range(injected_work.REDIS_EXTRA_GETS):
            await client.get(VALUE_KEY)
        return {"counter": counter, "value": value}

    def _db(self):
        if self._mongo is None:
            url = setting("SERVERBENCH_MONGO_URL", "/mongo/* and /events need a MongoDB server", self.refuse)
            client_class = mongo_client_class()
            if client_class is None:
                self.refuse(500, "no async MongoDB client: install pymongo >= 4.10 (AsyncMongoClient) or motor")
            self._mongo = client_class(url)
        return self._mongo[MONGO_DB]

    async def mongo_doc(self, doc_id):
        """/mongo/small and /mongo/big: the seeded document, without its _id."""
        doc = await self._db().docs.find_one({"_id": doc_id}, {"_id": 0})
        if doc is None:
            self.refuse(404, f"no document {doc_id!r} in {MONGO_DB}.docs: is MongoDB seeded?")
        return doc

    async def events(self, size):
        """/events?size=0|1k|64k: the queue's events in order; an empty list is a 204."""
        if size not in EVENT_QUEUES:
            self.refuse(400, f"size must be one of {', '.join(EVENT_QUEUES)}")
        return await self._db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1).to_list(None)

    async def upstream(self):
        """/upstream: the upstream's JSON, wrapped; an answer other than 200 is a 502."""
        url = setting("SERVERBENCH_UPSTREAM_URL", "/upstream needs an upstream HTTP server", self.refuse)
        status, body = await self._fetch(url)
        if status != 200:
            self.refuse(502, f"the upstream answered {status}")
        return {"upstream": json.loads(body)}

    async def _aiohttp_fetch(self, url):
        if self._http is None:
            if aiohttp is None:
                self.refuse(500, "aiohttp is not installed: /upstream needs its client")
            self._http = aiohttp.ClientSession()  # one connection pool per app
        async with self._http.get(url) as response:
            return response.status, await response.read()

    async def sleep(self, ms):
        """/sleep?ms=N (the query's text, or None): sleep N ms."""
        ms = sleep_ms(ms, self.refuse)
        await asyncio.sleep(ms / 1000)
        return {"slept_ms": ms}

    def page(self, page):
        return page_number(page, self.refuse)

    async def close(self):
        """Close the clients made on first use (the app's shutdown; the handler benchmarks)."""
        redis_client, mongo, http, self._redis, self._mongo, self._http = (
            self._redis,
            self._mongo,
            self._http,
            None,
            None,
            None,
        )
        if redis_client is not None:
            await redis_client.aclose()
        if http is not None:
            await http.close()
        if mongo is not None:
            await close_mongo(mongo)
