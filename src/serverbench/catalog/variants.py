"""Server variants as validated data.

A variant is a server with a worker model and settings, the app it serves, a command
template, its environment, a readiness path and the interpreters it runs on.  Adding a
server is a new entry here, not new code: the executor only fills the template.

Template fields: ``{python}`` (the interpreter), ``{bindir}`` (its scripts folder),
``{host}``, ``{port}``, ``{target}`` (``module:callable`` of the app), ``{module}``,
``{callable}``, ``{apps_dir}`` and every key of ``settings``.
"""

from __future__ import annotations

import importlib.util
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..errors import ConfigError
from .apps import APPS, DEFAULT_APPS, INTERFACE_RUNTIMES, INTERFACES, App

STANDARD_FIELDS = frozenset({"python", "bindir", "host", "port", "target", "module", "callable", "apps_dir"})
INTERPRETERS = ("cpython", "pypy")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
# Worker kinds whose every request holds a thread until it is answered: a pool of workers x threads.
POOL_WORKERS = ("sync", "gthread", "thread-pool", "prefork+threads", "single-thread")
# C event loops that run a WSGI app's Python on their one thread: a blocking call in the app (a sleep, redis-py,
# an HTTP client) blocks the whole process, so each process serves one such request at a time.
BLOCKING_LOOPS = ("event-loop", "meinheld")
# The worker model a web team chooses between, by worker kind (docs/choose-a-server.md groups its rows by it): how a
# server waits for a request's slow call.  Every worker kind of the catalog has one (tests/unit/catalog).
MODELS: Mapping[str, tuple[str, ...]] = {
    "sync processes": ("sync", "single-thread"),
    "threads": ("thread-per-request", "gthread", "prefork+threads", "thread-pool", "reactor+threadpool"),
    "greenlets": ("gevent", "greenlet", "greenthread"),
    "asyncio": ("asyncio", "aiohttp", "asgi"),
    "Rust-core servers": ("rust-threads", "rust+asyncio"),
    "C event loops": ("event-loop", "meinheld"),
    "other event loops": ("twisted-reactor",),
}
# Interfaces that are not Python's: their servers are another runtime's whatever their worker kind.
OTHER_RUNTIMES = ("node", "play")


@dataclass(frozen=True)
class Variant:
    """One way to run a server: worker model, settings, the app interface it loads, how to start it.

    Which apps a variant can serve follows from ``interface``; the app is chosen per cell.
    ``unsupported`` keeps a row for a server people still cite that cannot run here, with the
    reason found when it was tried.
    """

    name: str
    server: str
    worker: str
    interface: str
    command: tuple[str, ...]
    requires: tuple[str, ...]
    install: str
    settings: Mapping[str, object] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    ready_path: str = "/plaintext"
    interpreters: tuple[str, ...] = INTERPRETERS
    notes: str = ""
    unsupported: str = ""
    cost_tolerance: float | None = None  # a floor under the cost tests' tolerance where counts move more (why: notes)
    programs: tuple[str, ...] = ()  # executables it runs that are not Python modules (looked up on PATH)
    # A listen backlog fixed below the connections a load opens (wsgiref's socketserver: 5): the connections beyond it
    # wait in the kernel's SYN retransmits, not in the server's queue (the syn-drops check names them).
    backlog: int | None = None
    # The server never forks: its first process serves every request (a counted run reads its process tree as soon as
    # that process holds the socket, instead of waiting for the tree to stay unchanged: measure.counting.workers.settled).  Not
    # wsgiref, although it never forks: read at once, its count rose 1.1% (711,507 instructions per request twice,
    # against 702,925 and 704,284 after the 2 s settle, 2026-11-27), so something of its first seconds falls in the
    # window; it keeps the settle time, as its committed baseline was counted.
    one_process: bool = False
    # The first CPython it does not run on, and why, as found when it was tried ("3.13: ..."); "" when none is known.
    python_below: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))

    @property
    def processes(self) -> int:
        """Processes that serve requests (the settings' workers or processes; one when it has neither)."""
        return int(self.settings.get("workers", self.settings.get("processes", 1)))

    @property
    def blocking_concurrency(self) -> int | None:
        """Requests served at once when each blocks in the app (a sleep, a blocking client): workers x threads
        for a pool, one per process for a C event loop running a WSGI app; None when nothing bounds them (a
        thread per request, greenlets, an event loop with an async client) or the catalog does not know."""
        if self.worker in POOL_WORKERS:
            return self.processes * int(self.settings.get("threads", 1))
        if self.worker in BLOCKING_LOOPS and self.interface == "wsgi":
            return self.processes
        return None

    @property
    def model(self) -> str:
        """The worker model (MODELS): "other runtimes" for a server of another language's runtime."""
        if self.interface in OTHER_RUNTIMES:
            return "other runtimes"
        return next((m for m, kinds in MODELS.items() if self.worker in kinds), "unknown")

    @property
    def default_app(self) -> App:
        return APPS[DEFAULT_APPS[self.interface]]

    def serves(self, app: App) -> bool:
        return app.interface == self.interface

    def argv(self, **fields: object) -> list[str]:
        """The command with every template field filled in."""
        values = {**self.settings, **fields}
        return [part.format(**values) for part in self.command]

    def python_limit(self) -> tuple[tuple[int, int], str] | None:
        """(the first CPython version it does not run on, why) from ``python_below``; None when none is known."""
        if not self.python_below:
            return None
        version, _, why = self.python_below.partition(":")
        major, minor = version.strip().split(".")
        return (int(major), int(minor)), why.strip()

    def missing_modules(self, app: App | None = None) -> list[str]:
        """Modules this variant (and ``app``) needs that the running interpreter cannot import."""
        needed = dict.fromkeys(self.requires + (app or self.default_app).requires)
        return [m for m in needed if importlib.util.find_spec(m) is None]


