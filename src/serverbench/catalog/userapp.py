"""A user's own app as data: where it is, what it needs, and the endpoints it is measured on.

A project that installed serverbench names its app by import path (``perf_app =
"mysite.wsgi:application"``), its environment and backends, and its endpoints, one ini line
each (``home GET / status=200 type=text/html contains=Welcome``) or from its conftest
(``pytest_perf_endpoints``, built with :func:`endpoint`).  This module parses those values and
turns them into the catalog's own data: an :class:`~serverbench.catalog.apps.App`, one
:class:`~serverbench.catalog.workloads.Workload` per endpoint, and the servers' environment.
Pure: the interface is detected elsewhere (:mod:`serverbench.measure.serving.appinterface`).

What a project that serves its own app imports: ``from serverbench.catalog.userapp import endpoint``
(``Endpoint`` and ``Request``, the types it builds, are importable from here too; docs/ci.md).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from .apps import App
from .contract import Endpoint, Request
from .workloads import Workload

# The interfaces a user's Python app may offer (node and play are the reference yardsticks' own).
INTERFACES = ("wsgi", "asgi", "aiohttp", "tornado")
# The module servers load when they cannot load the user's object directly (see ``App`` below).
ENTRY_MODULE = "serverbench.serverside.appentry"
TARGET_ENV = "SERVERBENCH_APP"  # tells the entry module which object to load

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MODULE_RE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
ENDPOINT_FORM = "NAME [METHOD] PATH [status=200] [type=text/html] [contains=TEXT] [header=Name:value] [body=...]"
ENDPOINT_KEYS = ("status", "type", "contains", "header", "body")


@dataclass(frozen=True)
class AppTarget:
    """``package.module:attribute`` or ``package.module:factory()``: what the servers import."""

    module: str
    attribute: str
    factory: bool = False

    @property
    def text(self) -> str:
        return f"{self.module}:{self.attribute}{'()' if self.factory else ''}"

    @classmethod
    def parse(cls, raw: str) -> AppTarget:
        text = str(raw).strip()
        module, colon, attribute = text.partition(":")
        factory = attribute.endswith("()")
        attribute = attribute.removesuffix("()")
        if not colon or not MODULE_RE.match(module) or not re.match(r"^[A-Za-z_]\w*$", attribute):
            raise ValueError(
                f"expected an import path such as 'mysite.wsgi:application' or 'app:create_app()', got {raw!r}"
            )
        return cls(module, attribute, factory)


def entries(raw: str) -> list[str]:
    """``NAME=value`` entries: one per line, and within a line split at commas followed by ``NAME=``
    (so ``A=1,B=2`` on the command line is two entries, and ``URL=x?a=1,2`` stays one)."""
    out = []
    for line in str(raw).splitlines():
        out += [p.strip() for p in re.split(r",(?=\s*[A-Za-z_][A-Za-z0-9_]*=)", line) if p.strip()]
    return out


def parse_env(raw: str) -> tuple[tuple[str, str], ...]:
    """``perf_app_env``: the variables set in every server's environment."""
    pairs = []
    for entry in entries(raw):
        name, eq, value = entry.partition("=")
        if not eq or not ENV_NAME_RE.match(name.strip()):
            raise ValueError(
                f"expected NAME=value entries such as DJANGO_SETTINGS_MODULE=mysite.settings, got {entry!r}"
            )
        pairs.append((name.strip(), value.strip()))
    return tuple(pairs)


def parse_backends(raw: str) -> tuple[tuple[str, str], ...]:
    """``perf_app_backends``: (backend, the environment variable that hands its URL to the app) pairs."""
    pairs = []
    for entry in entries(raw):
        name, eq, var = (p.strip() for p in entry.partition("="))
        if not eq or not name or not ENV_NAME_RE.match(var):
            raise ValueError(f"expected BACKEND=ENV_VAR entries such as redis=REDIS_URL, got {entry!r}")
        pairs.append((name, var))
    return tuple(pairs)


def check_backends(pairs: Iterable[tuple[str, str]], known: Iterable[str]) -> None:
    """Raise ValueError naming every backend that is not in the registry, with the known ones."""
    known = list(known)
    unknown = [name for name, _ in pairs if name not in known]
    if unknown:
        raise ValueError(
            f"perf_app_backends names unknown backend(s) {', '.join(map(repr, unknown))}; "
            f"known backends: {', '.join(known)}"
        )


