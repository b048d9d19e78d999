"""What one same-session A/B decision runs, resolved and validated in one place: the :class:`ABPlan`.

The runner (:mod:`serverbench.measure.trials.ab`) reads what to measure from it, the judge
(:mod:`serverbench.judge.ab`) how to decide and when to measure more; :mod:`serverbench.gate.loop` hands it
to both.  Its defaults are the gate's proven configuration: the window, warm-up and connections come from
the option table's gate defaults (:mod:`serverbench.config.options`), the policy and blocks from the judge.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ..backends.base import BACKENDS
from ..catalog.matrix import Cell
from ..catalog.workloads import Workload
from ..config.options import OPTIONS_BY_NAME
from ..errors import ConfigError
from ..judge.ab import GATE_BLOCKS, GATE_POLICY, Looks, looks_for
from ..judge.decision import Policy
from ..measure.serving.servers import unavailable_reason
from ..measure.trials.arms import Arm
from ..processes.executors import missing_modules_in

MODES = ("simultaneous", "sequential")
DEFAULT_LOAD = 0.25  # the fixed rate: this fraction of the base arm's saturated throughput


def _gate_default(name: str):
    return OPTIONS_BY_NAME[name].default_in("gate")


def default_mode() -> str:
    return "simultaneous" if len(os.sched_getaffinity(0)) >= 2 else "sequential"


def pairs_per_block(mode: str) -> int:
    """Simultaneous blocks give one pair (two fresh servers); sequential ABBA blocks give two."""
    return 1 if mode == "simultaneous" else 2


@dataclass(frozen=True)
class ABPlan:
    """One A/B decision: ``cell`` (a variant serving an app) under ``workload``, base against candidate.

    ``mode``: None picks simultaneous on 2+ cores, else sequential.  ``rate``: the fixed request rate
    (per arm) of the latency and CPU-per-request windows; ``"auto"`` is ``load`` x the base arm's
    saturated throughput in the first block; None measures no fixed-rate windows (no latency verdict;
    CPU per request then comes from the saturated windows).  ``rate_duration``: None is ``duration``.
    ``rounds``: rounds per block, each arm's server driven at once on its own core (2 swaps the cores between
    them; 1 alternates them from block to block).
    ``policy.cells`` is the number of gated cells; alpha is further split over the gated signals.
    ``looks``: the blocks after which the judge looks (None: :func:`~serverbench.judge.ab.looks_for` ``blocks``,
    the last at ``blocks``); ``retries``: fresh attempts while the verdict is not reached, each judged at
    alpha / (retries + 1).  ``cost_repeats``: counts of instructions per request per arm
    (:mod:`serverbench.measure.counting.cost`), judged against their own A/A spread.  ``backend_env``: the variables handing backend URLs to
    the servers (:func:`serverbench.backends.base.env`).  Every problem is reported at once.
    """

    cell: Cell
    workload: Workload
    base: Arm
    candidate: Arm
    mode: str | None = None
    blocks: int = GATE_BLOCKS
    connections: int = _gate_default("perf_connections")[0]
    duration: int = _gate_default("perf_duration")
    warmup: int = _gate_default("perf_warmup")
    rate: float | str | None = "auto"
    load: float = DEFAULT_LOAD
    rate_duration: int | None = None
    rounds: int = 2
    policy: Policy = GATE_POLICY
    looks: Looks | None = None
    retries: int = 0
    backend_env: Mapping[str, str] = field(default_factory=dict)
    max_error_rate: float = _gate_default("perf_max_error_rate")
    cost_repeats: int = 0  # fresh counted-instruction runs per arm (valgrind); 0: no cost signal
    cost_requests: int = 50  # requests counted (and warmed up) per run (a user's project: its perf_cost_requests)
    # Memory kept is judged over 200 requests or more: below, each count's is read over this many requests of its
    # server without valgrind (measure/counting/keptmemory.py), in seconds; 0: only the window's, shown, not judged.
    kept_requests: int = 1000
    # The hosts inventory (docs/hosts.md): the generators on its load hosts, the servers bound to this machine's
    # address as its server host; None: loopback.  The door resolves it (GateOptions.hosts).
    hosts: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", self.mode or default_mode())
        object.__setattr__(self, "rate_duration", self.rate_duration or self.duration)
        problems = self.problems()
        if self.looks is None and not problems:
            looks = looks_for(self.attempt_policy, self.rate is not None, self.blocks, self.pairs_per_block)
            object.__setattr__(self, "looks", looks)
        if len(problems) == 1:
            raise ConfigError(problems[0])
        if problems:
            raise ConfigError(f"the A/B plan has {len(problems)} problems:\n  " + "\n  ".join(problems))

    @property
    def name(self) -> str:
        """The cell as reports name it: ``aiohttp/aiohttp json c32``."""
        return f"{self.cell.name} {self.workload.name} c{self.connections}"

    @property
    def attempt_policy(self) -> Policy:
        """The policy each attempt is judged under: alpha split between the first attempt and its retries."""
        return self.policy if self.retries == 0 else replace(self.policy, alpha=self.policy.alpha / (self.retries + 1))

    @property
    def pairs_per_block(self) -> int:
        return pairs_per_block(self.mode)

    def problems(self) -> list[str]:
        return [*self._schedule_problems(), *self._load_problems(), *self._environment_problems()]

    def _schedule_problems(self) -> list[str]:
        out = []
        cores = len(os.sched_getaffinity(0))
        if self.mode == "simultaneous" and cores < 2:
            out.append(f"simultaneous A/B needs 2 cores, this process may use {cores}; use mode='sequential'")
        if self.mode not in MODES:
            out.append(f"unknown A/B mode {self.mode!r}; use 'simultaneous' or 'sequential'")
        if self.base.label == self.candidate.label:
            out.append(f"the two arms need different labels, both are {self.base.label!r}")
        if isinstance(self.blocks, bool) or not isinstance(self.blocks, int) or self.blocks < 1:
            out.append(f"blocks={self.blocks!r}: give a whole number of fresh-server blocks >= 1")
        elif self.looks is not None and self.looks.blocks[-1] != self.blocks:
            out.append(f"looks={self.looks.blocks!r}: the last look is at blocks={self.blocks}")
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or self.retries < 0:
            out.append(f"retries={self.retries!r}: give a whole number of fresh attempts >= 0")
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            out.append(f"rounds={self.rounds!r}: give a whole number of rounds per block >= 1 (2 swaps the cores)")
        return out

    def _load_problems(self) -> list[str]:
        out = []
        checked = {
            "duration": "perf_duration",
            "warmup": "perf_warmup",
            "connections": "perf_connections",
            "max_error_rate": "perf_max_error_rate",
        }
        if self.rate_duration != self.duration:
            checked["rate_duration"] = "perf_duration"
        for name, option in checked.items():
            value = getattr(self, name)
            try:  # the option table's parser: what the command line accepts, accepted here
                OPTIONS_BY_NAME[option].parse(str(value))
            except ValueError as exc:
                out.append(f"{name}={value!r}: {exc}")
        load = self.load
        if not (isinstance(load, (int, float)) and 0 < load < 1):
            out.append(f"load={load!r}: the fixed rate must be a fraction in (0, 1) of saturated throughput")
        rate = self.rate
        if rate is not None and rate != "auto" and not (isinstance(rate, (int, float)) and rate > 0):
            out.append(f"rate={rate!r}: give requests/s > 0, 'auto' ({load:g} x the base throughput) or None")
        if self.workload.mix and rate is not None:
            out.append(
                f"workload {self.workload.name} is a URL mix; the fixed-rate driver (oha) runs one URL: "
                "pass rate=None (--rate off)"
            )
        return out

    def _environment_problems(self) -> list[str]:
        out = []
        for name in self.workload.backends:
            variable = BACKENDS[name].env_var
            if variable not in self.backend_env:
                out.append(
                    f"workload {self.workload.name} needs {name.capitalize()}: pass its URL as {variable} "
                    "in backend_env (backends.base.started and env give it)"
                )
        variant, app = self.cell.variant, self.cell.app
        if not variant.serves(app):
            out.append(f"{variant.name} loads {variant.interface} apps; {app.name} is {app.interface}")
        if variant.programs or app.installed_files:  # not Python modules: a program, an install in each apps folder
            out += [
                f"the {arm.label} arm: {reason}"
                for arm in (self.base, self.candidate)
                if (reason := unavailable_reason(variant, app, arm.apps_dir))
            ]
        unserved = app.lacks(e.name for e in self.workload.specs)
        if unserved:
            out.append(f"{app.name} serves part of the contract, not {', '.join(unserved)}: pick another workload")
        if self.cost_repeats and app.runtime != "python":
            out.append(
                f"cost_repeats={self.cost_repeats}: {app.name} is a {app.runtime} app and instructions are "
                "counted for Python servers only; pass cost_repeats=0 (--cost-repeats 0)"
            )
        needed = list(dict.fromkeys(variant.requires + app.requires))
        try:
            lacking = {arm.label: missing_modules_in(arm.python, needed) for arm in (self.base, self.candidate)}
        except ConfigError as exc:
            return out + [str(exc)]
        if any(lacking.values()):
            said = "; ".join(
                f"the {arm.label} arm ({arm.python}) lacks {', '.join(lacking[arm.label])}"
                for arm in (self.base, self.candidate)
                if lacking[arm.label]
            )
            out.append(
                f"both arms must be able to run {variant.name} serving {app.name}: {said}. "
                f"Install it there ({variant.install or 'pip install ' + ' '.join(needed)}), or gate a "
                "variant both environments have"
            )
        return out