ROW = "<row>"  # where a row's options go in its engine's command (at the end when the command has none)


@dataclass(frozen=True)
class Engine:
    """What every variant of one server shares, declared once: rows name it and give only what differs.

    ``command`` is the template every row's command starts from; a row's options take the place of ``ROW``
    in it, or follow it.  ``requires`` defaults to the server's own module and ``install`` to pip installing
    what it requires; a row adds the packages of its worker (``also``).
    """

    server: str
    command: tuple[str, ...]
    interface: str = "wsgi"
    requires: tuple[str, ...] | None = None
    install: str = ""
    interpreters: tuple[str, ...] = INTERPRETERS
    one_process: bool = False
    programs: tuple[str, ...] = ()
    python_below: str = ""

    def variant(self, name: str, worker: str, *options: str, also: tuple[str, ...] = (), **fields: object) -> Variant:
        """A row: this engine's fields, its command with ``options`` in place, ``also`` packages beside the
        engine's, and ``fields`` (any of Variant's) where the row differs."""
        requires = (self.server,) if self.requires is None else self.requires
        install = self.install or f"pip install {' '.join(requires)}"
        at = self.command.index(ROW) if ROW in self.command else len(self.command)
        shared: dict[str, object] = {
            "interface": self.interface,
            "command": self.command[:at] + options + self.command[at + 1 :],
            "requires": requires + also,
            "install": f"{install} {' '.join(also)}" if also else install,
            "interpreters": self.interpreters,
            "one_process": self.one_process,
            "programs": self.programs,
            "python_below": self.python_below,
        }
        return Variant(name, self.server, worker, **{**shared, **fields})  # type: ignore[arg-type]


def launch(server: str, *options: str) -> tuple[str, ...]:
    """The command of a server without a CLI of its own: ``python -m serverbench.serverside.launch``."""
    return ("{python}", "-m", "serverbench.serverside.launch", server, "{host}", "{port}", "{target}") + options


GREENLET_PIN = "pip install --no-deps meinheld  (next to greenlet>=3)"
# meinheld's keep-alive timeout runs while a request sits unread behind its blocked loop, so it must outlast the
# longest wait a generator allows (catalog/timeouts.py MAX_TIMEOUT_S; tests/unit/catalog/test_variants.py): at 10 s,
# meinheld on /upstream at 64 connections (a designed queue of 6.4 s, a starved connection's up to twice that) closed
# the connections of 30 of 223 requests, a 13% error rate (the default run, 2026-12-04).
BLOCKED_LOOP_KEEPALIVE_S = 100
# Tried 2026-12-03: meinheld 1.0.2 builds on CPython 3.13.0 and its import fails (undefined symbol).
MEINHELD_BELOW = "3.13: meinheld 1.0.2's C module calls Py_TRASHCAN_SAFE_BEGIN, which CPython 3.13 removed"
# The uWSGI rows' app and processes, between each row's socket and its concurrency options.
UWSGI_APP = ("--module", "{target}", "--chdir", "{apps_dir}", "--master", "--processes", "{processes}")

