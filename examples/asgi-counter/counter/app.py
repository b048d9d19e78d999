"""A hit counter: POST /hits/{page} counts a hit in Redis, GET /hits/{page} reads the count.

The Redis URL comes from the environment (COUNTER_REDIS_URL), as in production.
"""
import os
from contextlib import asynccontextmanager

import redis.asyncio as redis
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route


@asynccontextmanager
async def lifespan(app):
    app.state.redis = redis.from_url(os.environ.get("COUNTER_REDIS_URL", "redis://127.0.0.1:6379/0"))
    yield
    await app.state.redis.aclose()


async def health(request):
    return PlainTextResponse("ok")


async def read(request):
    page = request.path_params["page"]
    hits = await request.app.state.redis.get(f"hits:{page}")
    return JSONResponse({"page": page, "hits": int(hits or 0)})


async def hit(request):
    page = request.path_params["page"]
    hits = await request.app.state.redis.incr(f"hits:{page}")
    return JSONResponse({"page": page, "hits": hits})


app = Starlette(
    routes=[
        Route("/health", health),
        Route("/hits/{page}", read, methods=["GET"]),
        Route("/hits/{page}", hit, methods=["POST"]),
    ],
    lifespan=lifespan,
)