def _contains(parts: Sequence[bytes]) -> Callable[[bytes], str | None]:
    def check(body: bytes) -> str | None:
        missing = [p.decode(errors="replace") for p in parts if p not in body]
        return f"body {body[:120]!r} lacks {missing!r}" if missing else None

    return check


def _user_check(name: str, check: Callable[[bytes], Any]) -> Callable[[bytes], str | None]:
    """A user's body check: None or True is a pass, a message or False a failure, an exception a failure."""

    def run(body: bytes) -> str | None:
        try:
            verdict = check(body)
        except Exception as exc:  # the user's code: its failure is the endpoint's problem, with the cause
            return f"the body check of {name} raised {exc!r}"
        if verdict is None or verdict is True:
            return None
        return verdict if isinstance(verdict, str) else f"the body check of {name} rejected {body[:120]!r}"

    return run


def endpoint(
    name: str,
    path: str,
    *,
    method: str = "GET",
    status: int = 200,
    content_type: str | None = None,
    contains: Iterable[str | bytes] = (),
    headers: Mapping[str, str] | Iterable[tuple[str, str]] = (),
    body: str | bytes = b"",
    check: Callable[[bytes], Any] | None = None,
) -> Endpoint:
    """One endpoint of a user's app, as the ``pytest_perf_endpoints`` hook returns them.

    ``check(body)`` returns None or True when the body is right, a message (or False) when not;
    ``contains`` are substrings the body must hold.  Verified before load like the contract's.
    """
    if not NAME_RE.match(name):
        raise ValueError(f"endpoint name {name!r}: use letters, digits, '.', '_' and '-'")
    if not path.startswith("/"):
        raise ValueError(f"endpoint {name}: path {path!r} must start with '/'")
    if not (isinstance(status, int) and 100 <= status <= 599):
        raise ValueError(f"endpoint {name}: status {status!r} is not an HTTP status (100-599)")
    if not re.match(r"^[A-Z]+$", method):
        raise ValueError(f"endpoint {name}: method {method!r} must be upper-case letters such as GET or POST")
    parts = [p.encode() if isinstance(p, str) else p for p in contains]
    checks = ([_contains(parts)] if parts else []) + ([_user_check(name, check)] if check is not None else [])

    def check_body(got: bytes) -> str | None:
        return next((p for p in (c(got) for c in checks) if p), None)

    pairs = tuple(headers.items()) if isinstance(headers, Mapping) else tuple(headers)
    request = Request(
        method, tuple((str(k), str(v)) for k, v in pairs), body.encode() if isinstance(body, str) else bytes(body)
    )
    return Endpoint(
        name, path, content_type.lower() if content_type else None, check_body, status=status, request=request
    )


def parse_endpoint(line: str) -> Endpoint:
    """One ``perf_endpoints`` line; ValueError says what is wrong with it (the caller adds where)."""
    found = re.search(r"(?:^|\s)body=", line)  # the body is the rest of the line, spaces and all
    head, body = (line[: found.start()], line[found.end() :]) if found else (line, "")
    try:
        tokens = shlex.split(head)
    except ValueError as exc:
        raise ValueError(f"cannot split it into words ({exc}): close the quote") from None
    if len(tokens) < 2:
        raise ValueError("it needs at least a name and a path")
    name, rest = tokens[0], tokens[1:]
    method = rest.pop(0) if rest and re.match(r"^[A-Z]+$", rest[0]) else "GET"
    if not rest:
        raise ValueError("the path is missing (it starts with '/')")
    path, options = rest[0], rest[1:]
    fields: dict[str, Any] = {"contains": [], "headers": []}
    for token in options:
        key, eq, value = token.partition("=")
        if not eq or key not in ENDPOINT_KEYS:
            raise ValueError(f"{token!r} is not key=value with a key among {', '.join(ENDPOINT_KEYS)}")
        if key == "status":
            if not value.isdigit():
                raise ValueError(f"status={value!r} is not a number such as 200")
            fields["status"] = int(value)
        elif key == "type":
            fields["content_type"] = value
        elif key == "contains":
            fields["contains"].append(value)
        elif key == "header":
            hname, colon, hvalue = value.partition(":")
            if not colon or not hname.strip():
                raise ValueError(f"header={value!r} is not Name:value (header=Content-Type:application/json)")
            fields["headers"].append((hname.strip(), hvalue.strip()))
    return endpoint(name, path, method=method, body=body, **fields)


