"""The endpoint contract in aiohttp.  The workloads' work (Redis, MongoDB, the upstream through one
aiohttp.ClientSession, the sleep) is async_workloads'; this module routes the requests to it and shapes
the answers the aiohttp way.  The clients are made on first use inside the running event loop, one set
per app, and closed by the app's cleanup context.  The book site is sitedata's.

Served with ``python -m aiohttp.web -H HOST -P PORT aiohttp_app:init``.
"""

import asyncio
import logging
import os

import async_workloads
import injected_work
import sitedata
from aiohttp import web

# A refusal of the workloads (a missing URL, a bad parameter, an upstream error) as aiohttp's own exception.
_HTTP_ERRORS = {
    400: web.HTTPBadRequest,
    404: web.HTTPNotFound,
    500: web.HTTPInternalServerError,
    502: web.HTTPBadGateway,
}


def _refuse(status, text):
    raise _HTTP_ERRORS[status](text=text)


@web.middleware
async def _per_request(request, handler):
    injected_work.per_request(sleep=False)
    if injected_work.DELAY_S:
        await asyncio.sleep(injected_work.DELAY_S)
    return await handler(request)


@web.middleware
async def _work(request, handler):
    response = await handler(request)
    response.headers[injected_work.HEADER] = injected_work.run()
    return response


async def plaintext(request):
    return web.Response(body=b"Hello, World!", content_type="text/plain")


async def json_endpoint(request):
    return web.json_response({"message": "Hello, World!"})


# aiohttp >= 3.9 types app keys (a plain string key warns); 3.8 has only strings.
WORK = (
    web.AppKey("work", async_workloads.AsyncWorkloads) if hasattr(web, "AppKey") else "work"
)  # the app's workloads and their clients, made on first use


async def redis_endpoint(request):
    return web.json_response(await request.app[WORK].redis())


async def mongo_small(request):
    return web.json_response(await request.app[WORK].mongo_doc("small"))


async def mongo_big(request):
    return web.json_response(await request.app[WORK].mongo_doc("big"))


async def events_endpoint(request):
    rows = await request.app[WORK].events(request.query.get("size"))
    if not rows:
        return web.Response(status=204)
    return web.json_response(rows)


async def upstream_endpoint(request):
    return web.json_response(await request.app[WORK].upstream())


async def sleep_endpoint(request):
    return web.json_response(await request.app[WORK].sleep(request.query.get("ms")))


async def site_search(request):
    page = request.app[WORK].page(request.query.get("page"))
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


async def _clients_lifecycle(app):
    """The workloads' clients are made on first use; closed here at shutdown."""
    work = app[WORK] = async_workloads.AsyncWorkloads(refuse=_refuse)
    yield
    await work.close()


def init(argv=None):
    # ``python -m aiohttp.web`` configures logging at DEBUG: keep pymongo's per-command debug records out of it.
    logging.getLogger("pymongo").setLevel(logging.WARNING)
    # The burn middleware is installed whenever the knob is set, even to 0, so an A/B proof can give
    # both arms the same middleware and differ only in the burn itself.
    knobs = injected_work.BURN_VAR in os.environ or injected_work.DELAY_VAR in os.environ or injected_work.PER_REQUEST
    app = web.Application(middlewares=([_per_request] if knobs else []) + ([_work] if injected_work.ITERS else []))
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
