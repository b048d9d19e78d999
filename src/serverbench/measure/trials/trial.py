"""One trial: warm up, then measure load while sampling the server.  Measurement only."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from ...backends.base import Service
from ...catalog.shapes import LoadShape
from ...catalog.windows import DEFAULT_POLICY, WindowPolicy, again_lead_s, edge_share, longer_window_s
from ...catalog.workloads import Workload
from ...drivers.base import Driver
from ...errors import ServerDiedError
from ...processes.executors import stop_generators
from ...records.schema import BackendUsage, Generator, Result, SlowClientReport
from ..host.gil import read as read_gil
from ..host.hostcpu import HostCPU, HostSampler
from ..host.kernel import listen_counters, window
from ..host.remotetree import RemoteTreeSampler
from ..host.sampling import TreeSampler, Usage
from ..serving.servers import RunningServer
from ..serving.verify import fetch
from .slowclients import held


def settled(rps: Sequence[float], tolerance: float) -> bool:
    """Warm-up is over when the last round's rps is within ``tolerance`` of the round before it."""
    return len(rps) >= 2 and abs(rps[-1] - rps[-2]) <= tolerance * max(rps[-2], 1e-9)


@dataclass(frozen=True)
class Trial:
    """What one trial runs and the context its record carries: a workload driven as ``shape`` says
    against a server, by a driver (optionally pinned to ``cpus``), with the backends it uses sampled."""

    server: RunningServer
    workload: Workload
    shape: LoadShape
    driver: Driver
    nodeid: str
    test: str
    machine: Mapping[str, Any]
    python: Mapping[str, Any]
    backends: Mapping[str, Service] = field(default_factory=dict)
    cpus: Sequence[int] | None = None
    progress: Callable[[str, int], None] | None = None  # told each phase as it begins: ("warm-up", k), ("measure", 0)
    # A context manager around the measured load (a backend fault, measure.trials.faults).
    during: Callable[[], Any] | None = None
    # The driver of the warm-up rounds when not the trial's own: a locust scenario warms up with wrk on the same URL mix
    # at as many connections as it has users (the same endpoints, without a Python generator's seconds of start-up).
    warmup_driver: Driver | None = None

    def report(self, phase: str, round: int = 0) -> None:
        if self.progress is not None:
            self.progress(phase, round)

    def run_load(self, duration: int):
        """The driver on this trial's URL for ``duration`` seconds of its shape: (LoadReport, generator run)."""
        sends = {} if self.workload.request is None else {"request": self.workload.request}  # a user's endpoint
        return self.driver.run(
            self.server.url + self.workload.path,
            replace(self.shape, duration=duration),
            cpus=self.cpus,
            mix=self.workload.mix,
            **sends,
        )


@dataclass(frozen=True)
class Warmup:
    """Unmeasured load before the window: up to ``rounds`` rounds of ``seconds``, stopping once rps settles."""

    seconds: float
    rounds: int = 1
    settle: float = 0.05


def lead_in_s(trial: Trial) -> float:
    """Seconds of load the trial's driver runs before its window in the same run (oha's closed model: the lead-in,
    which is the trial's warm-up too); 0 for a driver or shape without one."""
    if trial.shape.rate is not None or trial.shape.workers is not None:
        return 0.0
    return float(getattr(trial.driver, "lead_s", 0) or 0)


def warm_up(trial: Trial, warmup: Warmup) -> tuple[float, ...]:
    """Unmeasured load, so caches, JITs and connection pools are warm before the measured window.

    Runs up to ``rounds`` rounds and stops early once rps settles (a JIT such as PyPy's keeps
    speeding up for several rounds).  Returns the rps of every round.  A driver with a lead-in runs each round
    as a run of its own with none (nor a trail).
    """
    rps: list[float] = []
    if warmup.seconds <= 0:
        return ()
    plain = trial
    if trial.warmup_driver is not None:
        plain = replace(trial, driver=trial.warmup_driver, shape=replace(trial.shape, workers=None, ramp=0.0))
    elif lead_in_s(trial):
        plain = replace(trial, driver=replace(trial.driver, lead_s=0, trail_s=0))
    for k in range(warmup.rounds):
        trial.report("warm-up", k + 1)
        load, _ = plain.run_load(max(1, round(warmup.seconds)))
        check_alive(trial.server)
        rps.append(load.rps)
        if settled(rps, warmup.settle):
            break
    return tuple(rps)


