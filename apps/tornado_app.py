"""The endpoint contract in Tornado.  The workloads' work (Redis, MongoDB, the upstream, the sleep) is
async_workloads'; this module routes the requests to it and shapes the answers the Tornado way, and
gives it Tornado's AsyncHTTPClient for the upstream (one per IOLoop, i.e. one per process).

Served with ``make_app().listen(port, address="127.0.0.1")`` inside ``asyncio.run`` (one process,
one event loop).  Tornado defaults to ``text/html`` and adds an ``Etag`` (a SHA-1 of every body);
both are overridden here so the responses match the other apps.  Per-request access logging is
off (``log_function`` is a no-op, and ``tornado.access`` is raised to WARNING as a second guard).
"""

import json
import logging

import async_workloads
import injected_work
import sitedata
import tornado.web
from tornado.httpclient import AsyncHTTPClient

# Simultaneous upstream requests (Tornado's default is 10, the rest queue): as many as aiohttp's connector.
UPSTREAM_MAX_CLIENTS = 100

_TEXT = "text/plain"
_JSON = "application/json"


async def _fetch(url):
    """The upstream through the IOLoop's shared AsyncHTTPClient: (status, body)."""
    response = await AsyncHTTPClient().fetch(url, raise_error=False)
    return response.code, response.body


# The process's workloads (one IOLoop per process); a refusal raises async_workloads.Refused, which
# write_error answers with its status and text.
work = async_workloads.AsyncWorkloads(fetch=_fetch)


class _Handler(tornado.web.RequestHandler):
    def compute_etag(self):
        return None  # no Etag / If-None-Match handling, like the other apps

    def _answer(self, status, content_type, body):
        self.set_status(status)
        self.set_header("Content-Type", content_type)
        self.finish(body)

    def _json(self, obj):
        self._answer(200, _JSON, json.dumps(obj))

    def _argument(self, name):
        return self.get_query_argument(name, None, strip=False)

    def log_exception(self, typ, value, tb):
        if typ is not async_workloads.Refused:
            super().log_exception(typ, value, tb)

    def write_error(self, status_code, **kwargs):
        exc = kwargs.get("exc_info", (None, None))[1]
        if isinstance(exc, async_workloads.Refused):
            self._answer(exc.status, _TEXT, exc.text)
        else:
            super().write_error(status_code, **kwargs)


if injected_work.PER_REQUEST:  # the burn and leak knobs; no hook at all unless one is set

    class _Base(_Handler):
        def prepare(self):
            injected_work.per_request()

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
        self._json(await work.redis())


class MongoDocHandler(_Base):
    def initialize(self, doc_id):
        self.doc_id = doc_id

    async def get(self):
        self._json(await work.mongo_doc(self.doc_id))


class EventsHandler(_Base):
    async def get(self):
        rows = await work.events(self._argument("size"))
        if not rows:
            self.set_status(204)  # Tornado drops the Content-Type of a 204
            self.finish()
            return
        self._json(rows)


class UpstreamHandler(_Base):
    async def get(self):
        self._json(await work.upstream())


class SleepHandler(_Base):
    async def get(self):
        self._json(await work.sleep(self._argument("ms")))


class SiteSearchHandler(_Base):
    def get(self):
        page = work.page(self._argument("page"))
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
    await work.close()
    AsyncHTTPClient().close()  # the loop's shared upstream client


def _no_access_log(handler):
    pass


def make_app():
    logging.getLogger("tornado.access").setLevel(logging.WARNING)
    AsyncHTTPClient.configure(None, max_clients=UPSTREAM_MAX_CLIENTS)
    return tornado.web.Application(
        [
            (r"/plaintext", PlaintextHandler),
            (r"/json", JsonHandler),
            (r"/redis", RedisHandler),
            (r"/mongo/small", MongoDocHandler, {"doc_id": "small"}),
            (r"/mongo/big", MongoDocHandler, {"doc_id": "big"}),
            (r"/events", EventsHandler),
            (r"/upstream", UpstreamHandler),
            (r"/sleep", SleepHandler),
            (r"/site/search", SiteSearchHandler),
            (r"/site/api/books", SiteBooksHandler),
            (r"/site/covers/([0-9]+)\.jpg", SiteImageHandler, {"make": sitedata.cover}),
            (r"/site/thumbs/([0-9]+)\.jpg", SiteImageHandler, {"make": sitedata.thumb}),
            (r"/site/static/([^/]+)", SiteStaticHandler),
        ],
        default_handler_class=NotFoundHandler,
        log_function=_no_access_log,
    )
