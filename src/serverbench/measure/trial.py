"""One trial: warm up, then measure load while sampling the server.  Measurement only."""
from __future__ import annotations

import datetime as dt
import os
import time
from contextlib import ExitStack
from typing import Any, Mapping, Sequence

from ..drivers import WrkDriver
from ..errors import ServerDiedError
from ..records.results import BackendUsage, Generator, Result
from .sampling import TreeSampler
from .servers import RunningServer
from ..catalog.shapes import LoadShape
from .verify import fetch
from ..catalog.workloads import Workload


def settled(rps: Sequence[float], tolerance: float) -> bool:
    """Warm-up is over when the last round's rps is within ``tolerance`` of the round before it."""
    return len(rps) >= 2 and abs(rps[-1] - rps[-2]) <= tolerance * max(rps[-2], 1e-9)


def warm_up(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver, seconds: int,
            rounds: int = 1, settle: float = 0.05, cpus: Sequence[int] | None = None,
            shape: Mapping[str, Any] | None = None) -> tuple[float, ...]:
    """Unmeasured load, so caches, JITs and connection pools are warm before the measured window.

    Runs up to ``rounds`` rounds of ``seconds`` each and stops early once rps settles (a JIT
    such as PyPy's keeps speeding up for several rounds).  Returns the rps of every round.
    """
    rps: list[float] = []
    if seconds <= 0:
        return ()
    for _ in range(rounds):
        load, _ = driver.run(server.url + workload.path, connections, seconds, cpus=cpus, mix=workload.mix,
                             **(shape or {}))
        check_alive(server)
        rps.append(load.rps)
        if settled(rps, settle):
            break
    return tuple(rps)


def measure(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver, duration: int,
            nodeid: str, test: str, machine: Mapping[str, Any], python: Mapping[str, Any], warmup_s: int = 0,
            warmup_rps: Sequence[float] = (), warmup_settled: bool | None = None,
            cpus: Sequence[int] | None = None, backends: Mapping[str, Any] | None = None,
            shape: Mapping[str, Any] | None = None, label: str = "") -> Result:
    """One measured window: the driver's report, the server's CPU and peak RSS, the generator's CPU,
    and for each backend (``name -> service`` with ``pid``, ``kind``, ``cores``, ``count()``) its CPU
    and the operations it counted during the window."""
    url = server.url + workload.path
    backends = dict(backends or {})
    with ExitStack() as stack:
        sampler = stack.enter_context(TreeSampler(server.pid)) if server.pid is not None else None
        samplers = {name: stack.enter_context(TreeSampler(b.pid)) for name, b in backends.items()
                    if b.pid is not None}
        before = {name: b.count() for name, b in backends.items()}
        started = time.monotonic()
        load, run = driver.run(url, connections, duration, cpus=cpus, mix=workload.mix, **(shape or {}))
        wall = time.monotonic() - started
    after = {name: b.count() for name, b in backends.items()}
    usage = sampler.usage() if sampler is not None else None
    check_alive(server)
    cores = len(cpus) if cpus is not None else (os.cpu_count() or 1)
    generator = Generator(driver.name, driver.version, max(1, min(driver.threads, connections)),
                          run.cpu_s, run.wall_s, cores)
    used = tuple(
        BackendUsage(name, b.kind, samplers[name].usage().cpu_s if name in samplers else None, wall, b.cores,
                     None if before[name] is None or after[name] is None else after[name] - before[name])
        for name, b in backends.items())
    return Result(nodeid=nodeid, test=test, variant=server.name, app=server.app, workload=workload.name,
                  connections=connections, warmup_s=warmup_s, warmup_rps=tuple(warmup_rps),
                  warmup_settled=warmup_settled, url=url, load=load, generator=generator,
                  server_cpu_s=usage.cpu_s if usage else None, server_rss_mb=usage.rss_mb if usage else None,
                  machine=machine, python=python, backends=used, shape=label,
                  timestamp=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))


def drain(server: RunningServer, workload: Workload, timeout: float = 60.0) -> None:
    """Wait until the requests the warm-up left queued in the server are served.

    When wrk exits, requests it sent are still queued in the server (a sync worker's accept
    queue: 64 requests x 100 ms of /sleep are seconds of work) and would eat the measured
    window.  One request sent now is served after them; its answer (or failure) ends the wait.
    """
    try:
        fetch(server.url, workload.path, timeout=timeout)
    except OSError:
        pass  # a server that cannot answer shows it in the measured window


def run_trial(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver,
              duration: int, warmup: int, nodeid: str, test: str, machine: Mapping[str, Any],
              python: Mapping[str, Any], warmup_rounds: int = 1, settle: float = 0.05,
              backends: Mapping[str, Any] | None = None, shape: LoadShape | None = None,
              label: str | None = None) -> Result:
    """Drive ``workload`` for ``duration`` seconds after an unmeasured warm-up, at ``connections``
    or as ``shape`` says (connection reuse, an open-model rate: the driver must support it)."""
    extra = {} if shape is None else {k: v for k, v in (("requests_per_connection", shape.requests_per_connection),
                                                       ("rate", shape.rate)) if v is not None}
    label = label if label is not None else "" if shape is None else shape.label
    rps = warm_up(server, workload, connections, driver=driver, seconds=warmup, rounds=warmup_rounds, settle=settle,
                  shape=extra)
    drain(server, workload)
    return measure(server, workload, connections, driver=driver, duration=duration, nodeid=nodeid, test=test,
                   machine=machine, python=python, warmup_s=warmup * len(rps), warmup_rps=rps,
                   warmup_settled=settled(rps, settle) if len(rps) >= 2 else None, backends=backends,
                   shape=extra, label=label)


def check_alive(server: RunningServer) -> None:
    if server.process is not None and not server.process.alive():
        raise ServerDiedError(f"variant {server.name}", server.process.returncode, server.process.log_tail())