@contextmanager
def _generators_stopped_on_interrupt() -> Iterator[None]:
    """Ctrl-C (or SIGTERM's exit) while a lead-in run loads the server from the pool's thread: the generators are killed
    before the pool waits for that thread, so the session stops now, not when the run would have ended (up to a minute;
    the thread does not see the main thread's KeyboardInterrupt).  Another error waits for the run, as before."""
    try:
        yield
    except (KeyboardInterrupt, SystemExit):
        stop_generators()
        raise


def measure(trial: Trial, warmup: Warmup | None = None, warmup_rps: Sequence[float] = ()) -> Result:
    """One measured window: the driver's report, the server's CPU, peak RSS and PSS (and its memory over
    time), the generator's CPU, and for each backend its CPU and the operations it counted during the window.  ``warmup`` and
    ``warmup_rps`` say what came before, for the record."""
    server, backends = trial.server, dict(trial.backends)
    # A driver with a lead-in (oha's closed model) loads the server before its window in the same run:
    # the samplers below open when its window does, and the run ends after the window's in-flight answers.
    lead = lead_in_s(trial)
    with ThreadPoolExecutor(1) as pool, _generators_stopped_on_interrupt():
        # The counters before the run too: its answered requests (lead-in and window) are compared with what the
        # backends counted until it had every answer, with no clock to align between oha and this process.
        run_before = {name: b.count() for name, b in backends.items()} if lead else {}
        run_listen_before = listen_counters() if lead else {}  # the kernel's drops over the run, for its errors
        running = pool.submit(trial.run_load, trial.shape.duration) if lead else None
        if running is not None:
            trial.report("lead-in")
            time.sleep(lead)
        with ExitStack() as stack:  # the window: closed before a lead-in run's in-flight answers come in
            # The operation counters first: a lead-in run's window opened as the sleep ended, and every operation of
            # a request sent in it must fall after this reading (the work check's low bound).
            before = {name: b.count() for name, b in backends.items()}
            sampler, samplers = _samplers(stack, server, backends)
            reported = {name: b.cpu_s() for name, b in backends.items() if name not in samplers}  # no pid here
            listen_before = listen_counters()
            host = HostSampler()  # the whole machine's CPU: neighbours show here
            if trial.during is not None:
                stack.enter_context(trial.during())
            slow = stack.enter_context(held(server.url + trial.workload.path, trial.shape, trial.cpus))  # c16+idle16
            trial.report("measure")
            started = time.monotonic()
            if running is None:
                load, run = trial.run_load(trial.shape.duration)
            else:
                time.sleep(max(0.0, trial.shape.duration - (time.monotonic() - started)))
            wall = time.monotonic() - started
            reported = {name: _used(cpu, backends[name].cpu_s()) for name, cpu in reported.items()}
            listen = window(listen_before, listen_counters())
            host_cpu = host.stop()
        window_after = after = {name: b.count() for name, b in backends.items()}
        if running is not None:
            trial.report("trail")  # the driver's load after the window, then its report
            load, run = running.result()
            # The window's requests are those sent in it, answered up to a timeout after it: their operations are
            # counted until the run has every answer (the window's own count is kept beside, as window_ops).
            after = {name: b.count() for name, b in backends.items()}
            listen |= {f"run_{k}": v for k, v in window(run_listen_before, listen_counters()).items()}
    trial.report("analysis")
    usage = sampler.usage() if sampler is not None else None
    check_alive(server)
    generator = _generator(trial, run)
    answers = (window_after, run_before) if running is not None else None
    used = _backend_usages(backends, samplers, reported, wall, before, after, answers)
    return _result(
        trial,
        load,
        generator,
        usage,
        used,
        listen,
        slow.report,
        host_cpu,
        _warmup_fields(warmup, warmup_rps, lead, load.lead_rps),
    )