ENGINES: Mapping[str, Engine] = MappingProxyType(
    {
        e.server: e
        for e in (
            Engine("werkzeug", launch("werkzeug"), one_process=True),
            Engine("wsgiref", launch("wsgiref"), install="(standard library)"),
            Engine(
                "gunicorn",
                (
                    "{python}",
                    "-m",
                    "gunicorn",
                    "-c",
                    "python:serverbench.serverside.gunicorn_conf",
                    "-b",
                    "{host}:{port}",
                    "-w",
                    "{workers}",
                    "--backlog",
                    "2048",
                ),
            ),
            Engine(
                "uwsgi",
                ("{bindir}/uwsgi", ROW, "--need-app", "--die-on-term", "--disable-logging", "--lazy-apps"),
                requires=("pyuwsgi",),
                interpreters=("cpython",),
            ),
            Engine("gevent", launch("gevent-pywsgi"), one_process=True),
            Engine("eventlet", launch("eventlet"), one_process=True),
            Engine("meinheld", launch("meinheld"), install=GREENLET_PIN, one_process=True, python_below=MEINHELD_BELOW),
            Engine(
                "bjoern", launch("bjoern"), install="apt-get install libev-dev && pip install bjoern", one_process=True
            ),
            Engine("aiohttp", launch("aiohttp"), interface="aiohttp", one_process=True),
            Engine("tornado", launch("tornado"), interface="tornado", one_process=True),
            Engine("cheroot", launch("cheroot"), one_process=True),
            Engine(
                "waitress",
                ("{python}", "-m", "waitress", "--host={host}", "--port={port}", "--threads={threads}")
                + ("--backlog=2048", "--connection-limit=2000", "{target}"),
                one_process=True,
            ),
            Engine(
                "twisted",
                ("{python}", "-m", "twisted", "--log-level=warn", "web", "--listen", "tcp:{port}:interface={host}")
                + ("--wsgi", "{module}.{callable}"),
                one_process=True,
            ),
            Engine("paste", launch("paste"), one_process=True),
            Engine(
                "uvicorn",
                ("{python}", "-m", "uvicorn", "--host", "{host}", "--port", "{port}", "--no-access-log")
                + ("--log-level", "warning", "{target}"),
                interface="asgi",
                one_process=True,
            ),
            Engine("hypercorn", ("{python}", "-m", "hypercorn", "-b", "{host}:{port}", "{target}"), interface="asgi"),
            Engine(
                "granian",
                ("{python}", "-m", "granian", "--interface", ROW, "--host", "{host}", "--port", "{port}")
                + ("--workers", "1", "{target}"),
            ),
            # Cross-language yardsticks: the same contract on Node.js (apps/node) and the JVM, no Python in the server.
            Engine(
                "node",
                ("node", "{apps_dir}/{module}", "--host", "{host}", "--port", "{port}", "--workers", "{workers}"),
                interface="node",
                requires=(),
                programs=("node",),
                install="Node.js >= 20.19 (apt-get install nodejs npm), then `npm ci --prefix apps/node` (./run does it)",
            ),
            Engine(
                "play",
                (
                    "java",
                    "-Dplay.server.http.address={host}",
                    "-Dhttp.port={port}",
                    "-cp",
                    "{apps_dir}/play/target/classes:{apps_dir}/play/target/dependency/*",
                    "play.core.server.ProdServerStart",
                    "{apps_dir}/play",
                ),
                interface="play",
                requires=(),
                programs=("java",),
                install="Java >= 17 and Maven (apt-get install openjdk-17-jdk-headless maven), then "
                "`mvn -q -f apps/play/pom.xml package` (./run does it)",
            ),
            # Servers old comparisons measured that cannot run here: kept as rows, skipped with the reason found.
            Engine("cyclone", ("cyclone",), interface="tornado"),
            Engine("rocket", ("rocket",)),
            Engine("fapws3", ("fapws3",), requires=("fapws",), install="pip install fapws3"),
        )
    }
)
GUNICORN, UWSGI = ENGINES["gunicorn"], ENGINES["uwsgi"]


def _gthread(threads: int) -> Variant:
    return GUNICORN.variant(
        f"gunicorn-gthread-t{threads}",
        "gthread",
        "-k",
        "gthread",
        "--threads",
        "{threads}",
        "{target}",
        settings={"workers": 1, "threads": threads},
        notes=f"'Threaded flask': one process, a pool of {threads} threads.",
    )


