"""In-process callers: one request to a reference app with no socket and no server, handed over the way its
interface takes a request (a WSGI environ, an ASGI scope with receive/send, aiohttp's and Tornado's own request
objects) and answered as (status, headers, body).

What a call costs is the app's and its framework's share of a request: routing, the handler, building the
response.  Reading the socket, parsing HTTP and writing the response bytes are the server's share and are not
here.  The async callers run each request as one task on their own event loop (the way a server runs it), so
their calls include one task's scheduling, which ``floor()`` measures on its own.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import sys
import warnings
import wsgiref.util
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Union

from multidict import CIMultiDict, CIMultiDictProxy

from serverbench.catalog.apps import App

HOST = "127.0.0.1"  # in every app's ALLOWED_HOSTS (Django) and what a real client on loopback sends


@dataclass(frozen=True)
class Answer:
    """A response as the app produced it."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class WsgiCaller:
    """Calls a WSGI app with an environ from ``wsgiref.util.setup_testing_defaults``."""

    def __init__(self, app: Callable, close_clients: Callable | None = None):
        self.app = app
        self._environs: dict[str, dict] = {}
        self._close_clients = close_clients

    def _environ(self, target: str) -> dict:
        template = self._environs.get(target)
        if template is None:
            path, _, query = target.partition("?")
            template = {
                "REQUEST_METHOD": "GET",
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "HTTP_HOST": HOST,
                "SERVER_NAME": HOST,
                "SERVER_PORT": "80",
                "REMOTE_ADDR": HOST,
            }
            wsgiref.util.setup_testing_defaults(template)
            self._environs[target] = template
        # A fresh environ and input per call: frameworks cache their request objects in the environ.
        return {**template, "wsgi.input": io.BytesIO(b"")}

    def get(self, target: str) -> Answer:
        started: list = []

        def start_response(status, headers, exc_info=None):
            started[:] = [status, headers]
            return chunks.append

        chunks: list[bytes] = []
        result = self.app(self._environ(target), start_response)
        try:
            chunks.extend(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        status, headers = started
        return Answer(int(status.split(None, 1)[0]), dict(headers), b"".join(chunks))

    def floor(self) -> None:
        """Nothing: a WSGI call is a plain function call."""

    def close(self) -> None:
        if self._close_clients is not None:
            self._close_clients()


class _AsyncCaller:
    """Runs each request as one task on a loop of its own (the app's clients bind to it on first use).

    ``close_clients``: the app module's coroutine that closes those clients, for an app without a lifespan."""

    def __init__(self, close_clients: Callable | None = None):
        self.loop = asyncio.new_event_loop()
        self._close_clients = close_clients

    def get(self, target: str) -> Answer:
        return self.loop.run_until_complete(self._call(target))

    def floor(self) -> None:
        """One empty task on the same loop: the scheduling share of every ``get``."""
        self.loop.run_until_complete(_nothing())

    async def _call(self, target: str) -> Answer:
        raise NotImplementedError

    def close(self) -> None:
        """Shut the app down, then the loop, as ``asyncio.run`` does: leftover tasks cancelled first."""
        self.loop.run_until_complete(self._shutdown())
        if self._close_clients is not None:
            self.loop.run_until_complete(self._close_clients())
        leftover = asyncio.all_tasks(self.loop)
        for task in leftover:
            task.cancel()
        if leftover:
            self.loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()

    async def _shutdown(self) -> None:
        """The app's own shutdown (its lifespan or cleanup), when it has one."""


async def _nothing() -> None:
    pass


class AsgiCaller(_AsyncCaller):
    """Calls an ASGI app with a prepared scope; ``lifespan`` runs its startup and shutdown around the calls."""

    def __init__(self, app: Callable, close_clients: Callable | None = None):
        super().__init__(close_clients)
        self.app = app
        self._lifespan = _Lifespan(app)
        if not self.loop.run_until_complete(self._lifespan.start()):
            self._lifespan = None

    async def _call(self, target: str) -> Answer:
        path, _, query = target.partition("?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"host", HOST.encode())],
            "client": (HOST, 50000),
            "server": (HOST, 80),
        }
        done = asyncio.Event()
        requested = False
        start: dict = {}
        chunks: list[bytes] = []

        async def receive():
            nonlocal requested
            if not requested:
                requested = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await done.wait()  # a client that stays connected until the response is complete
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    done.set()

        await self.app(scope, receive, send)
        done.set()
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in start.get("headers", ())}
        return Answer(start["status"], headers, b"".join(chunks))

    async def _shutdown(self) -> None:
        if self._lifespan is not None:
            await self._lifespan.shutdown()