def _samplers(
    stack: ExitStack, server: RunningServer, backends: Mapping[str, Service]
) -> tuple[TreeSampler | RemoteTreeSampler | None, dict[str, TreeSampler]]:
    """The window's samplers, opened on ``stack``: the server's tree (here, or on the server host: None without a
    pid) and each backend's CPU."""
    sampler = stack.enter_context(server.sampler()) if server.pid is not None else None
    samplers = {
        name: stack.enter_context(TreeSampler(b.pid, memory=False)) for name, b in backends.items() if b.pid is not None
    }
    return sampler, samplers


def _result(
    trial: Trial,
    load: Any,
    generator: Generator,
    usage: Usage | None,
    used: tuple[BackendUsage, ...],
    listen: dict,
    slow_clients: SlowClientReport | None,
    host_cpu: HostCPU,
    warmed: dict,
) -> Result:
    """The window's record: what was measured, under the trial's names (``warmed``: its warm-up fields)."""
    server = trial.server
    return Result(
        nodeid=trial.nodeid,
        test=trial.test,
        variant=server.name,
        app=server.app,
        workload=trial.workload.name,
        shape=trial.shape,
        **warmed,
        url=server.url + trial.workload.path,
        load=load,
        generator=generator,
        server_cpu_s=usage.cpu_s if usage else None,
        server_rss_mb=usage.rss_mb if usage else None,
        machine=trial.machine,
        python=trial.python,
        backends=used,
        kernel=listen,
        slow_clients=slow_clients,
        host_cpu_s=host_cpu.busy_s,
        host_steal_s=host_cpu.steal_s,
        host_wall_s=host_cpu.wall_s,
        server_pss_mb=usage.pss_mb if usage else None,
        server_pss_end_mb=usage.pss_end_mb if usage else None,
        memory=memory_record(usage) if usage else {},
        extra=sampled_record(usage, server),
        gil=read_gil(server.gil_dir),  # the state at the window's end (None: not a free-threaded server)
        timestamp=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )


def _generator(trial: Trial, run: Any) -> Generator:
    """The generator's record: its threads (at most one a connection), CPU and wall of its run, the cores."""
    cores = len(trial.cpus) if trial.cpus is not None else (os.cpu_count() or 1)
    hosts = tuple(getattr(run, "hosts", ()))  # load hosts (docs/hosts.md): their cores, not this machine's
    return Generator(
        trial.driver.name,
        trial.driver.version,
        max(1, min(trial.driver.threads, trial.shape.connections)),
        run.cpu_s,
        run.wall_s,
        sum(h.cores for h in hosts) if hosts else cores,
        getattr(trial.driver, "timeout_s", None),
        getattr(run, "run_queue", None),
        hosts,
    )


def _backend_usages(
    backends: Mapping[str, Service],
    samplers: Mapping[str, TreeSampler],
    reported: Mapping[str, float | None],
    wall: float,
    before: Mapping[str, int | None],
    after: Mapping[str, int | None],
    answers: tuple[Mapping[str, int | None], Mapping[str, int | None]] | None,
) -> tuple[BackendUsage, ...]:
    """Each backend's CPU over the window (its process sampled, or as it reported it: ``reported``) and the operations
    it counted; with a lead-in run (``answers``: the counters as the window closed and before the run began), also the
    window's own count and the whole run's."""
    return tuple(
        BackendUsage(
            name,
            b.kind,
            samplers[name].usage().cpu_s if name in samplers else reported.get(name),
            wall,
            b.cores,
            _ops(before[name], after[name]),
            *(
                ("answers", _ops(before[name], answers[0][name]), _ops(answers[1][name], after[name]))
                if answers is not None
                else ()
            ),
        )
        for name, b in backends.items()
    )


def _warmup_fields(
    warmup: Warmup | None, warmup_rps: Sequence[float], lead: float, lead_rps: Sequence[float]
) -> dict[str, Any]:
    """The warm-up as recorded: its rounds, or (none run) the lead-in of this run, its rate per slice."""
    rps = warmup_rps or lead_rps
    return {
        "warmup_s": (warmup.seconds if warmup else 0) * len(warmup_rps) if warmup_rps or not lead else lead,
        "warmup_rps": tuple(rps),
        "warmup_settled": settled(rps, warmup.settle) if warmup and len(rps) >= 2 else None,
    }


