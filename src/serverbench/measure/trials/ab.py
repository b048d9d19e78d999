"""Same-session A/B measurement: the base and candidate arms of an :class:`~serverbench.gate.plan.ABPlan`
measured in one session, as paired values per signal.  Measurement only: nothing here judges (the pairs
go to :mod:`serverbench.judge.ab` as a :class:`~serverbench.records.decisions.Measurement`).  Two designs:

* ``simultaneous`` (default, needs 2+ cores): per block, a fresh server of each arm is started
  and verified; both are warmed up; then rounds run both arms *at the same time*, each server
  and its own wrk pinned to one core, the cores swapped every round.  This machine's speed
  swings ±20% within seconds (measured: two identical servers measured 2 s apart differ by
  0.84–1.50×), so only measurements taken at the same instant cancel it; swapping cores each
  round cancels a per-core bias within a pair.  One pair = two rounds (one swap).
* ``sequential``: classic ABBA blocks, one arm at a time, a fresh server per trial.

After the saturated rounds, the same block drives both arms at a fixed sub-saturation rate (oha, open
model: by default a quarter of the base arm's saturated throughput) for latency p50/p90 and server CPU
per request, again simultaneously with the cores swapped.  Both arms of a block share PYTHONHASHSEED
1000 + block (unless an arm sets it): a pair compares the code at one hash layout, and blocks differ.

A simultaneous pair in which a load generator was saturated (or the base arm could not hold the fixed
rate) is discarded, not paired (counted in ``reruns``).  Every window keeps its arm as a field.
"""

from __future__ import annotations

import atexit
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable

from ...catalog.shapes import LoadShape
from ...drivers.base import CellLoad, Driver, driver_for
from ...hosts.connected import ConnectedHosts
from ...processes.executors import pin_tree
from ...processes.together import at_once
from ...records.decisions import Measurement, Window
from ...records.schema import Result
from ..host.interpreter import describe_of
from ..host.machine import run_machine
from ..serving.reset import reset_app
from ..serving.servers import RunningServer, ServerPool, start_variant
from .arms import Arm, RunnerPlan
from .trial import Trial, Warmup, drain, measure, run_trial, warm_up

if TYPE_CHECKING:  # annotations only: the counted runs' types
    from ...records.cost import CostRecord
    from ..counting.cost import CostPlan


def abba_order(blocks: int) -> list[str]:
    """Trial order of `blocks` counterbalanced ABBA blocks (A = base, B = candidate)."""
    if isinstance(blocks, bool) or not isinstance(blocks, int) or blocks < 1:
        raise ValueError(f"blocks={blocks!r} is invalid; accepted: an integer >= 1")
    return ["A", "B", "B", "A"] * blocks