class _Lifespan:
    """The ASGI lifespan protocol: one long-running app call that is told to start up and shut down.

    An app that raises on the lifespan scope (Django's) has none, as uvicorn's ``--lifespan auto`` decides."""

    def __init__(self, app: Callable):
        self._inbox: asyncio.Queue = asyncio.Queue()
        self._outbox: asyncio.Queue = asyncio.Queue()
        self._app = app

    async def start(self) -> bool:
        """Start the app up; False when it does not speak the lifespan protocol."""
        self._task = asyncio.ensure_future(
            self._app({"type": "lifespan", "asgi": {"version": "3.0"}}, self._inbox.get, self._outbox.put)
        )
        await self._inbox.put({"type": "lifespan.startup"})
        answer = asyncio.ensure_future(self._outbox.get())
        await asyncio.wait({answer, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if not answer.done():
            answer.cancel()
            self._task.exception()  # retrieved: the app refused the scope
            return False
        self._check(answer.result(), "startup")
        return True

    async def shutdown(self) -> None:
        await self._inbox.put({"type": "lifespan.shutdown"})
        self._check(await self._outbox.get(), "shutdown")
        await self._task

    @staticmethod
    def _check(answer: dict, phase: str) -> None:
        if answer["type"] != f"lifespan.{phase}.complete":
            raise RuntimeError(f"the app answered lifespan.{phase} with {answer}")


class AiohttpCaller(_AsyncCaller):
    """Hands aiohttp's own ``web.Request`` to the app's request handler, the one its server calls."""

    def __init__(self, app):
        from aiohttp import web

        super().__init__()
        self._runner = web.AppRunner(app)
        self.loop.run_until_complete(self._runner.setup())  # the app's startup: its cleanup contexts run
        self._server = self._runner.server
        self._protocol = self.loop.run_until_complete(_in_loop(self._server))  # a connection, never connected
        self._messages: dict[str, object] = {}

    def _message(self, target: str):
        from aiohttp.http import HttpVersion11, RawRequestMessage
        from yarl import URL

        message = self._messages.get(target)
        if message is None:
            headers = CIMultiDictProxy(CIMultiDict({"Host": HOST}))
            message = RawRequestMessage(
                "GET",
                target,
                HttpVersion11,
                headers,
                ((b"Host", HOST.encode()),),
                False,
                None,
                False,
                False,
                URL(target),
            )
            self._messages[target] = message
        return message

    async def _call(self, target: str) -> Answer:
        from aiohttp.http_writer import StreamWriter
        from aiohttp.streams import EMPTY_PAYLOAD

        request = self._server.request_factory(
            self._message(target),
            EMPTY_PAYLOAD,
            self._protocol,
            StreamWriter(self._protocol, self.loop),
            asyncio.current_task(),
        )
        response = await self._server.request_handler(request)
        return Answer(response.status, dict(response.headers), response.body or b"")

    async def _shutdown(self) -> None:
        await self._runner.cleanup()  # the app's cleanup: its clients close


async def _in_loop(factory):
    return factory()


class TornadoCaller(_AsyncCaller):
    """Calls a Tornado application with an ``HTTPServerRequest`` whose connection collects the response."""

    def __init__(self, app, close_clients: Callable | None = None):
        super().__init__(close_clients)
        self.app = app

    async def _call(self, target: str) -> Answer:
        from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

        connection = _Collector()
        request = HTTPServerRequest(
            start_line=RequestStartLine("GET", target, "HTTP/1.1"),
            headers=HTTPHeaders({"Host": HOST}),
            connection=connection,
        )
        prepared = self.app(request)  # done when the handler is prepared; its answer may come later
        if prepared is not None:
            await prepared
        await connection.finished
        return Answer(connection.status, connection.headers, b"".join(connection.chunks))


class _Collector:
    """Tornado's ``HTTPConnection`` interface, keeping what the handler writes instead of sending it."""

    def __init__(self):
        self.status = 0
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.finished = asyncio.get_running_loop().create_future()

    def set_close_callback(self, callback) -> None:
        pass

    def write_headers(self, start_line, headers, chunk=None):
        self.status = start_line.code
        self.headers = dict(headers.get_all())
        return self.write(chunk)

    def write(self, chunk):
        if chunk:
            self.chunks.append(chunk)
        written = asyncio.get_running_loop().create_future()
        written.set_result(None)
        return written

    def finish(self) -> None:
        self.finished.set_result(None)


Caller = Union[WsgiCaller, AsgiCaller, AiohttpCaller, TornadoCaller]


@dataclass(frozen=True)
class Loaded:
    """An app's caller, and what makes its module's global state current before a test calls it."""

    caller: Caller
    activate: Callable[[], None] = lambda: None


def load(app: App, apps_dir: Path) -> Loaded:
    """Import the app's module from the apps folder and wrap its entry point in the caller of its interface."""
    if str(apps_dir) not in sys.path:
        sys.path.insert(0, str(apps_dir))
    if "django" in app.requires:
        return _load_django(app)
    module = _import(app.module)
    target = getattr(module, app.callable)
    close_clients = getattr(module, "close_clients", None)
    if app.interface == "wsgi":
        return Loaded(WsgiCaller(target, close_clients))
    if app.interface == "asgi":
        return Loaded(AsgiCaller(target, close_clients))
    if app.interface == "aiohttp":
        return Loaded(AiohttpCaller(target()))
    if app.interface == "tornado":
        return Loaded(TornadoCaller(target(), close_clients))
    raise ValueError(f"{app.name}: no in-process caller for interface {app.interface!r}")


def _import(module: str):
    """The app's module, imported as its server would; a framework's import-time DeprecationWarning (WebOb
    imports ``cgi`` on Python 3.11) is the framework's business, not a failure of the handler under test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return importlib.import_module(module)


def _load_django(app: App) -> Loaded:
    """Each Django app configures Django's process-wide settings at import, which Django allows once per
    process.  So the settings of an app imported earlier are set aside (Django's own ``empty`` marker) before
    the next one configures its own, and ``activate`` puts an app's settings back before it is called."""
    from django.conf import settings
    from django.utils.functional import empty

    if app.module not in sys.modules and settings.configured:
        settings._wrapped = empty
    module = _import(app.module)
    target = getattr(module, app.callable)
    own = settings._wrapped
    caller = (WsgiCaller if app.interface == "wsgi" else AsgiCaller)(target, module.close_clients)
    return Loaded(caller, lambda: setattr(settings, "_wrapped", own))
