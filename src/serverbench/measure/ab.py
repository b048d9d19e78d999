"""Same-session A/B: a base and a candidate arm measured in one session, judged by paired statistics.

Measurement only: the statistics live in :mod:`serverbench.judge.decision`.  Two designs:

* ``simultaneous`` (default, needs 2+ cores): per block, a fresh server of each arm is started
  and verified; both are warmed up; then rounds run both arms *at the same time*, each server
  and its own wrk pinned to one core, the cores swapped every round.  This machine's speed
  swings ±20% within seconds (measured: two identical servers measured 2 s apart differ by
  0.84–1.50×), so only measurements taken at the same instant cancel it; swapping cores each
  round cancels a per-core bias within a pair.  One pair = two rounds (one swap).
* ``sequential``: classic ABBA blocks, one arm at a time, a fresh server per trial.

After the saturated rounds, the same block drives both arms at a fixed sub-saturation rate (oha, open
model: by default half the base arm's saturated throughput) for latency p50/p90 and server CPU per
request, again simultaneously with the cores swapped.  The signals and which of them gate are data
(``SIGNALS``); alpha is split over the gated ones, so adding signals does not add false alarms.

A pair in which a load generator was saturated (or the base arm could not hold the fixed rate) is
discarded, not judged (counted in ``reruns``).  A borderline verdict on any signal gets one bounded
extension (half as many blocks again).
"""
from __future__ import annotations

import math
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..judge.decision import Decision, Policy, abba_order, combine, decide, pairs_from_abba, wilcoxon_min_pairs
from ..drivers.wrk import WrkDriver
from ..drivers.oha import OhaDriver
from ..errors import ConfigError
from .executors import missing_modules_in, pin_tree
from .machine import machine_info, python_info
from ..records.schema import Result, error_rate
from .servers import RunningServer, ServerPool, start_variant
from ..judge.signals import SIGNALS, gated_signals
from .trial import Trial, Warmup, drain, measure, run_trial, warm_up
from ..catalog.shapes import LoadShape
from ..catalog.apps import App
from ..catalog.matrix import Cell
from ..catalog.variants import Variant
from ..catalog.workloads import Workload

# The gate: a family-wise 1% false-failure budget per suite run, a 3% minimum effect, and a
# dispersion limit fitted to this machine (measured pair dispersion 2-17%; see README).
GATE_POLICY = Policy(alpha=0.01, min_effect=0.03, max_dispersion=0.15)
GATE_BLOCKS = 12  # simultaneous: one pair per block (fresh processes), so 12 pairs, 18 when extended


@dataclass(frozen=True)
class Arm:
    """What differs between base and candidate: interpreter, app code, environment."""

    label: str
    python: str = sys.executable
    apps_dir: Path = Path("apps")
    env: Mapping[str, str] = field(default_factory=dict)


DEFAULT_LOAD = 0.25  # the fixed rate: this fraction of the base arm's saturated throughput


def pairs_per_block(mode: str) -> int:
    """Simultaneous blocks give one pair (two fresh servers); sequential ABBA blocks give two."""
    return 1 if mode == "simultaneous" else 2


def default_mode() -> str:
    return "simultaneous" if len(os.sched_getaffinity(0)) >= 2 else "sequential"


def min_blocks(policy: Policy, rate: bool, mode: str = "simultaneous") -> int:
    """Fewest blocks whose pairs can reach every gated signal's significance level."""
    gated = gated_signals(rate)
    need = max(max(s.policy(policy, len(gated)).min_pairs, wilcoxon_min_pairs(s.policy(policy, len(gated)).cell_alpha))
               for s in gated)
    return math.ceil(need / pairs_per_block(mode))


@dataclass(frozen=True)
class ABRun:
    """Every measured window of both arms and the verdicts on them."""

    mode: str
    pairs: Mapping[str, tuple[tuple[float, ...], tuple[float, ...]]]  # signal -> (base values, cand values)
    decisions: Mapping[str, Decision]
    trials: tuple[Result, ...]
    reruns: int
    extended: bool
    error_rate: Mapping[str, float]
    peak_rss_mb: Mapping[str, float]
    seconds: float
    rate: float | None = None  # requests/s per arm of the fixed-rate windows; None: not measured

    @property
    def throughput(self) -> Decision:
        return self.decisions["throughput"]

    @property
    def cpu_per_request(self) -> Decision:
        return self.decisions["cpu"]

    @property
    def base_rps(self) -> tuple[float, ...]:
        return self.pairs["throughput"][0]

    @property
    def cand_rps(self) -> tuple[float, ...]:
        return self.pairs["throughput"][1]

    @property
    def gated(self) -> dict[str, Decision]:
        return {s.name: self.decisions[s.name] for s in SIGNALS if s.gated and s.name in self.decisions}

    @property
    def verdict(self) -> str:
        return combine(self.gated)