def pairs_from_abba(order: Sequence[str], values: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Split interleaved trials into (base, cand), pairing the 1st A with the 1st B and the
    2nd A with the 2nd B of each 4-trial block. Blocks must be ABBA (or the mirrored BAAB)."""
    order, values = list(order), list(values)
    if len(order) != len(values):
        raise ValueError(f"order and values differ in length: {len(order)} != {len(values)}")
    if not order or len(order) % 4:
        raise ValueError(f"need a positive multiple of 4 trials (whole ABBA blocks), got {len(order)}")
    base, cand = [], []
    for k in range(0, len(order), 4):
        block = "".join(str(x) for x in order[k : k + 4])
        if block not in ("ABBA", "BAAB"):
            raise ValueError(f"block {k // 4} is {order[k : k + 4]!r}; each block must be ABBA or BAAB")
        base += [values[k + j] for j in range(4) if block[j] == "A"]
        cand += [values[k + j] for j in range(4) if block[j] == "B"]
    return base, cand


class Clock:
    """Wall seconds by phase (:data:`~serverbench.records.decisions.PHASE_NAMES`): where a decision's time went."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, phase: str, seconds: float) -> None:
        self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.add(name, time.monotonic() - started)


class _Rig:
    """What every window of one measurement shares: the plan, the drivers, the machine's identity, the rate."""

    def __init__(self, plan: RunnerPlan, rate: float | None):
        self.plan = plan
        self.clock = Clock()
        self.starter = ThreadPoolExecutor(2, thread_name_prefix="serverbench-ab-start")  # see start_both
        self.arms = {"A": plan.base, "B": plan.candidate}
        self.rate_driver: Driver | None = None
        # With an inventory the generators run on its load hosts, the servers here bound to the server host's address.
        self.hosts = connected_hosts(plan.hosts) if plan.hosts else None
        places = self.hosts.places if self.hosts is not None else ()
        if plan.rate is not None:  # any rate: the open-model driver; a missing oha fails before any server starts
            self.rate_driver = driver_for(LoadShape(plan.connections, plan.rate_duration, rate=1.0), places=places)
            self.rate_driver.check()
        threads = 1 if plan.mode == "simultaneous" else 2
        saturated = LoadShape(plan.connections, plan.duration)
        # The timeout sized to the cell, as in the perf suite; the warm-up is a run of its own (no warmup_s).
        load = CellLoad(plan.cell.variant, plan.workload, saturated)
        self.driver = driver_for(saturated, threads=threads, places=places).sized(load)
        self.machine = run_machine(self.driver, len(places))  # read once here, not in every measured window
        # Each arm's interpreter as its records name it (an upgrade's arms run on two): described once, here.
        self.pythons = {arm.label: describe_of(arm.python) for arm in self.arms.values()}
        # The fixed rate: kept from an earlier part of the attempt, given, or set from the first block.
        self.rate = rate if rate is not None else (None if plan.rate in (None, "auto") else float(plan.rate))

    def start(self, arm: Arm, seed: int, took: dict[str, float] | None = None) -> ServerPool:
        """A fresh, verified server of ``arm``, its hash seed ``seed`` (unless the arm sets it).  ``took``: where
        the seconds its start and its verification took are written (else they go to the clock)."""
        plan = self.plan
        env = {"PYTHONHASHSEED": str(seed), **arm.env, **plan.backend_env}
        reset(plan, arm)
        began = {}

        def progress(phase: str, _round: int) -> None:  # ServerPool says "start", then "verify"
            began[phase] = time.monotonic()

        pool = ServerPool(
            lambda c: start_variant(
                c.variant,
                app=c.app,
                apps_dir=arm.apps_dir,
                env=env,
                python=arm.python,
                host=self.hosts.server_address if self.hosts is not None else None,
            ),
            [plan.workload.spec],
            progress,
        )
        pool.get(plan.cell)
        spent = {"start": began["verify"] - began["start"], "verify": time.monotonic() - began["verify"]}
        for phase, seconds in spent.items():
            if took is None:
                self.clock.add(phase, seconds)
            else:
                took[phase] = seconds
        return pool

    def start_both(self, seed: int, pools: dict[str, ServerPool]) -> None:
        """A fresh, verified server of each arm, both started at once, into ``pools`` as each is up (so that the
        caller stops the one that started when the other could not).  The clock gets the slower arm's times.

        They start in the rig's own threads, which outlive them: a server gets PR_SET_PDEATHSIG
        (:mod:`.executors`), which the kernel sends when the *thread* that started it exits."""
        took: dict[str, dict[str, float]] = {k: {} for k in self.arms}

        def start(k: str) -> None:
            pools[k] = self.start(self.arms[k], seed, took[k])

        futures = [self.starter.submit(start, k) for k in self.arms]
        wait(futures)
        for phase in ("start", "verify"):
            self.clock.add(phase, max((t.get(phase, 0.0) for t in took.values()), default=0.0))
        for future in futures:
            future.result()  # the first failure, once both have finished

    def window(self, server: RunningServer, arm: Arm, cpus: Sequence[int] | None, rate: bool = False) -> Trial:
        """A saturated window of an arm's server, or (``rate``) one at the fixed rate."""
        plan = self.plan
        shape = (
            LoadShape(plan.connections, plan.rate_duration, rate=self.rate)
            if rate
            else LoadShape(plan.connections, plan.duration)
        )
        return Trial(
            server,
            plan.workload,
            shape,
            self.rate_driver if rate else self.driver,
            nodeid=f"ab::{arm.label}" + ("@rate" if rate else ""),
            test="ab",
            machine=self.machine,
            python=self.pythons[arm.label],
            # The arm's server stays pinned here (the rounds pin it); its generator runs on the load hosts, whose cores
            # are theirs.
            cpus=cpus if self.hosts is None else None,
        )

    def set_rate(self, base_rps: float) -> None:
        if self.rate_driver is not None and self.rate is None:
            self.rate = max(1.0, round(base_rps * self.plan.load))

    def trial(self, arm: Arm, seed: int) -> tuple[Result, Result | None]:
        """A whole sequential trial: fresh server, warm-up, one measured window (and one at the fixed rate), stop."""
        pool = self.start(arm, seed)
        try:
            server = pool.get(self.plan.cell)
            window = run_trial(self.window(server, arm, None), Warmup(self.plan.warmup))
            self.set_rate(window.rps)
            if self.rate_driver is None:
                return window, None
            drain(server, self.plan.workload)
            return window, measure(self.window(server, arm, None, rate=True))
        finally:
            pool.close()


@dataclass
class _Collected:
    """Paired values per signal, every window, and the pairs discarded, as they come in."""

    values: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    windows: list[Window] = field(default_factory=list)
    reruns: int = 0

    def add(self, signal: str, a: float, b: float) -> None:
        base, cand = self.values.setdefault(signal, ([], []))
        base.append(a)
        cand.append(b)

    def keep(self, arm: Arm, phase: str, block: int, results: Sequence[Result]) -> None:
        self.windows += [Window(arm.label, phase, block, r) for r in results]

    def pairs(self) -> dict[str, tuple[tuple[float, ...], tuple[float, ...]]]:
        return {k: (tuple(a), tuple(b)) for k, (a, b) in self.values.items()}


_CONNECTED: dict[str, ConnectedHosts] = {}


def connected_hosts(path: str) -> ConnectedHosts:
    """The hosts of inventory ``path``, checked and connected once per process (a gate measures blocks many times),
    closed at exit."""
    if path not in _CONNECTED:
        if not _CONNECTED:
            atexit.register(lambda: [h.close() for h in _CONNECTED.values()])
        _CONNECTED[path] = ConnectedHosts.from_file(path).open()
    return _CONNECTED[path]


def _geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-9)) for v in values) / len(values))


