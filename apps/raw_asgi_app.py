"""The endpoint contract as a bare ASGI callable: no framework, the fastest-possible ASGI baseline.

stdlib json for bodies (serialized per request, like every other app), redis.asyncio for /redis,
configured by SERVERBENCH_REDIS_URL.  Handles the ``lifespan`` scope (startup/shutdown complete;
the Redis client is closed at shutdown).

Served with ``python -m uvicorn --host HOST --port PORT --no-access-log --app-dir apps raw_asgi_app:app``.
"""
import json
import os
import time

import redis.asyncio as aioredis

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
# Test-only knob: burn this many microseconds of CPU per request (proves the A/B verdict detects a known cost).
BURN_S = int(os.environ.get("SERVERBENCH_BURN_US", "0")) / 1e6

_HELLO = b"Hello, World!"
_TEXT = b"text/plain"
_JSON = b"application/json"
_redis = None


def _start(status, content_type, body):
    return {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())],
    }


async def _send(send, status, content_type, body):
    await send(_start(status, content_type, body))
    await send({"type": "http.response.body", "body": body})


def _client():
    """The Redis client, created once on first use (inside the server's event loop)."""
    global _redis
    if _redis is None:
        url = os.environ.get("SERVERBENCH_REDIS_URL")
        if not url:
            return None
        _redis = aioredis.Redis.from_url(url, decode_responses=True)
    return _redis


async def _plaintext(send):
    await _send(send, 200, _TEXT, _HELLO)


async def _json(send):
    await _send(send, 200, _JSON, json.dumps({"message": "Hello, World!"}).encode())


async def _redis_endpoint(send):
    client = _client()
    if client is None:
        await _send(send, 500, _TEXT, b"SERVERBENCH_REDIS_URL is not set: /redis needs a Redis server")
        return
    async with client.pipeline(transaction=False) as pipe:
        counter, value = await pipe.incr(COUNTER_KEY).get(VALUE_KEY).execute()
    await _send(send, 200, _JSON, json.dumps({"counter": counter, "value": value}).encode())


_ROUTES = {"/plaintext": _plaintext, "/json": _json, "/redis": _redis_endpoint}


async def _lifespan(receive, send):
    global _redis
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if _redis is not None:
                await _redis.aclose()
                _redis = None
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _app(scope, receive, send):
    if scope["type"] == "http":
        handler = _ROUTES.get(scope["path"])
        if handler is None:
            await _send(send, 404, _TEXT, b"Not Found")
        elif scope["method"] not in ("GET", "HEAD"):
            await send({"type": "http.response.start", "status": 405,
                        "headers": [(b"content-type", _TEXT), (b"content-length", b"18"), (b"allow", b"GET, HEAD")]})
            await send({"type": "http.response.body", "body": b"Method Not Allowed"})
        else:
            await handler(send)
    elif scope["type"] == "lifespan":
        await _lifespan(receive, send)
    else:  # e.g. websocket: not part of the contract
        raise RuntimeError(f"unsupported ASGI scope type {scope['type']!r}")


async def _burning_app(scope, receive, send):
    if scope["type"] == "http":
        end = time.thread_time() + BURN_S
        while time.thread_time() < end:
            pass
    await _app(scope, receive, send)


# No hook at all unless the burn knob is set.
app = _burning_app if BURN_S else _app
