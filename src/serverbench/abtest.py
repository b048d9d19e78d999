"""Same-session A/B: a base and a candidate arm measured in one session, judged by paired statistics.

Measurement only: the statistics live in :mod:`serverbench.decision`.  Two designs:

* ``simultaneous`` (default, needs 2+ cores): per block, a fresh server of each arm is started
  and verified; both are warmed up; then rounds run both arms *at the same time*, each server
  and its own wrk pinned to one core, the cores swapped every round.  This machine's speed
  swings ±20% within seconds (measured: two identical servers measured 2 s apart differ by
  0.84–1.50×), so only measurements taken at the same instant cancel it; swapping cores each
  round cancels a per-core bias within a pair.  One pair = two rounds (one swap).
* ``sequential``: classic ABBA blocks, one arm at a time, a fresh server per trial.

A pair in which a load generator was saturated is discarded, not judged (counted in ``reruns``).  A borderline
throughput verdict gets one bounded extension (half as many blocks again).
"""
from __future__ import annotations

import math
import os
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .decision import Decision, Policy, abba_order, decide, pairs_from_abba
from .drivers import WrkDriver
from .errors import ConfigError
from .executors import pin_tree
from .machine import machine_info, python_info
from .results import Result, error_rate
from .servers import RunningServer, ServerPool, start_variant
from .trial import measure, run_trial, warm_up
from .apps import App
from .matrix import Cell
from .variants import Variant
from .workloads import Workload

# The gate: a family-wise 1% false-failure budget per suite run, a 3% minimum effect, and a
# dispersion limit fitted to this machine (measured pair dispersion 2-17%; see README).
GATE_POLICY = Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)
GATE_BLOCKS = 6


@dataclass(frozen=True)
class Arm:
    """What differs between base and candidate: interpreter, app code, environment."""

    label: str
    python: str = sys.executable
    apps_dir: Path = Path("apps")
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ABRun:
    """Every measured window of both arms and the verdicts on them."""

    mode: str
    base_rps: tuple[float, ...]
    cand_rps: tuple[float, ...]
    trials: tuple[Result, ...]
    reruns: int
    extended: bool
    throughput: Decision
    cpu_per_request: Decision
    error_rate: Mapping[str, float]
    peak_rss_mb: Mapping[str, float]
    seconds: float

    @property
    def verdict(self) -> str:
        return self.throughput.verdict


@dataclass
class _Setup:
    cell: Cell
    workload: Workload
    connections: int
    duration: int
    warmup: int
    driver: WrkDriver
    redis_url: str | None
    machine: Mapping[str, Any] = field(init=False)
    python: Mapping[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        # Identity is read once here, not in every measured window.
        self.machine = machine_info(f"wrk-{self.driver.version}")
        self.python = python_info()

    def start(self, arm: Arm) -> ServerPool:
        env = {**arm.env, **({"SERVERBENCH_REDIS_URL": self.redis_url} if self.redis_url else {})}
        pool = ServerPool(lambda c: start_variant(c.variant, app=c.app, apps_dir=arm.apps_dir, env=env,
                                                  python=arm.python), [self.workload.spec])
        pool.get(self.cell)
        return pool

    def measure(self, server: RunningServer, label: str, cpus: Sequence[int] | None) -> Result:
        return measure(server, self.workload, self.connections, driver=self.driver, duration=self.duration,
                       nodeid=f"ab::{label}", test="ab", machine=self.machine, python=self.python,
                       warmup_s=self.warmup, cpus=cpus)

    def trial(self, arm: Arm) -> Result:
        """A whole sequential trial: fresh server, warm-up, one measured window, stop."""
        pool = self.start(arm)
        try:
            server = pool.get(self.cell)
            return run_trial(server, self.workload, self.connections, driver=self.driver, duration=self.duration,
                             warmup=self.warmup, nodeid=f"ab::{arm.label}", test="ab", machine=self.machine,
                             python=self.python)
        finally:
            pool.close()


def _parallel(calls: Sequence[Callable[[], object]]) -> list:
    """Run the calls at the same time in threads; re-raise the first failure."""
    out: list = [None] * len(calls)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            out[i] = calls[i]()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return out


def _geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-9)) for v in values) / len(values))


def _simultaneous_blocks(setup: _Setup, base: Arm, cand: Arm, blocks: int, first_block: int):
    """Yield the rounds of each pair ({"A": base window, "B": candidate window}), two rounds (one core swap) a pair."""
    arms = {"A": base, "B": cand}
    for b in range(first_block, first_block + blocks):
        order = ("A", "B") if b % 2 == 0 else ("B", "A")  # who starts (and is driven) first alternates
        pools: dict[str, ServerPool] = {}
        try:
            for k in order:
                pools[k] = setup.start(arms[k])
            servers = {k: pools[k].get(setup.cell) for k in order}
            _parallel([lambda s=s: warm_up(s, setup.workload, setup.connections, driver=setup.driver,
                                           seconds=setup.warmup) for s in servers.values()])
            for swap in range(2):
                rounds = []
                for r in range(2):
                    core_a = (b + swap + r) % 2
                    cores = {"A": [core_a], "B": [1 - core_a]}
                    for k, s in servers.items():
                        pin_tree(s.pid, cores[k])
                    windows = _parallel([lambda k=k, s=s: setup.measure(s, arms[k].label, cores[k])
                                         for k, s in servers.items()])
                    rounds.append(dict(zip(servers, windows)))
                yield rounds
        finally:
            for pool in pools.values():
                pool.close()