def _cpu_per_request(windows: Sequence[Result]) -> float:
    requests = sum(w.load.good_requests for w in windows)
    return sum(w.server_cpu_s or 0.0 for w in windows) / max(requests, 1) * 1e6


def _held(window: Result, rate: float) -> bool:
    """The open-model window delivered the rate it was asked for (within 5%)."""
    return window.load.good_requests >= 0.95 * rate * window.load.duration_s


def _swapped_rounds(
    servers: Mapping[str, RunningServer],
    b: int,
    window: Callable[[str, RunningServer, list[int]], Result],
    rounds: int = 2,
) -> list[dict[str, Result]]:
    """One pair: ``rounds`` rounds, both arms driven at once, each arm and its generator pinned to its own core,
    the cores swapped from round to round (and, with one round, from block to block); returns
    [{"A": window, "B": window}, ...]."""
    out = []
    for r in range(rounds):
        core_a = (b + r) % 2
        cores = {"A": [core_a], "B": [1 - core_a]}
        for k, s in servers.items():
            pin_tree(s.pid, cores[k])
        windows = at_once([lambda k=k, s=s, c=cores[k]: window(k, s, c) for k, s in servers.items()])
        out.append(dict(zip(servers, windows)))
    return out


def _simultaneous_blocks(rig: _Rig, blocks: int, first_block: int):
    """Per block (fresh servers: one pair), yield (block, saturated rounds, fixed-rate rounds or []); a round is
    {"A": window, "B": window}.  A pair per pair of processes: CPU per request differs between two processes
    of the same code (measured: an A/A decision whose pairs shared processes, two pairs per block, judged CPU
    per request 5.7% "better"), so pairs that share processes are not independent.  Both arms' servers start
    at once and stop at once."""
    arms, rounds = rig.arms, rig.plan.rounds
    for b in range(first_block, first_block + blocks):
        pools: dict[str, ServerPool] = {}
        try:
            rig.start_both(1000 + b, pools)
            servers = {k: pools[k].get(rig.plan.cell) for k in arms}
            if rig.plan.warmup > 0:
                with rig.clock.phase("warm-up"):
                    at_once(
                        [
                            lambda k=k, s=s: warm_up(rig.window(s, arms[k], None), Warmup(rig.plan.warmup))
                            for k, s in servers.items()
                        ]
                    )
            with rig.clock.phase("saturated"):
                saturated = _swapped_rounds(
                    servers, b, lambda k, s, cpus: measure(rig.window(s, arms[k], cpus)), rounds
                )
            at_rate: list = []
            if rig.rate_driver is not None:
                rig.set_rate(_geomean([rnd["A"].rps for rnd in saturated]))
                with rig.clock.phase("drain"):
                    at_once([lambda s=s: drain(s, rig.plan.workload) for s in servers.values()])
                with rig.clock.phase("rate"):
                    at_rate = _swapped_rounds(
                        servers, b, lambda k, s, cpus: measure(rig.window(s, arms[k], cpus, rate=True)), rounds
                    )
            yield b, saturated, at_rate
        finally:
            with rig.clock.phase("stop"):
                at_once([pool.close for pool in pools.values()])


