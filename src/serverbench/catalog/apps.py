"""The reference apps, as data: which file implements the contract, through which interface.

The code lives in the project's ``apps/`` folder (``--perf-apps-dir``).  Which server can
serve which app is decided by interface alone: a variant declares the interface it loads
(``wsgi``, ``asgi`` or a framework's own server such as ``aiohttp`` and ``tornado``), an app
declares the one it offers.  Adding an app is an entry here plus its file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .contract import ENDPOINTS

INTERFACES = ("wsgi", "asgi", "aiohttp", "tornado")

# The app a variant serves when --perf-apps is not given: one per interface.
DEFAULT_APPS: Mapping[str, str] = {"wsgi": "flask", "asgi": "raw-asgi", "aiohttp": "aiohttp", "tornado": "tornado"}


@dataclass(frozen=True)
class App:
    """A reference app: its module in the apps folder, the object servers load, what it needs."""

    name: str
    interface: str
    module: str
    callable: str
    requires: tuple[str, ...]
    install: str
    endpoints: tuple[str, ...] = tuple(ENDPOINTS)
    notes: str = ""

    @property
    def target(self) -> str:
        return f"{self.module}:{self.callable}"


APPS: Mapping[str, App] = {
    a.name: a
    for a in (
        App("flask", "wsgi", "flask_app", "app", ("flask", "redis", "pymongo"), "pip install flask redis pymongo"),
        App("bottle", "wsgi", "bottle_app", "app", ("bottle", "redis", "pymongo"), "pip install bottle redis pymongo"),
        App("pyramid", "wsgi", "pyramid_app", "app", ("pyramid", "redis", "pymongo"),
            "pip install pyramid redis pymongo"),
        App("django", "wsgi", "django_app", "application", ("django", "redis", "pymongo"),
            "pip install django redis pymongo"),
        App("django-asgi", "asgi", "django_asgi_app", "application", ("django", "redis", "pymongo", "aiohttp"),
            "pip install django redis pymongo aiohttp", notes="Django's ASGI handler with async views and redis.asyncio."),
        App("cherrypy", "wsgi", "cherrypy_app", "app", ("cherrypy", "redis", "pymongo"),
            "pip install cherrypy redis pymongo",
            notes="A CherryPy application mounted as a plain WSGI callable (served by any WSGI server)."),
        App("raw-wsgi", "wsgi", "raw_wsgi_app", "app", ("redis", "pymongo"), "pip install redis pymongo",
            notes="Framework-free WSGI: the floor every WSGI framework adds to."),
        App("raw-asgi", "asgi", "raw_asgi_app", "app", ("redis", "pymongo", "aiohttp"),
            "pip install redis pymongo aiohttp",
            notes="Framework-free ASGI: the floor every ASGI framework adds to."),
        App("aiohttp", "aiohttp", "aiohttp_app", "init", ("aiohttp", "redis", "pymongo"),
            "pip install aiohttp redis pymongo"),
        App("tornado", "tornado", "tornado_app", "make_app", ("tornado", "redis", "pymongo"),
            "pip install tornado redis pymongo"),
    )
}
