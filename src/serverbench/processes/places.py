"""Where a load generator runs: this machine, or a host of the inventory (hosts.places), behind one contract.

A driver asks a place for a folder, runs its generator there (to completion, its CPU measured) or starts a helper
beside it (a locust worker, reaped at the end), and reads back the files the generator wrote.  It never needs to know
whether the place is this machine: :class:`Local` is the executors' run_generator and BackgroundProcess, and a host's
place does the same over SSH.
"""

from __future__ import annotations

import contextlib
import glob
import os
import platform
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..records.schema import HostLoad
from .executors import LOOPBACK, BackgroundProcess, GeneratorRun, Reaped, run_generator
from .together import at_once


class Background(Protocol):
    def reap(self, linger_s: float) -> Reaped: ...


class Place(Protocol):
    """Where a generator runs."""

    name: str

    @property
    def address(self) -> str:
        """The address other places reach it at (a locust master's)."""

    @property
    def cores(self) -> int:
        """The cores its generators may use."""

    @property
    def kernel(self) -> str | None:
        """Its kernel release."""

    @property
    def rtt_ms(self) -> float | None:
        """Its round trip to the server host (None: not measured, or this machine)."""

    def folder(self, prefix: str = "serverbench-gen-") -> contextlib.AbstractContextManager[str]:
        """A temporary folder there (its name starting with ``prefix``), removed when the block ends."""

    def run(
        self,
        argv: Sequence[str],
        timeout: float,
        cpus: Sequence[int] | None = None,
        env: Mapping[str, str] | None = None,
        main_thread: bool = False,
    ) -> GeneratorRun: ...

    def start(
        self,
        argv: Sequence[str],
        log: str,
        cpus: Sequence[int] | None = None,
        env: Mapping[str, str] | None = None,
        main_thread: bool = False,
    ) -> Background: ...

    def read(self, path: str) -> bytes: ...

    def write(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` there (a request's body for its generator)."""

    def list(self, folder: str, pattern: str) -> list[str]:
        """The paths in ``folder`` there whose names match ``pattern`` (a glob)."""

    def collect(self, folder: str, patterns: Sequence[str]) -> dict[str, bytes]:
        """Every file in ``folder`` there whose name matches one of ``patterns``, by name: read in one go."""


class Local:
    """This machine: the executors' own generator and helper processes."""

    name = "local"
    address = LOOPBACK
    rtt_ms = None

    @property
    def kernel(self) -> str:
        return platform.release()

    @property
    def cores(self) -> int:
        return len(os.sched_getaffinity(0))

    @contextlib.contextmanager
    def folder(self, prefix: str = "serverbench-gen-") -> Iterator[str]:
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
            yield tmp

    def run(self, argv, timeout, cpus=None, env=None, main_thread=False) -> GeneratorRun:
        return run_generator(argv, timeout, cpus, dict(env) if env is not None else None, main_thread)

    def start(self, argv, log, cpus=None, env=None, main_thread=False) -> BackgroundProcess:
        return BackgroundProcess.start(argv, Path(log), cpus, dict(env) if env is not None else None, main_thread)

    def read(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def write(self, path: str, data: bytes) -> None:
        Path(path).write_bytes(data)

    def list(self, folder: str, pattern: str) -> list[str]:
        return sorted(glob.glob(os.path.join(glob.escape(folder), pattern)))

    def collect(self, folder: str, patterns: Sequence[str]) -> dict[str, bytes]:
        return {Path(p).name: Path(p).read_bytes() for pattern in patterns for p in self.list(folder, pattern)}


LOCAL = Local()


def split(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` whole shares as even as can be, the larger ones first (64 over 3: 22, 21, 21)."""
    if parts < 1:
        raise ValueError("split needs at least one part")
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def together(calls: Sequence[Callable[[], Any]], on_failure: Callable[[], None] | None = None) -> list[Any]:
    """:func:`.together.at_once` (the calls in threads, ended with the command), and ``on_failure`` run once, as the
    first call fails: it stops what the others are running (a lost load host's cell fails, and the other hosts'
    generators need not run to their end)."""
    if on_failure is None:
        return at_once(calls)
    lock, failed = threading.Lock(), []

    def guarded_call(call: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            try:
                return call()
            except BaseException:
                with lock:
                    first = not failed
                    failed.append(1)
                if first:
                    on_failure()
                raise

        return run

    return at_once([guarded_call(c) for c in calls])


@dataclass(frozen=True)
class SpreadRun:
    """Generators run on several places at once, as one run: their CPU summed, the longest wall time, and each
    place's share (records.schema.HostLoad: the trial's generator record lists them)."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    hosts: tuple[HostLoad, ...]
    samples: tuple = ()
    run_queue: Any = None


def host_load(place: Place, processes: int, cpu_s: float, wall_s: float, share: int) -> HostLoad:
    """One place's part of a spread run, as recorded."""
    return HostLoad(place.name, place.address, place.cores, processes, cpu_s, wall_s, place.kernel, place.rtt_ms, share)


def spread_run(runs: Sequence[GeneratorRun], places: Sequence[Place], shares: Sequence[int]) -> SpreadRun:
    """One run of the generators ``runs`` on ``places`` (each one process, given ``shares`` of the load)."""
    return SpreadRun(
        runs[0].argv,
        max(r.returncode for r in runs),
        "\n".join(r.stdout for r in runs),
        "\n".join(r.stderr for r in runs),
        max(r.wall_s for r in runs),
        sum(r.cpu_s for r in runs),
        tuple(host_load(p, p.cores, r.cpu_s, r.wall_s, n) for p, r, n in zip(places, runs, shares)),
    )


def spread(
    places: Sequence[Place], total: int, one: Callable[[Place, int], tuple[GeneratorRun, Any]]
) -> tuple[list[Any], SpreadRun]:
    """A load of ``total`` connections split across ``places`` and run on all of them at once: ``one(place, share)``
    runs a place's part and returns (its run, what the driver reads of it).  What each part gave, in order, and the
    spread run (the first failure stops every place's processes, then is raised)."""
    shares = [(place, n) for place, n in zip(places, split(total, len(places))) if n]
    got = together(
        [lambda p=place, n=n: one(p, n) for place, n in shares],
        on_failure=lambda: [getattr(place, "stop_all", lambda: None)() for place, _ in shares],
    )
    return [x for _, x in got], spread_run([run for run, _ in got], [p for p, _ in shares], [n for _, n in shares])