def run_ab(variant: Variant, workload: Workload, base: Arm, cand: Arm, *, mode: str | None = None,
           blocks: int = GATE_BLOCKS, connections: int = 32, duration: int = 2, warmup: int = 1,
           driver: WrkDriver | None = None, redis_url: str | None = None,
           policy: Policy = GATE_POLICY, extend: bool = True, app: App | None = None) -> ABRun:
    """Measure both arms (``variant`` serving ``app``, default its reference app) and decide on
    throughput and on server CPU per request."""
    cores = len(os.sched_getaffinity(0))
    mode = mode or ("simultaneous" if cores >= 2 else "sequential")
    if mode == "simultaneous" and cores < 2:
        raise ConfigError(f"simultaneous A/B needs 2 cores, this process may use {cores}; use mode='sequential'")
    if mode not in ("simultaneous", "sequential"):
        raise ConfigError(f"unknown A/B mode {mode!r}; use 'simultaneous' or 'sequential'")
    if base.label == cand.label:
        raise ConfigError(f"the two arms need different labels, both are {base.label!r}")
    if workload.backends and redis_url is None:
        raise ConfigError(f"workload {workload.name} needs Redis: pass redis_url")
    app = app or variant.default_app
    if not variant.serves(app):
        raise ConfigError(f"{variant.name} loads {variant.interface} apps; {app.name} is {app.interface}")
    setup = _Setup(Cell(variant, app), workload, connections, duration, warmup,
                   driver or WrkDriver(threads=1 if mode == "simultaneous" else 2), redis_url)
    started = time.monotonic()
    trials: list[Result] = []
    pairs: list[tuple[float, float, float, float]] = []  # base rps, cand rps, base cpu/req, cand cpu/req
    reruns = 0

    def collect(n_blocks: int, first: int) -> None:
        nonlocal reruns
        if mode == "simultaneous":
            for rounds in _simultaneous_blocks(setup, base, cand, n_blocks, first):
                if any(w.generator.saturated for rnd in rounds for w in rnd.values()):
                    reruns += 1  # generator-bound: the pair says nothing about the servers
                    continue
                a = [rnd["A"] for rnd in rounds]
                b = [rnd["B"] for rnd in rounds]
                trials.extend(a + b)
                pairs.append((_geomean([w.rps for w in a]), _geomean([w.rps for w in b]),
                              _cpu_per_request(a), _cpu_per_request(b)))
        else:
            order = abba_order(n_blocks)
            windows = []
            for label in order:
                w = setup.trial(base if label == "A" else cand)
                reruns += w.generator.saturated
                windows.append(w)
            trials.extend(windows)
            rps_a, rps_b = pairs_from_abba(order, [w.rps for w in windows])
            cpu_a, cpu_b = pairs_from_abba(order, [_cpu_per_request([w]) for w in windows])
            pairs.extend(zip(rps_a, rps_b, cpu_a, cpu_b))

    collect(blocks, 0)
    throughput = decide([p[0] for p in pairs], [p[1] for p in pairs], policy)
    extended = False
    if extend and throughput.borderline:
        collect(max(1, blocks // 2), blocks)
        extended = True
        throughput = decide([p[0] for p in pairs], [p[1] for p in pairs], policy)
    cpu = decide([p[2] for p in pairs], [p[3] for p in pairs], replace(policy, higher_is_better=False))
    by_arm = {arm.label: [t for t in trials if t.nodeid == f"ab::{arm.label}"] for arm in (base, cand)}
    return ABRun(mode, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), tuple(trials), reruns, extended,
                 throughput, cpu, {k: error_rate([w.load for w in v]) for k, v in by_arm.items()},
                 {k: max((t.server_rss_mb or 0.0) for t in v) if v else 0.0 for k, v in by_arm.items()},
                 time.monotonic() - started)


def run_gated(variant: Variant, workload: Workload, base: Arm, cand: Arm, *, retries: int = 1,
              blocks: int = GATE_BLOCKS, on_retry: Callable[[ABRun, int], None] | None = None, **kwargs) -> ABRun:
    """run_ab, repeated with twice the blocks (at most ``retries`` times) while it is too noisy or inconclusive."""
    for attempt in range(max(retries, 0) + 1):
        run = run_ab(variant, workload, base, cand, blocks=blocks, **kwargs)
        if run.verdict not in ("rerun", "inconclusive") or attempt == max(retries, 0):
            return run
        blocks *= 2
        if on_retry is not None:
            on_retry(run, blocks)
    return run


def _cpu_per_request(windows: Sequence[Result]) -> float:
    requests = sum(w.load.good_requests for w in windows)
    return sum(w.server_cpu_s or 0.0 for w in windows) / max(requests, 1) * 1e6
