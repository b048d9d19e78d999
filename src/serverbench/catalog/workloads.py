"""Workloads: what one trial requests, as data.  A workload names an endpoint of the contract,
or (``mix``) a weighted list of URLs like siege's URL file, driven by wrk through Lua.  A user's
app brings its own endpoints (``own``: :mod:`serverbench.catalog.userapp`), one workload each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .contract import ENDPOINTS, Endpoint, Request


@dataclass(frozen=True)
class Workload:
    """A request pattern driven against a server: here, one endpoint hit repeatedly."""

    name: str
    endpoint: str
    description: str
    mix: tuple[tuple[str, int], ...] = ()
    also_verify: tuple[str, ...] = ()
    own: Endpoint | None = None  # an endpoint outside the contract (a user's app): used instead of ENDPOINTS

    @property
    def spec(self) -> Endpoint:
        return self.own if self.own is not None else ENDPOINTS[self.endpoint]

    @property
    def request(self) -> Request | None:
        """The method, headers and body every request sends; None for a plain GET (the drivers' default)."""
        request = self.spec.request
        return None if request.plain else request

    @property
    def specs(self) -> tuple[Endpoint, ...]:
        """Every endpoint checked before this workload's load (a mix checks each kind of URL it sends)."""
        return (self.spec,) + tuple(ENDPOINTS[e] for e in self.also_verify)

    @property
    def path(self) -> str:
        return self.spec.path

    @property
    def backends(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(b for e in self.specs for b in e.backends))


# The book site's mixed-URL workload: about 30 URLs, weighted like a visitor's session (pages and
# API calls, then the thumbnails, covers and static files they pull in).
SITE_MIX: tuple[tuple[str, int], ...] = (
    *(
        (f"/site/search?q={q}&page={p}", 3)
        for q, p in (("server", 1), ("server", 2), ("python", 1), ("event", 1), ("worker", 1), ("book", 3), ("loop", 1))
    ),
    *((f"/site/api/books?q={q}", 2) for q in ("python", "redis", "async", "queue", "server")),
    *((f"/site/thumbs/{n}.jpg", 4) for n in (1, 2, 3, 4, 5, 6, 7, 8, 9)),
    *((f"/site/covers/{n}.jpg", 1) for n in (1, 2, 3, 4, 5, 6)),
    ("/site/static/site.css", 5),
    ("/site/static/site.js", 5),
    ("/json", 2),
)


WORKLOADS: Mapping[str, Workload] = {
    w.name: w
    for w in (
        Workload("plaintext", "plaintext", "13-byte text/plain body: the server's own overhead"),
        Workload("json", "json", "serialize a one-key JSON object per request"),
        Workload("redis", "redis", "INCR a counter and GET a 2,000-character value, return both as JSON"),
        Workload("mongo-small", "mongo-small", "find_one of a one-field document, as JSON"),
        Workload("mongo-big", "mongo-big", "find_one of a 300-field document (~6 KB of JSON)"),
        Workload(
            "events-1k",
            "events-1k",
            "read an event queue: a list of ~1 KB of shallow JSON events",
            also_verify=("events-0",),
        ),
        Workload(
            "events-64k",
            "events-64k",
            "read an event queue: a list of ~64 KB of shallow JSON events",
            also_verify=("events-0",),
        ),
        Workload("upstream", "upstream", "call an HTTP upstream (nginx echo) that answers after 100 ms"),
        Workload("sleep", "sleep", "wait 100 ms the way the server's model waits (thread, greenlet or coroutine)"),
        Workload(
            "site",
            "site-search",
            "a weighted mix of ~30 URLs of a small book site: HTML search pages, "
            "a JSON API, cover images and thumbnails, static CSS and JS",
            mix=SITE_MIX,
            also_verify=("site-api", "site-cover", "site-thumb", "site-css", "site-js", "json"),
        ),
    )
}