@dataclass
class _Setup:
    cell: Cell
    workload: Workload
    connections: int
    duration: int
    warmup: int
    driver: WrkDriver
    redis_url: str | None
    rate_driver: OhaDriver | None = None
    load: float = DEFAULT_LOAD
    rate: float | None = None  # fixed-rate windows' requests/s per arm: given, or set from the first block
    rate_duration: int = 2
    machine: Mapping[str, Any] = field(init=False)
    python: Mapping[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        # Identity is read once here, not in every measured window.
        self.machine = machine_info(f"wrk-{self.driver.version}")
        self.python = python_info()

    def start(self, arm: Arm, seed: int) -> ServerPool:
        """A fresh, verified server of ``arm``.  ``seed`` fixes PYTHONHASHSEED (unless the arm sets it): both
        arms of a block share it, so a pair compares the code at one hash layout, and blocks differ."""
        env = {"PYTHONHASHSEED": str(seed), **arm.env,
               **({"SERVERBENCH_REDIS_URL": self.redis_url} if self.redis_url else {})}
        pool = ServerPool(lambda c: start_variant(c.variant, app=c.app, apps_dir=arm.apps_dir, env=env,
                                                  python=arm.python), [self.workload.spec])
        pool.get(self.cell)
        return pool

    def window(self, server: RunningServer, label: str, cpus: Sequence[int] | None, rate: bool = False) -> Trial:
        """A saturated window of an arm's server, or (``rate``) one at the fixed rate."""
        shape = (LoadShape(self.connections, self.rate_duration, rate=self.rate) if rate
                 else LoadShape(self.connections, self.duration))
        return Trial(server, self.workload, shape, self.rate_driver if rate else self.driver,
                     nodeid=f"ab::{label}" + ("@rate" if rate else ""), test="ab", machine=self.machine,
                     python=self.python, cpus=cpus)

    def measure(self, server: RunningServer, label: str, cpus: Sequence[int] | None) -> Result:
        return measure(self.window(server, label, cpus))

    def measure_rate(self, server: RunningServer, label: str, cpus: Sequence[int] | None) -> Result:
        """One open-model window at the fixed rate (oha, latency from the intended send time)."""
        assert self.rate_driver is not None and self.rate is not None
        return measure(self.window(server, label, cpus, rate=True))

    def set_rate(self, base_rps: float) -> None:
        if self.rate_driver is not None and self.rate is None:
            self.rate = max(1.0, round(base_rps * self.load))

    def trial(self, arm: Arm, seed: int) -> tuple[Result, Result | None]:
        """A whole sequential trial: fresh server, warm-up, one measured window (and one at the fixed rate), stop."""
        pool = self.start(arm, seed)
        try:
            server = pool.get(self.cell)
            window = run_trial(self.window(server, arm.label, None), Warmup(self.warmup))
            self.set_rate(window.rps)
            if self.rate_driver is None:
                return window, None
            drain(server, self.workload)
            return window, self.measure_rate(server, arm.label, None)
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


def _swapped_rounds(servers: Mapping[str, RunningServer], b: int, window: Callable[[str, RunningServer, list[int]], Result]):
    """One pair: two rounds, both arms driven at once, each arm and its generator pinned to its own core, the
    cores swapped between the rounds; returns [{"A": window, "B": window}, {...}]."""
    rounds = []
    for r in range(2):
        core_a = (b + r) % 2
        cores = {"A": [core_a], "B": [1 - core_a]}
        for k, s in servers.items():
            pin_tree(s.pid, cores[k])
        windows = _parallel([lambda k=k, s=s: window(k, s, cores[k]) for k, s in servers.items()])
        rounds.append(dict(zip(servers, windows)))
    return rounds


def _simultaneous_blocks(setup: _Setup, base: Arm, cand: Arm, blocks: int, first_block: int):
    """Per block (fresh servers: one pair), yield (saturated pair, fixed-rate pair or []); a pair is two rounds of
    {"A": window, "B": window}.  A pair per pair of processes: CPU per request differs between two processes of
    the same code (measured: an A/A decision whose pairs shared processes, two pairs per block, judged CPU
    per request 5.7% "better"), so pairs that share processes are not independent."""
    arms = {"A": base, "B": cand}
    for b in range(first_block, first_block + blocks):
        order = ("A", "B") if b % 2 == 0 else ("B", "A")  # who starts (and is driven) first alternates
        pools: dict[str, ServerPool] = {}
        try:
            for k in order:
                pools[k] = setup.start(arms[k], seed=1000 + b)
            servers = {k: pools[k].get(setup.cell) for k in order}
            _parallel([lambda k=k, s=s: warm_up(setup.window(s, arms[k].label, None), Warmup(setup.warmup))
                       for k, s in servers.items()])
            saturated = _swapped_rounds(servers, b, lambda k, s, cpus: setup.measure(s, arms[k].label, cpus))
            at_rate: list = []
            if setup.rate_driver is not None:
                setup.set_rate(_geomean([rnd["A"].rps for rnd in saturated]))
                _parallel([lambda s=s: drain(s, setup.workload) for s in servers.values()])
                at_rate = _swapped_rounds(servers, b, lambda k, s, cpus: setup.measure_rate(s, arms[k].label, cpus))
            yield saturated, at_rate
        finally:
            for pool in pools.values():
                pool.close()


def _held(window: Result, rate: float) -> bool:
    """The open-model window delivered the rate it was asked for (within 5%)."""
    return window.load.good_requests >= 0.95 * rate * window.load.duration_s


def run_ab(variant: Variant, workload: Workload, base: Arm, cand: Arm, *, mode: str | None = None,
           blocks: int = GATE_BLOCKS, connections: int = 32, duration: int = 2, warmup: int = 1,
           driver: WrkDriver | None = None, redis_url: str | None = None,
           policy: Policy = GATE_POLICY, extend: bool = True, app: App | None = None,
           rate: float | str | None = "auto", load: float = DEFAULT_LOAD, rate_duration: int | None = None) -> ABRun:
    """Measure both arms (``variant`` serving ``app``, default its reference app) and decide each signal.

    ``rate``: the fixed request rate (per arm) of the latency and CPU-per-request windows; ``"auto"`` is
    ``load`` x the base arm's saturated throughput in the first block; ``None`` measures no fixed-rate
    windows (no latency verdict; CPU per request then comes from the saturated windows).
    ``policy.cells`` is the number of gated cells; alpha is further split over the gated signals.
    """
    cores = len(os.sched_getaffinity(0))
    mode = mode or default_mode()
    if mode == "simultaneous" and cores < 2:
        raise ConfigError(f"simultaneous A/B needs 2 cores, this process may use {cores}; use mode='sequential'")
    if mode not in ("simultaneous", "sequential"):
        raise ConfigError(f"unknown A/B mode {mode!r}; use 'simultaneous' or 'sequential'")
    if base.label == cand.label:
        raise ConfigError(f"the two arms need different labels, both are {base.label!r}")
    if workload.backends and redis_url is None:
        raise ConfigError(f"workload {workload.name} needs Redis: pass redis_url")
    if not (isinstance(load, (int, float)) and 0 < load < 1):
        raise ConfigError(f"load={load!r}: the fixed rate must be a fraction in (0, 1) of saturated throughput")
    if rate is not None and rate != "auto" and not (isinstance(rate, (int, float)) and rate > 0):
        raise ConfigError(f"rate={rate!r}: give requests/s > 0, 'auto' ({load:g} x the base throughput) or None")
    if workload.mix and rate is not None:
        raise ConfigError(f"workload {workload.name} is a URL mix; the fixed-rate driver (oha) runs one URL: "
                          "pass rate=None (--rate off)")
    app = app or variant.default_app
    if not variant.serves(app):
        raise ConfigError(f"{variant.name} loads {variant.interface} apps; {app.name} is {app.interface}")
    needed = list(dict.fromkeys(variant.requires + app.requires))
    lacking = {arm.label: missing_modules_in(arm.python, needed) for arm in (base, cand)}
    if any(lacking.values()):
        said = "; ".join(f"the {k} arm ({arm.python}) lacks {', '.join(v)}"
                         for arm in (base, cand) for k, v in [(arm.label, lacking[arm.label])] if v)
        raise ConfigError(f"both arms must be able to run {variant.name} serving {app.name}: {said}. "
                          f"Install it there ({variant.install or 'pip install ' + ' '.join(needed)}), or gate a "
                          "variant both environments have")
    rate_driver = None
    if rate is not None:
        rate_driver = OhaDriver()
        rate_driver.binary  # a missing oha is a usage error with the install, before any server starts
    setup = _Setup(Cell(variant, app), workload, connections, duration, warmup,
                   driver or WrkDriver(threads=1 if mode == "simultaneous" else 2), redis_url,
                   rate_driver, load, None if rate in (None, "auto") else float(rate), rate_duration or duration)
    started = time.monotonic()
    trials: list[Result] = []
    values: dict[str, tuple[list[float], list[float]]] = {s.name: ([], []) for s in SIGNALS}
    reruns = 0

    def add(signal: str, a: float, b: float) -> None:
        values[signal][0].append(a)
        values[signal][1].append(b)

    def collect(n_blocks: int, first: int) -> None:
        nonlocal reruns
        if mode == "simultaneous":
            for saturated, at_rate in _simultaneous_blocks(setup, base, cand, n_blocks, first):
                a, b = [rnd["A"] for rnd in saturated], [rnd["B"] for rnd in saturated]
                trials.extend(a + b)
                if any(w.generator.saturated for w in a + b):
                    reruns += 1  # generator-bound: the pair says nothing about the servers
                else:
                    add("throughput", _geomean([w.rps for w in a]), _geomean([w.rps for w in b]))
                    add("rss", max(w.server_rss_mb or 0.0 for w in a), max(w.server_rss_mb or 0.0 for w in b))
                    if rate_driver is None:
                        add("cpu", _cpu_per_request(a), _cpu_per_request(b))
                if not at_rate:
                    continue
                a, b = [rnd["A"] for rnd in at_rate], [rnd["B"] for rnd in at_rate]
                trials.extend(a + b)
                if any(w.generator.saturated or not _held(w, setup.rate) for w in a):
                    reruns += 1  # the base could not hold the rate: the rate is not sub-saturation
                else:
                    _add_rate_pair(add, a, b)
        else:
            order = abba_order(n_blocks)
            windows = [setup.trial(base if label == "A" else cand, seed=1000 + first + i // 4)
                       for i, label in enumerate(order)]
            for w, r in windows:
                trials.extend([w] + ([r] if r is not None else []))
                reruns += w.generator.saturated
            a_tp, b_tp = pairs_from_abba(order, [w for w, _ in windows])
            for wa, wb in zip(a_tp, b_tp):
                add("throughput", wa.rps, wb.rps)
                add("rss", wa.server_rss_mb or 0.0, wb.server_rss_mb or 0.0)
                if rate_driver is None:
                    add("cpu", _cpu_per_request([wa]), _cpu_per_request([wb]))
            if rate_driver is not None:
                for ra, rb in zip(*pairs_from_abba(order, [r for _, r in windows])):
                    _add_rate_pair(add, [ra], [rb])

    def judge() -> dict[str, Decision]:
        measured = [s for s in SIGNALS if s.name in ("throughput", "rss", "cpu") or rate_driver is not None]
        gated = len(gated_signals(rate_driver is not None))
        return {s.name: decide(values[s.name][0], values[s.name][1], s.policy(policy, gated)) for s in measured}

    collect(blocks, 0)
    decisions = judge()
    extended = False
    extends = {s.name for s in SIGNALS if s.extends}
    if extend and any(d.borderline for name, d in decisions.items() if name in extends):
        collect(max(1, blocks // 2), blocks)
        extended = True
        decisions = judge()
    by_arm = {arm.label: [t for t in trials if t.nodeid.split("@")[0] == f"ab::{arm.label}"] for arm in (base, cand)}
    return ABRun(mode, {k: (tuple(v[0]), tuple(v[1])) for k, v in values.items() if v[0]}, decisions, tuple(trials),
                 reruns, extended, {k: error_rate([w.load for w in v]) for k, v in by_arm.items()},
                 {k: max((t.server_rss_mb or 0.0) for t in v) if v else 0.0 for k, v in by_arm.items()},
                 time.monotonic() - started, setup.rate)


def _add_rate_pair(add: Callable[[str, float, float], None], a: Sequence[Result], b: Sequence[Result]) -> None:
    for q in ("p50", "p90"):
        add(q, _geomean([w.load.latency_ms[q] for w in a]), _geomean([w.load.latency_ms[q] for w in b]))
    add("cpu", _cpu_per_request(a), _cpu_per_request(b))


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
