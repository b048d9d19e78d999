"""Start a server that has no command line of its own, inside the server process.

    python -m serverbench.serverside.launch SERVER HOST PORT MODULE:CALLABLE [key=value ...]

This module runs in the server's interpreter, not in the harness: the variant table names
it in a command template, and the executor starts it like any other server.  Each entry is
the few lines its server's documentation shows; servers that patch the standard library
(gevent, eventlet) patch before the app is imported, as their users do.
"""

from __future__ import annotations

import asyncio
import importlib
import socket
import sys
from collections.abc import Mapping
from typing import Callable


def _load(target: str):
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def werkzeug(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    from werkzeug.serving import WSGIRequestHandler, run_simple

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args, **kwargs):
            pass

    run_simple(host, port, _load(target), threaded=True, request_handler=Quiet)


def wsgiref(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    make_server(host, port, _load(target), handler_class=Quiet).serve_forever()


def gevent_pywsgi(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    from gevent import monkey

    monkey.patch_all()
    from gevent.pywsgi import WSGIServer

    nodelay = opts.get("nodelay") == "1"

    class Server(WSGIServer):
        def handle(self, sock, address):
            if nodelay:  # the fix for the 40 ms Nagle / delayed-ACK stall of stock pywsgi
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return super().handle(sock, address)

    Server((host, port), _load(target), log=None, backlog=int(opts.get("backlog", 1024))).serve_forever()


def eventlet(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    import eventlet as ev

    ev.monkey_patch()
    import eventlet.wsgi

    eventlet.wsgi.server(
        ev.listen((host, port), backlog=int(opts.get("backlog", 1024))),
        _load(target),
        log_output=False,
        max_size=int(opts.get("max_size", 1000)),
    )


def meinheld(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    from meinheld import server

    server.set_access_logger(None)
    server.set_keepalive(int(opts.get("keepalive", 10)))  # its default closes every connection
    server.listen((host, port))
    server.run(_load(target))


def bjoern(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    import bjoern as bj

    bj.run(_load(target), host, port)


def cheroot(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    from cheroot.wsgi import Server

    Server((host, port), _load(target), numthreads=int(opts.get("threads", 10))).safe_start()


def paste(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    from paste.httpserver import WSGIHandler, serve

    class Quiet(WSGIHandler):
        protocol_version = opts.get("protocol", WSGIHandler.protocol_version)  # HTTP/1.1: keep-alive

        def log_request(self, *args, **kwargs):
            pass

    serve(
        _load(target),
        host=host,
        port=str(port),
        handler=Quiet,
        use_threadpool=True,
        threadpool_workers=int(opts.get("threads", 10)),
        start_loop=True,
    )


def aiohttp(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    """web.run_app without `python -m aiohttp.web`'s DEBUG logging and per-request access log."""
    from aiohttp import web

    web.run_app(_load(target)(), host=host, port=port, access_log=None, print=None)


def tornado(host: str, port: int, target: str, opts: Mapping[str, str]) -> None:
    async def main() -> None:
        _load(target)().listen(port, address=host)
        await asyncio.Event().wait()

    asyncio.run(main())


SERVERS: Mapping[str, Callable[[str, int, str, Mapping[str, str]], None]] = {
    "werkzeug": werkzeug,
    "wsgiref": wsgiref,
    "gevent-pywsgi": gevent_pywsgi,
    "eventlet": eventlet,
    "meinheld": meinheld,
    "bjoern": bjoern,
    "cheroot": cheroot,
    "paste": paste,
    "aiohttp": aiohttp,
    "tornado": tornado,
}


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[0] not in SERVERS:
        sys.exit(
            f"usage: python -m serverbench.serverside.launch {{{'|'.join(SERVERS)}}} HOST PORT MODULE:CALLABLE "
            f"[key=value ...]; got {argv!r}"
        )
    server, host, port, target, *rest = argv
    opts = dict(item.split("=", 1) for item in rest)
    SERVERS[server](host, int(port), target, opts)


if __name__ == "__main__":
    main(sys.argv[1:])
