"""One trial: warm up, then measure load while sampling the server.  Measurement only."""
from __future__ import annotations

import datetime as dt
import os
from typing import Any, Mapping

from .drivers import WrkDriver
from .errors import ServerDiedError
from .results import Generator, Result
from .sampling import TreeSampler
from .servers import RunningServer
from .workloads import Workload


def run_trial(server: RunningServer, workload: Workload, connections: int, *, driver: WrkDriver,
              duration: int, warmup: int, nodeid: str, test: str, machine: Mapping[str, Any],
              python: Mapping[str, Any]) -> Result:
    """Drive ``workload`` at ``connections`` for ``duration`` seconds after ``warmup`` seconds unmeasured."""
    url = server.url + workload.path
    if warmup > 0:
        driver.run(url, connections, warmup)
        _check_alive(server)
    if server.pid is not None:
        with TreeSampler(server.pid) as sampler:
            load, run = driver.run(url, connections, duration)
        usage = sampler.usage()
        cpu_s, rss_mb = usage.cpu_s, usage.rss_mb
    else:
        load, run = driver.run(url, connections, duration)
        cpu_s = rss_mb = None
    _check_alive(server)
    generator = Generator(driver.name, driver.version, max(1, min(driver.threads, connections)),
                          run.cpu_s, run.wall_s, os.cpu_count() or 1)
    return Result(nodeid=nodeid, test=test, variant=server.name, workload=workload.name, connections=connections,
                  warmup_s=warmup, url=url, load=load, generator=generator, server_cpu_s=cpu_s,
                  server_rss_mb=rss_mb, machine=machine, python=python,
                  timestamp=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))


def _check_alive(server: RunningServer) -> None:
    if server.process is not None and not server.process.alive():
        raise ServerDiedError(f"variant {server.name}", server.process.returncode, server.process.log_tail())