VARIANTS: tuple[Variant, ...] = (
    ENGINES["werkzeug"].variant(
        "werkzeug-threaded",
        "thread-per-request",
        notes="Werkzeug's development server (what `flask run` uses): a thread per request, one process.",
    ),
    ENGINES["wsgiref"].variant(
        "wsgiref",
        "single-thread",
        notes="The standard library's reference server: one request at a time, HTTP/1.0, a connection each.",
        backlog=5,
    ),
    GUNICORN.variant("gunicorn-sync-w2", "sync", "-k", "sync", "{target}", settings={"workers": 2}),
    GUNICORN.variant("gunicorn-sync-w4", "sync", "-k", "sync", "{target}", settings={"workers": 4}),
    GUNICORN.variant(
        "gunicorn-sync-w4-preload",
        "sync",
        "--preload",
        "-k",
        "sync",
        "{target}",
        settings={"workers": 4},
        notes="preload_app: the app is imported once in the master before the workers fork, so its modules' "
        "pages start shared (docs/memory.md).",
    ),
    GUNICORN.variant(
        "gunicorn-sync-w4-freeze",
        "sync",
        "--preload",
        "-k",
        "sync",
        "{target}",
        settings={"workers": 4},
        env={"SERVERBENCH_GC_FREEZE": "1"},
        notes="preload_app and gc.freeze() in the master before the workers fork (serverbench.serverside.gunicorn_conf), "
        "so the collector leaves the shared objects' pages alone (docs/memory.md).",
    ),
    *(_gthread(t) for t in (10, 20, 50, 100, 200, 400, 800, 1000)),
    GUNICORN.variant(
        "gunicorn-gevent-w2",
        "gevent",
        "-k",
        "gevent",
        "--worker-connections",
        "{worker_connections}",
        "{target}",
        also=("gevent",),
        settings={"workers": 2, "worker_connections": 1000},
        notes="gunicorn monkey-patches the worker, so redis-py's sockets are cooperative.",
    ),
    GUNICORN.variant(
        "gunicorn-meinheld-w2",
        "meinheld",
        "--keep-alive",
        "{keepalive}",
        "-k",
        "meinheld.gmeinheld.MeinheldWorker",
        "{target}",
        also=("meinheld",),
        install=GREENLET_PIN,
        settings={"workers": 2, "keepalive": BLOCKED_LOOP_KEEPALIVE_S},
        interpreters=("cpython",),
        python_below=MEINHELD_BELOW,
        notes="meinheld's C event loop as gunicorn's worker; its greenlet<0.5 pin cannot build here, "
        "so it is installed without dependencies next to gevent's modern greenlet. Keep-alive as long as the "
        "longest request timeout, as the standalone meinheld row: with gunicorn's 2 s the worker closed kept-alive "
        "connections whose next request had waited over 2 s behind its blocked loop (/upstream at 64 connections: "
        "2-41 'connection closed' errors a run).",
    ),
    GUNICORN.variant(
        "gunicorn-aiohttp-w2",
        "aiohttp",
        "-k",
        "aiohttp.GunicornWebWorker",
        "{module}:{callable}()",
        interface="aiohttp",
        also=("aiohttp",),
        settings={"workers": 2},
        notes="aiohttp's own gunicorn worker: one event loop per process, two processes.",
    ),
    GUNICORN.variant(
        "gunicorn-asgi-w2",
        "asgi",
        "-k",
        "asgi",
        "{target}",
        interface="asgi",
        install="pip install 'gunicorn>=24'",
        settings={"workers": 2},
        interpreters=("cpython",),
        notes="gunicorn's own ASGI worker (gunicorn >= 24, gunicorn.workers.gasgi): one asyncio event loop per "
        "process (uvloop when installed), gunicorn's HTTP parser, two processes. CPython only: PyPy 3.9 installs "
        "gunicorn 23, which has no asgi worker.",
    ),
    UWSGI.variant(
        "uwsgi-p2t2",
        "prefork+threads",
        *("--http11-socket", "{host}:{port}", *UWSGI_APP, "--threads", "{threads}"),
        settings={"processes": 2, "threads": 2},
        notes="--http11-socket keeps connections alive; plain --http-socket closes each one without "
        "'Connection: close', which wrk counts as a read error on every response.",
    ),
    UWSGI.variant(
        "uwsgi-gevent100",
        "gevent",
        *("--http", "{host}:{port}", "--http-keepalive", *UWSGI_APP, "--gevent", "{cores}", "--gevent-monkey-patch"),
        also=("gevent",),
        settings={"processes": 1, "cores": 100},
        notes="uWSGI async mode: 100 gevent cores in one process, the standard library monkey-patched, "
        "behind uWSGI's HTTP router (--http --http-keepalive). With --http11-socket the second request on a "
        "kept-alive connection never gets an answer in gevent mode (measured: 0 requests under wrk).",
    ),
    ENGINES["gevent"].variant(
        "gevent-pywsgi",
        "greenlet",
        notes="Stock gevent.pywsgi: Nagle on, so each keep-alive response stalls ~40 ms on the client's "
        "delayed ACK. Kept to show the artefact; compare gevent-pywsgi-nodelay.",
    ),
    ENGINES["gevent"].variant(
        "gevent-pywsgi-nodelay",
        "greenlet",
        "nodelay=1",
        notes="gevent.pywsgi with TCP_NODELAY set on each accepted socket: the 40 ms stall's fix.",
    ),
    ENGINES["eventlet"].variant(
        "eventlet-wsgi",
        "greenthread",
        notes="eventlet.wsgi after eventlet.monkey_patch() (gunicorn >= 26 has no eventlet worker).",
    ),
    ENGINES["meinheld"].variant(
        "meinheld",
        "event-loop",
        f"keepalive={BLOCKED_LOOP_KEEPALIVE_S}",
        notes="meinheld standalone: a C event loop, one process; a blocking call (redis-py) blocks it. Keep-alive "
        "as long as the longest request timeout: its timer runs while a request waits unread behind the blocked "
        "loop, and at 10 s it closed queued connections on /upstream at 64 connections (13% read errors).",
    ),
    ENGINES["bjoern"].variant(
        "bjoern", "event-loop", notes="bjoern: libev in C, one process, one request at a time in Python."
    ),
    ENGINES["aiohttp"].variant(
        "aiohttp",
        "asyncio",
        notes="web.run_app: one process, one event loop, access log off; redis.asyncio for the backend. "
        "(`python -m aiohttp.web` turns on DEBUG logging and a per-request access log: not used.)",
    ),
    ENGINES["tornado"].variant("tornado", "asyncio", notes="Tornado's own HTTPServer on asyncio, one process."),
    ENGINES["cheroot"].variant(
        "cheroot-t10",
        "thread-pool",
        "threads={threads}",
        settings={"threads": 10},
        notes="CherryPy's HTTP server (cheroot) with 10 worker threads.",
    ),
    ENGINES["waitress"].variant(
        "waitress-t4",
        "thread-pool",
        settings={"threads": 4},
        notes="waitress: asyncore-style I/O thread plus 4 worker threads (its default).",
    ),
    ENGINES["twisted"].variant(
        "twisted-wsgi",
        "reactor+threadpool",
        notes="twisted.web's WSGIResource: the reactor parses HTTP, a thread pool runs the app.",
    ),
    ENGINES["paste"].variant(
        "paste-t10",
        "thread-pool",
        "threads={threads}",
        settings={"threads": 10},
        notes="Paste's httpserver with a 10-thread pool, as shipped: HTTP/1.0, a connection per request. "
        "With protocol_version='HTTP/1.1' it keeps connections alive but stalls ~44 ms per response "
        "(Nagle vs delayed ACK; measured 224 rps vs 1,166 rps with HTTP/1.0).",
    ),
    ENGINES["uvicorn"].variant(
        "uvicorn", "asyncio", notes="uvicorn, one process; uses uvloop and httptools when they are installed."
    ),
    ENGINES["hypercorn"].variant(
        "hypercorn",
        "asyncio",
        notes="hypercorn (h11), one process. Its loop's timers wake it a number of times that follows how long the "
        "counted window took, so its counts move with the machine's load: counted beside other sessions' counts "
        "they spread far wider than on a quiet machine (docs/lab/cost.md's A/A tables). A baseline saved on a quiet "
        "machine keeps the narrow spread, so its cost tolerance has a floor: about twice the spread under load.",
        cost_tolerance=0.04,
    ),
    ENGINES["granian"].variant(
        "granian-wsgi",
        "rust-threads",
        "wsgi",
        notes="granian: a Rust (hyper/tokio) HTTP server calling a WSGI app, one worker.",
    ),
    ENGINES["granian"].variant(
        "granian-asgi",
        "rust+asyncio",
        "asgi",
        interface="asgi",
        notes="granian: a Rust (hyper/tokio) HTTP server driving an ASGI app on asyncio, one worker.",
    ),
    ENGINES["node"].variant(
        "node-http",
        "event-loop",
        settings={"workers": 1},
        notes="Node.js's own http module: one process, one event loop; the official "
        "redis and mongodb clients, a kept-alive http.Agent for the upstream.",
    ),
    ENGINES["node"].variant(
        "node-cluster-w2",
        "cluster",
        settings={"workers": 2},
        notes="The same server under Node.js's cluster module: 2 worker processes "
        "sharing the listening socket, like gunicorn -w 2.",
    ),
    ENGINES["play"].variant(
        "play-pekko",
        "pekko-http",
        notes="Play 3 on the JVM through its production launcher (ProdServerStart), Pekko HTTP, one process.",
    ),
    ENGINES["cyclone"].variant(
        "cyclone",
        "twisted-reactor",
        unsupported="`pip install cyclone` (1.3, 2019) pins Twisted 19.2.1, whose C extension does not build on "
        "Python 3.11 (longintrepr.h: No such file); `--no-deps cyclone` next to a current Twisted imports, but "
        "it serves only cyclone's own Tornado-style handlers, for which no reference app is written",
    ),
    ENGINES["rocket"].variant(
        "rocket",
        "thread-pool",
        unsupported="`pip install rocket` (1.2.8, 2017) fails on its dependency distribute 0.7.3 "
        "(invalid command 'dist_info'); with --no-deps it installs but `import rocket` fails: "
        "No module named 'rocket.methods'",
    ),
    ENGINES["fapws3"].variant(
        "fapws3",
        "event-loop",
        unsupported="`pip install fapws3` (0.11.dev, 2012) fails in its setup.py: Python 2 print statement "
        "(SyntaxError: Missing parentheses in call to 'print')",
    ),
)


