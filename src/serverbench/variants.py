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
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

from .apps import APPS, INTERFACES, App
from .errors import ConfigError

STANDARD_FIELDS = frozenset({"python", "bindir", "host", "port", "target", "module", "callable", "apps_dir"})
INTERPRETERS = ("cpython", "pypy")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9.-]*$")

# Which app interfaces each server speaks.
SERVES: Mapping[str, tuple[str, ...]] = {
    "werkzeug": ("wsgi",),
    "gunicorn": ("wsgi",),
    "uwsgi": ("wsgi",),
    "aiohttp": ("aiohttp",),
}

GUNICORN = ("{python}", "-m", "gunicorn", "--no-control-socket", "-b", "{host}:{port}", "-w", "{workers}")


@dataclass(frozen=True)
class Variant:
    """One way to serve an app: server, worker model, settings and how to start it."""

    name: str
    server: str
    worker: str
    app: str
    command: tuple[str, ...]
    requires: tuple[str, ...]
    install: str
    settings: Mapping[str, object] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    ready_path: str = "/plaintext"
    interpreters: tuple[str, ...] = INTERPRETERS
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))

    @property
    def app_spec(self) -> App:
        return APPS[self.app]

    def argv(self, **fields: object) -> list[str]:
        """The command with every template field filled in."""
        values = {**self.settings, **fields}
        return [part.format(**values) for part in self.command]

    def missing_modules(self) -> list[str]:
        """Modules this variant (server and app) needs that the running interpreter cannot import."""
        needed = dict.fromkeys(self.requires + self.app_spec.requires)
        return [m for m in needed if importlib.util.find_spec(m) is None]


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "werkzeug-threaded", "werkzeug", "thread-per-request", "flask",
        ("{python}", "-m", "flask", "--app", "{target}", "run", "--host", "{host}", "--port", "{port}",
         "--with-threads", "--no-reload", "--no-debugger"),
        requires=("flask", "werkzeug"), install="pip install flask",
        notes="Flask's development server: one thread per request, no worker processes.",
    ),
    Variant(
        "gunicorn-sync-w2", "gunicorn", "sync", "flask", GUNICORN + ("-k", "sync", "{target}"),
        requires=("gunicorn",), install="pip install gunicorn", settings={"workers": 2},
    ),
    Variant(
        "gunicorn-gthread-t10", "gunicorn", "gthread", "flask",
        GUNICORN + ("-k", "gthread", "--threads", "{threads}", "{target}"),
        requires=("gunicorn",), install="pip install gunicorn", settings={"workers": 1, "threads": 10},
        notes="'Threaded flask': one process, a pool of 10 threads.",
    ),
    Variant(
        "gunicorn-gthread-t100", "gunicorn", "gthread", "flask",
        GUNICORN + ("-k", "gthread", "--threads", "{threads}", "{target}"),
        requires=("gunicorn",), install="pip install gunicorn", settings={"workers": 1, "threads": 100},
        notes="'Threaded flask': one process, a pool of 100 threads.",
    ),
    Variant(
        "gunicorn-gevent-w2", "gunicorn", "gevent", "flask",
        GUNICORN + ("-k", "gevent", "--worker-connections", "{worker_connections}", "{target}"),
        requires=("gunicorn", "gevent"), install="pip install gunicorn gevent",
        settings={"workers": 2, "worker_connections": 1000},
        notes="gunicorn monkey-patches the worker, so redis-py's sockets are cooperative.",
    ),
    Variant(
        "uwsgi-p2t2", "uwsgi", "prefork+threads", "flask",
        ("{bindir}/uwsgi", "--http11-socket", "{host}:{port}", "--module", "{target}", "--chdir", "{apps_dir}",
         "--master", "--processes", "{processes}", "--threads", "{threads}", "--need-app",
         "--die-on-term", "--disable-logging", "--lazy-apps"),
        requires=("pyuwsgi",), install="pip install pyuwsgi", settings={"processes": 2, "threads": 2},
        interpreters=("cpython",),
        notes="--http11-socket keeps connections alive; plain --http-socket closes each one without "
        "'Connection: close', which wrk counts as a read error on every response.",
    ),
    Variant(
        "aiohttp", "aiohttp", "asyncio", "aiohttp",
        ("{python}", "-m", "aiohttp.web", "-H", "{host}", "-P", "{port}", "{target}"),
        requires=("aiohttp",), install="pip install aiohttp",
        notes="One process, one event loop; redis.asyncio for the backend.",
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
        if v.app not in APPS:
            problems.append(f"{where}: unknown app {v.app!r}; known apps: {', '.join(APPS)}")
        elif v.app_spec.interface not in SERVES.get(v.server, ()):
            problems.append(
                f"{where}: server {v.server!r} cannot serve {v.app_spec.interface} app {v.app!r} "
                f"(it serves {', '.join(SERVES.get(v.server, ())) or 'nothing declared in SERVES'})"
            )
        if not v.command:
            problems.append(f"{where}: empty command")
        known = STANDARD_FIELDS | set(v.settings)
        for part in v.command:
            for _, name, _, _ in string.Formatter().parse(part):
                if name is not None and name not in known:
                    problems.append(f"{where}: command field {{{name}}} is neither a standard field nor a setting")
        bad = [i for i in v.interpreters if i not in INTERPRETERS]
        if bad or not v.interpreters:
            problems.append(f"{where}: interpreters {list(v.interpreters)} must be a non-empty subset of {INTERPRETERS}")
        if not v.ready_path.startswith("/"):
            problems.append(f"{where}: ready_path {v.ready_path!r} must start with '/'")
    for interface in {a.interface for a in APPS.values()} - set(INTERFACES):
        problems.append(f"app interface {interface!r} is not one of {INTERFACES}")
    return problems


def registry(variants: Iterable[Variant] = VARIANTS) -> dict[str, Variant]:
    """The validated variants by name; invalid declarations are a ConfigError listing every problem."""
    variants = tuple(variants)
    problems = validate(variants)
    if problems:
        raise ConfigError("invalid variant declarations:\n  " + "\n  ".join(problems))
    return {v.name: v for v in variants}
