"""The driver interface, and the one place a driver is chosen for a load shape.

A driver runs one :class:`~serverbench.catalog.shapes.LoadShape` against a URL and returns what it
measured (a :class:`~serverbench.records.schema.LoadReport`) with its own process's CPU (a
:class:`~serverbench.processes.executors.GeneratorRun` or a run with the same fields).  It states what
it can execute as :class:`~serverbench.catalog.shapes.Capabilities`; a shape it cannot run is refused
before any server starts.  It sizes itself to a cell's load (:meth:`Driver.sized`): a caller never asks which
fields a driver has.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..catalog.contract import Request
from ..catalog.shapes import Capabilities, LoadShape
from ..catalog.variants import Variant
from ..catalog.workloads import Workload


@dataclass(frozen=True)
class CellLoad:
    """What a driver sizes one cell's run to: the cell's server (None: one the catalog does not describe), its
    workload and the shape it runs.  ``warmup_s``: the lead-in a cold server gets (--perf-warmup), for a driver whose
    lead-in is the warm-up; None where the caller warms up apart (the gate), and such a driver keeps its own lead-in
    and trail.  ``warm``: the server has just served another workload (catalog.windows.warm_lead_s); ``min_lead_s``: a
    lead-in at least this long (a window measured again)."""

    variant: Variant | None
    workload: Workload
    shape: LoadShape
    warmup_s: float | None = None
    warm: bool = False
    min_lead_s: float = 0


class Driver(Protocol):
    name: str

    @property
    def capabilities(self) -> Capabilities: ...

    @property
    def version(self) -> str: ...

    @property
    def threads(self) -> int:
        """Threads or processes generating load: its busy share is its CPU over this many cores."""

    def check(self) -> None:
        """Raise a usage error (missing binary or package, with the install) before any server starts."""

    def sized(self, load: CellLoad) -> Driver:
        """This driver as it runs ``load``: a closed model's timeout (and lead-in and trail, where it has them) sized
        to the cell (catalog.timeouts, catalog.windows); itself when nothing changes or it has nothing to size."""

    def run(
        self,
        url: str,
        shape: LoadShape,
        *,
        cpus: Sequence[int] | None = None,
        mix: Sequence[tuple[str, int]] = (),
        request: Request | None = None,
    ) -> tuple[Any, Any]:
        """Drive ``url`` as ``shape`` says (``mix``: weighted paths instead of the URL's path;
        ``request``: the method, headers and body of every request, a user's endpoint; the
        locust driver takes none); returns (LoadReport, the run with ``cpu_s`` and ``wall_s``)."""


def driver_for(
    shape: LoadShape, threads: int = 2, closed: str = "wrk", one_url: bool = True, places: Sequence = ()
) -> Driver:
    """oha for a rate (the open model), locust for a locust scenario; for the closed model oha when ``closed``
    says so, the shape keeps connections alive and the load is plain GETs of one URL (``one_url``: no URL mix,
    not a user's endpoint), wrk otherwise (oha's closed model sends one URL, kept alive).  ``places``: the load hosts
    (docs/hosts.md), where locust runs distributed and oha's and wrk's loads are split: the closed model's driver is
    the same across hosts as on one (the gate's is wrk, the session's its --perf-closed-driver)."""
    places = tuple(places)
    if shape.workers is not None:
        from .locust import LocustDriver

        return LocustDriver(workers=shape.workers, places=places)
    if shape.rate is not None or (closed == "oha" and shape.requests_per_connection is None and one_url):
        from .oha import OhaDriver

        return OhaDriver(places=places)
    from .wrk import WrkDriver

    return WrkDriver(threads=threads, places=places)


def closed_driver(choice: str = "auto") -> tuple[Driver, str | None]:
    """The closed model's driver for --perf-closed-driver ``choice`` and, when ``auto`` fell back to wrk, why:
    auto is oha (a steady-state window, docs/trial.md) when it is installed, else wrk."""
    from ..errors import MissingBinaryError
    from .oha import OhaDriver
    from .wrk import WrkDriver

    if choice == "wrk":
        return WrkDriver(), None
    try:
        OhaDriver().check()
    except MissingBinaryError as exc:
        if choice == "oha":
            raise
        return WrkDriver(), str(exc)
    return OhaDriver(), None