def parse_endpoints(raw: str) -> tuple[Endpoint, ...]:
    """``perf_endpoints``: one endpoint per non-empty line; an error names the line and the form."""
    out = []
    for number, line in enumerate(str(raw).splitlines(), 1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        try:
            out.append(parse_endpoint(line.strip()))
        except ValueError as exc:
            raise ValueError(f"line {number} {line.strip()!r}: {exc}; write each endpoint as {ENDPOINT_FORM}") from None
    return tuple(out)


@dataclass(frozen=True)
class UserApp:
    """The user's app: its target, interface, folder, environment, backends and endpoints."""

    target: AppTarget
    interface: str
    directory: Path
    endpoints: tuple[Endpoint, ...]
    env: tuple[tuple[str, str], ...] = ()
    backends: tuple[tuple[str, str], ...] = ()
    reset: AppTarget | None = None  # perf_app_reset: run before each cell so every cell starts from one state
    setup: str | None = None  # perf_app_setup: a shell command run once per tree before its servers start

    @property
    def name(self) -> str:
        """The short, stable name records and node ids carry: the module of the import path."""
        return self.target.module

    @property
    def direct(self) -> bool:
        """Servers load the object itself: a WSGI/ASGI app object, or an aiohttp/tornado factory
        (what their launchers call).  Otherwise they load it through the entry module."""
        return self.target.factory == (self.interface in ("aiohttp", "tornado"))

    @property
    def app(self) -> App:
        module, attribute = (
            (self.target.module, self.target.attribute)
            if self.direct
            else (ENTRY_MODULE, "factory" if self.interface in ("aiohttp", "tornado") else "app")
        )
        return App(
            self.name,
            self.interface,
            module,
            attribute,
            (),
            f"your project ({self.directory})",
            endpoints=tuple(e.name for e in self.endpoints),
            notes=f"perf_app = {self.target.text}",
        )

    @property
    def workloads(self) -> dict[str, Workload]:
        """One workload per endpoint, named by it; each uses every backend the app names."""
        needs = tuple(name for name, _ in self.backends)
        return {
            e.name: Workload(e.name, e.name, f"{e.request.method} {e.path}", own=replace(e, backends=needs))
            for e in self.endpoints
        }

    @property
    def ready_path(self) -> str | None:
        """The path a server is ready on: the first plain GET expecting 2xx; None (a TCP check) if none is."""
        return next((e.path for e in self.endpoints if e.request.plain and 200 <= e.status < 300), None)

    def server_env(self, urls: Mapping[str, str]) -> dict[str, str]:
        """Every server's environment: perf_app_env, each backend's URL under the user's name for it,
        and (when servers load through the entry module) which object to load."""
        env = dict(self.env)
        env.update({var: urls[name] for name, var in self.backends if name in urls})
        if not self.direct:
            env[TARGET_ENV] = self.target.text
        return env


def user_app(
    target: AppTarget,
    interface: str,
    directory: Path,
    endpoints: Sequence[Endpoint],
    env: Sequence[tuple[str, str]] = (),
    backends: Sequence[tuple[str, str]] = (),
    known_backends: Iterable[str] = (),
    reset: AppTarget | None = None,
    setup: str | None = None,
) -> UserApp:
    """The validated user app; ValueError says every problem at once with its fix."""
    problems = []
    if interface not in INTERFACES:
        problems.append(f"perf_app_interface {interface!r} is not one of {', '.join(INTERFACES)}")
    if not endpoints:
        problems.append(
            f"perf_app = {target.text} has no endpoints: list them in the ini key perf_endpoints "
            f"(one per line: {ENDPOINT_FORM}) or return them from a pytest_perf_endpoints(config) hook"
        )
    names = [e.name for e in endpoints]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        problems.append(
            f"endpoint name(s) {', '.join(twice)} given twice (perf_endpoints and "
            "pytest_perf_endpoints together): give each endpoint one name"
        )
    try:
        check_backends(backends, known_backends)
    except ValueError as exc:
        problems.append(str(exc))
    if problems:
        raise ValueError("\n  ".join(problems))
    if reset is not None and reset.factory:
        raise ValueError(
            f"perf_app_reset = {reset.text}: name the function without '()' "
            f"({reset.module}:{reset.attribute}); serverbench calls it"
        )
    return UserApp(target, interface, Path(directory), tuple(endpoints), tuple(env), tuple(backends), reset, setup)