def _pair_rate(out: _Collected, a: Sequence[Result], b: Sequence[Result]) -> None:
    for q in ("p50", "p90"):
        out.add(q, _geomean([w.load.latency_ms[q] for w in a]), _geomean([w.load.latency_ms[q] for w in b]))
    out.add("cpu", _cpu_per_request(a), _cpu_per_request(b))


def _pair_pss(out: _Collected, a: Sequence[Result], b: Sequence[Result]) -> None:
    """The arms' peak PSS in a pair, when every window read it (no pair at all where smaps_rollup is missing)."""
    if all(w.server_pss_mb is not None for w in (*a, *b)):
        out.add("pss", max(w.server_pss_mb for w in a), max(w.server_pss_mb for w in b))


def _simultaneous(rig: _Rig, out: _Collected, blocks: int, first_block: int) -> None:
    base, cand = rig.arms["A"], rig.arms["B"]
    for block, saturated, at_rate in _simultaneous_blocks(rig, blocks, first_block):
        a, b = [rnd["A"] for rnd in saturated], [rnd["B"] for rnd in saturated]
        out.keep(base, "saturated", block, a)
        out.keep(cand, "saturated", block, b)
        if any(w.generator.saturated for w in a + b):
            out.reruns += 1  # generator-bound: the pair says nothing about the servers
        else:
            out.add("throughput", _geomean([w.rps for w in a]), _geomean([w.rps for w in b]))
            out.add("rss", max(w.server_rss_mb or 0.0 for w in a), max(w.server_rss_mb or 0.0 for w in b))
            _pair_pss(out, a, b)
            if rig.rate_driver is None:
                out.add("cpu", _cpu_per_request(a), _cpu_per_request(b))
        if not at_rate:
            continue
        a, b = [rnd["A"] for rnd in at_rate], [rnd["B"] for rnd in at_rate]
        out.keep(base, "rate", block, a)
        out.keep(cand, "rate", block, b)
        if any(w.generator.saturated or not _held(w, rig.rate) for w in a):
            out.reruns += 1  # the base could not hold the rate: the rate is not sub-saturation
        else:
            _pair_rate(out, a, b)


def _sequential(rig: _Rig, out: _Collected, blocks: int, first_block: int) -> None:
    """ABBA blocks of whole trials; each block gives two pairs (the first A with the first B, the second with
    the second).  A saturated generator is counted, not discarded."""
    order = abba_order(blocks)
    windows = []
    for i, label in enumerate(order):
        arm, block = rig.arms[label], first_block + i // 4
        w, r = rig.trial(arm, seed=1000 + block)
        windows.append((w, r))
        out.keep(arm, "saturated", block, [w])
        if r is not None:
            out.keep(arm, "rate", block, [r])
        out.reruns += w.generator.saturated
    for wa, wb in zip(*pairs_from_abba(order, [w for w, _ in windows])):
        out.add("throughput", wa.rps, wb.rps)
        out.add("rss", wa.server_rss_mb or 0.0, wb.server_rss_mb or 0.0)
        _pair_pss(out, [wa], [wb])
        if rig.rate_driver is None:
            out.add("cpu", _cpu_per_request([wa]), _cpu_per_request([wb]))
    if rig.rate_driver is not None:
        for ra, rb in zip(*pairs_from_abba(order, [r for _, r in windows])):
            _pair_rate(out, [ra], [rb])


