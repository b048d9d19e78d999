"""One trial: warm up, then measure load while sampling the server.  Measurement only."""
from __future__ import annotations

import datetime as dt
import os
from typing import Any, Mapping, Sequence

from .drivers import WrkDriver
from .errors import ServerDiedError
from .results import Generator, Result
from .sampling import TreeSampler
from .servers import RunningServer
from .workloads import Workload


def settled(rps: Sequence[float], tolerance: float) -> bool:
    """Warm-up is over when the last round's rps is within ``tolerance`` of the round before it."""
    return len(rps) >= 2 and abs(rps[-1] - rps[-2]) <= tolerance * max(rps[-2], 1e-9)


def warm_up(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver, seconds: int,
            rounds: int = 1, settle: float = 0.05, cpus: Sequence[int] | None = None) -> tuple[float, ...]:
    """Unmeasured load, so caches, JITs and connection pools are warm before the measured window.

    Runs up to ``rounds`` rounds of ``seconds`` each and stops early once rps settles (a JIT
    such as PyPy's keeps speeding up for several rounds).  Returns the rps of every round.
    """
    rps: list[float] = []
    if seconds <= 0:
        return ()
    for _ in range(rounds):
        load, _ = driver.run(server.url + workload.path, connections, seconds, cpus=cpus)
        check_alive(server)
        rps.append(load.rps)
        if settled(rps, settle):
            break
    return tuple(rps)


def measure(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver, duration: int,
            nodeid: str, test: str, machine: Mapping[str, Any], python: Mapping[str, Any], warmup_s: int = 0,
            warmup_rps: Sequence[float] = (), warmup_settled: bool | None = None,
            cpus: Sequence[int] | None = None) -> Result:
    """One measured window: the driver's report, the server's CPU and peak RSS, the generator's CPU."""
    url = server.url + workload.path
    if server.pid is not None:
        with TreeSampler(server.pid) as sampler:
            load, run = driver.run(url, connections, duration, cpus=cpus)
        usage = sampler.usage()
        cpu_s, rss_mb = usage.cpu_s, usage.rss_mb
    else:
        load, run = driver.run(url, connections, duration, cpus=cpus)
        cpu_s = rss_mb = None
    check_alive(server)
    cores = len(cpus) if cpus is not None else (os.cpu_count() or 1)
    generator = Generator(driver.name, driver.version, max(1, min(driver.threads, connections)),
                          run.cpu_s, run.wall_s, cores)
    return Result(nodeid=nodeid, test=test, variant=server.name, app=server.app, workload=workload.name,
                  connections=connections, warmup_s=warmup_s, warmup_rps=tuple(warmup_rps),
                  warmup_settled=warmup_settled, url=url, load=load, generator=generator, server_cpu_s=cpu_s,
                  server_rss_mb=rss_mb, machine=machine, python=python,
                  timestamp=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))


def run_trial(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver,
              duration: int, warmup: int, nodeid: str, test: str, machine: Mapping[str, Any],
              python: Mapping[str, Any], warmup_rounds: int = 1, settle: float = 0.05) -> Result:
    """Drive ``workload`` at ``connections`` for ``duration`` seconds after an unmeasured warm-up."""
    rps = warm_up(server, workload, connections, driver=driver, seconds=warmup, rounds=warmup_rounds, settle=settle)
    return measure(server, workload, connections, driver=driver, duration=duration, nodeid=nodeid, test=test,
                   machine=machine, python=python, warmup_s=warmup * len(rps), warmup_rps=rps,
                   warmup_settled=settled(rps, settle) if len(rps) >= 2 else None)


def check_alive(server: RunningServer) -> None:
    if server.process is not None and not server.process.alive():
        raise ServerDiedError(f"variant {server.name}", server.process.returncode, server.process.log_tail())