def validate(variants: Iterable[Variant]) -> list[str]:
    """Every problem in the declarations, in one pass (empty when all are valid)."""
    problems: list[str] = []
    seen: set[str] = set()
    for v in variants:
        where = f"variant {v.name!r}"
        if not NAME_RE.match(v.name):
            problems.append(f"{where}: name must be lower-case letters, digits, '.' and '-'")
        if v.name in seen:
            problems.append(f"{where}: declared twice")
        seen.add(v.name)
        if v.interface not in INTERFACES:
            problems.append(f"{where}: interface {v.interface!r} is not one of {INTERFACES}")
        elif DEFAULT_APPS.get(v.interface) not in APPS:
            problems.append(f"{where}: no default app for interface {v.interface!r} (DEFAULT_APPS)")
        if not v.command:
            problems.append(f"{where}: empty command")
        known = STANDARD_FIELDS | set(v.settings)
        for part in v.command:
            for _, name, _, _ in string.Formatter().parse(part):
                if name is not None and name not in known:
                    problems.append(f"{where}: command field {{{name}}} is neither a standard field nor a setting")
        bad = [i for i in v.interpreters if i not in INTERPRETERS]
        if bad or not v.interpreters:
            problems.append(
                f"{where}: interpreters {list(v.interpreters)} must be a non-empty subset of {INTERPRETERS}"
            )
        if not v.ready_path.startswith("/"):
            problems.append(f"{where}: ready_path {v.ready_path!r} must start with '/'")
        try:
            v.python_limit()
        except ValueError:
            problems.append(f"{where}: python_below {v.python_below!r} must read 'MAJOR.MINOR: why'")
    for interface in {a.interface for a in APPS.values()} - set(INTERFACES):
        problems.append(f"app interface {interface!r} is not one of {INTERFACES}")
    problems += runtime_problems(APPS.values())
    return problems


def runtime_problems(apps: Iterable[App]) -> list[str]:
    """Apps written for another runtime than their interface loads (a Python app offered to Node.js)."""
    return [
        f"app {a.name!r} is a {a.runtime} app but interface {a.interface!r} loads "
        f"{INTERFACE_RUNTIMES.get(a.interface, 'no known runtime')} apps"
        for a in apps
        if INTERFACE_RUNTIMES.get(a.interface) != a.runtime
    ]


def registry(variants: Iterable[Variant] = VARIANTS) -> dict[str, Variant]:
    """The validated variants by name; invalid declarations are a ConfigError listing every problem."""
    variants = tuple(variants)
    problems = validate(variants)
    if problems:
        raise ConfigError("invalid variant declarations:\n  " + "\n  ".join(problems))
    return {v.name: v for v in variants}