def run_blocks(plan: RunnerPlan, blocks: int, first_block: int = 0, rate: float | None = None) -> Measurement:
    """Measure ``blocks`` blocks of ``plan`` from block number ``first_block`` (which fixes their hash seeds
    and core order).  ``rate``: the fixed rate an earlier part of the same attempt settled on (an extension
    keeps it); None takes the plan's."""
    rig = _Rig(plan, rate)
    started = time.monotonic()
    out = _Collected()
    try:
        (_simultaneous if plan.mode == "simultaneous" else _sequential)(rig, out, blocks, first_block)
    finally:
        rig.starter.shutdown()  # after every server of the blocks was stopped
    return Measurement.of(
        plan.mode,
        (plan.base.label, plan.candidate.label),
        out.pairs(),
        out.windows,
        blocks,
        out.reruns,
        rig.rate,
        time.monotonic() - started,
        rig.clock.seconds,
    )


def _cost_plan(plan: RunnerPlan, arm: Arm) -> CostPlan:
    """What an arm's count (and its profile) runs: the cell from the arm's tree, warmed up with as many requests as
    it is counted over (``plan.cost_requests``)."""
    from ..counting.cost import CostPlan  # imported when used: the timed path never needs valgrind

    return CostPlan(
        plan.cell.variant,
        plan.cell.app,
        plan.workload,
        requests=plan.cost_requests,
        warmup=plan.cost_requests,
        apps_dir=arm.apps_dir,
        env={**plan.backend_env, **arm.env},
        python=arm.python,
        nodeid=f"ab::{arm.label}::cost",
    )


def count_arms(
    plan: RunnerPlan, repeats: int, kept_requests: int = 0
) -> tuple[tuple[CostRecord, ...], tuple[CostRecord, ...]]:
    """``repeats`` fresh counted runs per arm (valgrind; see :mod:`serverbench.measure.counting.cost`), base and
    candidate at the same time (one core each): a count does not depend on the machine's load.  Each record keeps its
    C functions, so a regression's attribution needs only the Python pass (:func:`profile_arms`).  ``kept_requests``:
    each count's memory kept is read instead over that many requests of the same server without valgrind, right after
    it (:mod:`serverbench.measure.counting.keptmemory`)."""
    from ..counting.cost import measure_cost
    from ..counting.keptmemory import with_kept

    def count(arm: Arm) -> Callable[[], CostRecord]:
        def counted() -> CostRecord:
            reset(plan, arm)
            record = measure_cost(_cost_plan(plan, arm))
            if kept_requests:
                reset(plan, arm)
                record = with_kept(record, _cost_plan(plan, arm), kept_requests)
            return record

        return counted

    calls = [count(arm) for _ in range(repeats) for arm in (plan.base, plan.candidate)]
    records = [r for i in range(0, len(calls), 2) for r in at_once(calls[i : i + 2])]
    return tuple(records[0::2]), tuple(records[1::2])


def profile_arms(plan: RunnerPlan, counted: tuple[CostRecord, CostRecord]) -> tuple[CostRecord, CostRecord]:
    """The arms' counted records (base, candidate: the decision's own counts) with their Python-level profile: one
    untimed pass per arm, both at once, over the same window.  Run only after a cost regression, to read the top
    functions it came from."""
    from ..counting.pytrace import profile_python

    def profiled(arm: Arm, record: CostRecord) -> CostRecord:
        reset(plan, arm)
        return replace(record, python_functions=profile_python(_cost_plan(plan, arm)))

    base, candidate = at_once([lambda: profiled(plan.base, counted[0]), lambda: profiled(plan.candidate, counted[1])])
    return base, candidate


def reset(plan: RunnerPlan, arm: Arm) -> None:
    """The arm's app back to its one state (its perf_app_reset), before a server starts or a count begins."""
    if arm.reset is not None:
        reset_app(arm.reset, arm.apps_dir, {**plan.backend_env, **arm.env}, arm.python)