def _used(before: float | None, after: float | None) -> float | None:
    """CPU seconds a backend reported using between two readings (None: it reported none, or its counter went back,
    a restart)."""
    return None if before is None or after is None or after < before else after - before


def _ops(before: int | None, after: int | None) -> int | None:
    """Operations a backend counted between two readings of its counter (None: it keeps none)."""
    return None if before is None or after is None else after - before


def sampled_record(usage: Usage | None, server: RunningServer) -> dict[str, Any]:
    """The record's ``extra["sampler"]``: where the server's tree was read, the sampler's own CPU there, and why the
    server's CPU was not measured when it was not (a CPU never read is None with its reason, never 0.0)."""
    if usage is None:
        why = "serverbench has no pid of the server to sample (--perf-target without --perf-target-pid)"
        return {"sampler": {"where": server.where or "this machine", "server_cpu_unmeasured": why}}
    return {
        "sampler": {
            "where": usage.sampled_on if server.where is None else f"{server.where} (the server host)",
            "cpu_s": usage.sampler_cpu_s,
            **({"server_cpu_unmeasured": usage.unmeasured} if usage.unmeasured is not None else {}),
            **({"server_host_cpu": usage.host_cpu} if usage.host_cpu is not None else {}),
        }
    }


def memory_record(usage: Usage) -> dict[str, Any]:
    """The record's ``memory`` object: the tree's USS at peak PSS, each process at the end, the samples."""
    if usage.pss_mb is None and not usage.series:
        return {}
    return {"uss_mb": usage.uss_mb, "processes": list(usage.per_process), "series": usage.series}


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


def run_trial(
    trial: Trial,
    warmup: Warmup,
    longer: Callable[[int, float | None], Trial] | None = None,
    policy: WindowPolicy = DEFAULT_POLICY,
) -> Result:
    """Warm up, then measure one window.  A closed run with a lead-in (oha) warms the server up in its own lead-in, so
    a separate warm-up (then a wait for what it left queued) runs only for a driver without one or for more than one
    round (PyPy's JIT).  With ``longer`` (the perf suite: this trial in a window of so many seconds, its driver sized to
    it, and a lead-in when not None), a steady window that did not converge (its edges did not cancel, or its
    throughput is less precise than ``policy`` asks: catalog.windows.longer_window_s) is measured once more in a window
    sized to converge, right after it, with a longer lead-in when the run's first requests were still being answered
    as the window opened (catalog.windows.again_lead_s); the record keeps the first as ``extra["short_window"]``."""
    rps = warm_up(trial, warmup) if not lead_in_s(trial) or warmup.rounds > 1 else ()
    if rps:
        drain(trial.server, trial.workload)
    result = asked(measure(trial, warmup, rps), policy)
    load = result.load
    drops = result.kernel.get("run_listen_drops", result.kernel.get("listen_drops", 0)) or 0
    seconds = None if longer is None else longer_window_s(load, trial.shape.connections, drops, policy)
    if seconds is None:
        return result
    trial.report("again")
    again = asked(measure(longer(seconds, again_lead_s(load)), warmup, rps), policy)
    short = {
        "duration_s": load.duration_s,
        "requests": load.requests,
        "rps": round(load.rps, 1),
        "latency_mean_ms": round(load.latency_ms["mean"], 3),
        "carried_in_s": round(load.carried_in_s, 3),
        "carried_out_s": round(load.carried_out_s, 3),
        "first_wait_s": round(load.first_wait_s or 0.0, 3),
        "edge_share": round(edge_share(load, trial.shape.connections), 4),
        **({"precision": dict(load.precision)} if load.precision else {}),
    }
    return replace(again, extra={**again.extra, "short_window": short})


def asked(result: Result, policy: WindowPolicy) -> Result:
    """The result with the precision its window was asked for beside the one it reached (a steady window's)."""
    if result.load.precision is None:
        return result
    return replace(result, load=replace(result.load, precision={**result.load.precision, "asked": policy.precision}))


def check_alive(server: RunningServer) -> None:
    if server.process is not None and not server.process.alive():
        raise ServerDiedError(f"variant {server.name}", server.process.returncode, server.process.log_tail())
