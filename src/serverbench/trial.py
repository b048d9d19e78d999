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


def warm_up(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver, seconds: int,
            cpus: Sequence[int] | None = None) -> None:
    """Unmeasured load, so caches, JITs and connection pools are warm before the measured window."""
    if seconds > 0:
        driver.run(server.url + workload.path, connections, seconds, cpus=cpus)
        check_alive(server)


def measure(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver, duration: int,
            nodeid: str, test: str, machine: Mapping[str, Any], python: Mapping[str, Any], warmup_s: int = 0,
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
    return Result(nodeid=nodeid, test=test, variant=server.name, workload=workload.name, connections=connections,
                  warmup_s=warmup_s, url=url, load=load, generator=generator, server_cpu_s=cpu_s,
                  server_rss_mb=rss_mb, machine=machine, python=python,
                  timestamp=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))


def run_trial(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver,
              duration: int, warmup: int, nodeid: str, test: str, machine: Mapping[str, Any],
              python: Mapping[str, Any]) -> Result:
    """Drive ``workload`` at ``connections`` for ``duration`` seconds after ``warmup`` seconds unmeasured."""
    warm_up(server, workload, connections, driver=driver, seconds=warmup)
    return measure(server, workload, connections, driver=driver, duration=duration, nodeid=nodeid, test=test,
                   machine=machine, python=python, warmup_s=warmup)


def check_alive(server: RunningServer) -> None:
    if server.process is not None and not server.process.alive():
        raise ServerDiedError(f"variant {server.name}", server.process.returncode, server.process.log_tail())
