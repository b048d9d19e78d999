"""The reference apps, as data: which file implements the contract, through which interface.

The code lives in the project's ``apps/`` folder (``--perf-apps-dir``).  Which server can
serve which app is decided by interface alone: a variant declares the interface it loads
(``wsgi``, ``asgi`` or a framework's own server such as ``aiohttp`` and ``tornado``), an app
declares the one it offers.  Adding an app is an entry here plus its file.

Each interface belongs to one runtime: the ``node`` interface is Node.js's own ``http`` module and
``play`` is Play on the JVM, so those variants serve only their own app and no Python app, and no
Python server loads theirs.  An app may serve part of the contract (``endpoints``); a workload
it does not serve is skipped for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .contract import ENDPOINTS

INTERFACES = ("wsgi", "asgi", "aiohttp", "tornado", "node", "play")
# The runtime an interface's apps are written for (an app declares the same one; catalog.variants.runtime_problems
# checks it).
INTERFACE_RUNTIMES: Mapping[str, str] = {
    "wsgi": "python",
    "asgi": "python",
    "aiohttp": "python",
    "tornado": "python",
    "node": "node",
    "play": "jvm",
}

# The app a variant serves when --perf-apps is not given: one per interface.
DEFAULT_APPS: Mapping[str, str] = {
    "wsgi": "flask",
    "asgi": "raw-asgi",
    "aiohttp": "aiohttp",
    "tornado": "tornado",
    "node": "node",
    "play": "play",
}


@dataclass(frozen=True)
class App:
    """A reference app: its module in the apps folder, the object servers load, what it needs.

    ``requires`` are Python modules; an app of another ``runtime`` names instead the files its
    install creates under the apps folder (``installed_files``) and the command in ``install``.
    """

    name: str
    interface: str
    module: str
    callable: str
    requires: tuple[str, ...]
    install: str
    endpoints: tuple[str, ...] = tuple(ENDPOINTS)
    notes: str = ""
    runtime: str = "python"
    installed_files: tuple[str, ...] = ()

    @property
    def target(self) -> str:
        return f"{self.module}:{self.callable}" if self.callable else self.module

    def lacks(self, endpoints: Iterable[str]) -> list[str]:
        """The endpoints (names) among ``endpoints`` this app does not serve."""
        return [e for e in endpoints if e not in self.endpoints]


APPS: Mapping[str, App] = {
    a.name: a
    for a in (
        App("flask", "wsgi", "flask_app", "app", ("flask", "redis", "pymongo"), "pip install flask redis pymongo"),
        App("bottle", "wsgi", "bottle_app", "app", ("bottle", "redis", "pymongo"), "pip install bottle redis pymongo"),
        App(
            "pyramid",
            "wsgi",
            "pyramid_app",
            "app",
            ("pyramid", "redis", "pymongo"),
            "pip install pyramid redis pymongo",
        ),
        App(
            "django",
            "wsgi",
            "django_app",
            "application",
            ("django", "redis", "pymongo"),
            "pip install django redis pymongo",
        ),
        App(
            "django-asgi",
            "asgi",
            "django_asgi_app",
            "application",
            ("django", "redis", "pymongo", "aiohttp"),
            "pip install django redis pymongo aiohttp",
            notes="Django's ASGI handler with async views and redis.asyncio.",
        ),
        App(
            "cherrypy",
            "wsgi",
            "cherrypy_app",
            "app",
            ("cherrypy", "redis", "pymongo"),
            "pip install cherrypy redis pymongo",
            notes="A CherryPy application mounted as a plain WSGI callable (served by any WSGI server).",
        ),
        App(
            "raw-wsgi",
            "wsgi",
            "raw_wsgi_app",
            "app",
            ("redis", "pymongo"),
            "pip install redis pymongo",
            notes="Framework-free WSGI: the floor every WSGI framework adds to.",
        ),
        App(
            "raw-asgi",
            "asgi",
            "raw_asgi_app",
            "app",
            ("redis", "pymongo", "aiohttp"),
            "pip install redis pymongo aiohttp",
            notes="Framework-free ASGI: the floor every ASGI framework adds to.",
        ),
        App(
            "aiohttp",
            "aiohttp",
            "aiohttp_app",
            "init",
            ("aiohttp", "redis", "pymongo"),
            "pip install aiohttp redis pymongo",
        ),
        App(
            "tornado",
            "tornado",
            "tornado_app",
            "make_app",
            ("tornado", "redis", "pymongo"),
            "pip install tornado redis pymongo",
        ),
        App(
            "node",
            "node",
            "node/server.js",
            "",
            (),
            "npm ci --prefix apps/node",
            runtime="node",
            installed_files=("node/node_modules/.package-lock.json",),
            notes="The contract on Node.js's own http module, with the official redis and mongodb clients "
            "(apps/node/package-lock.json): the cross-language yardstick. Served only by the node variants.",
        ),
        App(
            "play",
            "play",
            "play",
            "",
            (),
            "mvn -q -f apps/play/pom.xml package",
            runtime="jvm",
            endpoints=("plaintext", "json", "sleep", "mongo-small", "mongo-big", "events-0", "events-1k", "events-64k"),
            installed_files=("play/target/classes/serverbench/PlayLoader.class", "play/target/dependency"),
            notes="Play 3 (Java API, RoutingDsl, Pekko HTTP) with the official MongoDB sync driver on a thread "
            "pool: part of the contract (no Redis, upstream or book site). Served only by play-pekko.",
        ),
    )
}

# The apps a Python interpreter imports (the in-process handler callers and import-time checks take these).
PYTHON_APPS: Mapping[str, App] = {name: a for name, a in APPS.items() if a.runtime == "python"}
