"""What the A/B gate compares: the signals, where each is measured, which way is better, and whether it
gates.  Data and per-signal policy only; the measurement is in :mod:`serverbench.measure.trials.ab` (it names its
paired values by these signals' names), the statistics in :mod:`serverbench.judge.decision`, the judging
of a whole decision in :mod:`serverbench.judge.ab`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from .decision import Policy
from .memory import GROWTH_UNIT


@dataclass(frozen=True)
class Signal:
    """One compared quantity: where it is measured, which way is better, and whether it gates."""

    name: str
    label: str
    higher_is_better: bool
    gated: bool
    min_effect: float | None = None  # None: the gate policy's
    max_dispersion: float | None = None
    detect: float | None = None  # the worsening an early pass must rule out (judge.ab's looks); None: never settles
    rate_only: bool = False  # measured only in the fixed-rate windows (none without them: --rate off)
    optional: bool = False  # judged only when measured (PSS needs /proc/PID/smaps_rollup: Linux)
    shares_alpha: bool = True  # False: judged at the cells' alpha, the others' share not cut for it (PSS)
    unit: str = ""  # "": judged on ratios (judge.decision); else on differences in this unit (growth: judge.memory)
    withholds: bool = True  # False: pairs too dispersed never make the decision "could not decide" (NOISY_TAIL)

    def policy(self, gate: Policy, gated_signals: int) -> Policy:
        """The gate's policy for this signal: alpha split over cells x gated signals, this signal's limits."""
        return replace(
            gate,
            cells=gate.cells * (gated_signals if self.gated and self.shares_alpha else 1),
            higher_is_better=self.higher_is_better,
            min_effect=gate.min_effect if self.min_effect is None else self.min_effect,
            max_dispersion=math.inf
            if not self.withholds
            else gate.max_dispersion
            if self.max_dispersion is None
            else self.max_dispersion,
            detect=self.detect,
        )


# Throughput is measured at saturation (closed model, wrk); latency and CPU per request at a fixed
# sub-saturation rate (open model, oha).  CPU per request gates at a 2% effect: at a quarter of
# saturation each request also pays the idle loop's wake-ups (186 µs against 108 µs saturated,
# aiohttp /json), which dilutes a fixed added cost to about 60% of its throughput effect.  Its A/A
# pair dispersion (fresh processes per pair) was 1.8-10.5%, median 6.0%, about throughput's 3.6-12%,
# median 6.5%: process-to-process differences dominate both.  Latency moves far more: one stolen
# burst queues every request behind it (an A/A p50 went from 0.6 ms to 24-36 ms for one block; at
# half of saturation pair dispersion was 83-109%), so its verdicts need a 10% effect, tolerate 30%
# dispersion, and do not trigger the extension (its interval is wide whatever the blocks).
# Peak PSS (measure.host.sampling) gates at a 5% effect: it is nearly deterministic for a given server and app
# (A/A on aiohttp /json: pair dispersion 1.3%, single pairs -2.1% to +2.0%, because an arm's peak is one
# allocator step, ~0.9 MB, above or below; docs/lab/measurements.md#memory); a pre-fork server's PSS also
# moves with how the requests spread over its workers.
# It does not extend (more blocks do not narrow a difference that is the same in every pair) and takes no
# share of alpha: a 5% floor against a sub-percent A/A spread already bounds its false regressions, and
# cutting the other signals' alpha for it would need more blocks for every decision.
PSS_MIN_EFFECT = 0.05
# PSS growth (judge.memory.judge_growth) is paired only when both arms' windows are soaks (samples spanning
# 9.5 s: --duration 10 or more); it is then judged as a difference of slopes, MB per 10,000 requests, with a
# 1.0 minimum effect (its A/A evidence is beside GROWTH_MIN_EFFECT).  Like PSS it neither extends
# nor takes a share of alpha: the gate's other signals keep the blocks they need when a soak runs.
GROWTH = "growth"
# The worsening an early pass must rule out, per signal (judge.ab's looks): the 10% regression the gate promises to
# catch for throughput and CPU per request (smaller CPU regressions are the counted signal's: its floor is 1%); for
# latency, whose A/A pairs spread 6-15% on this machine, 30%.  A signal settles at a look before the last only when
# its one-sided (1 - beta) bound on the worsening lies below this.
DETECT = {"throughput": 0.10, "latency": 0.30, "cpu": 0.10}
# The fixed rate's p90 is the queue behind the last stolen burst: on a runner whose neighbours take the CPU in bursts
# its A/A pairs spread 7-56% (median 27%; benchmarks/noisy_gate.py, docs/lab/gate.md), so a dispersion limit made
# it the only cause of 6 of the 9 could-not-decide outcomes in 24 A/A decisions, where every other signal passed.
# It still fails a decision on its own when it worsens significantly by its 10% effect (a spread already widens its
# interval and its p), and a pass it cannot settle is a pass marked borderline, never a hidden one; it no longer
# withholds the verdict of the signals that did settle.
NOISY_TAIL = "p90"
SIGNALS = (
    Signal("throughput", "throughput (rps), saturated", True, True, detect=DETECT["throughput"]),
    Signal(
        "p50",
        "latency p50 at the fixed rate",
        False,
        True,
        min_effect=0.10,
        max_dispersion=0.30,
        detect=DETECT["latency"],
        rate_only=True,
    ),
    Signal(
        NOISY_TAIL,
        "latency p90 at the fixed rate",
        False,
        True,
        min_effect=0.10,
        detect=DETECT["latency"],
        rate_only=True,
        withholds=False,
    ),
    Signal("cpu", "server CPU per request at the fixed rate", False, True, min_effect=0.02, detect=DETECT["cpu"]),
    Signal(
        "pss",
        "peak PSS of the server's process tree",
        False,
        True,
        min_effect=PSS_MIN_EFFECT,
        max_dispersion=0.05,
        detect=PSS_MIN_EFFECT,
        optional=True,
        shares_alpha=False,
    ),
    Signal(
        GROWTH,
        "PSS growth per 10k requests (soaks)",
        False,
        True,
        optional=True,
        shares_alpha=False,
        unit=GROWTH_UNIT,
    ),
    Signal("rss", "peak RSS (reported, not gated)", False, False),
)


def judged_signals(rate: bool) -> list[Signal]:
    """The signals a decision judges: the fixed-rate ones only when fixed-rate windows were measured (without
    them CPU per request comes from the saturated windows)."""
    return [s for s in SIGNALS if rate or not s.rate_only]


def measured(signals: list[Signal], pairs: Mapping[str, object]) -> list[Signal]:
    """``signals`` without the optional ones that have no pairs (PSS where smaps_rollup is missing)."""
    return [s for s in signals if not s.optional or s.name in pairs]


def alpha_shares(signals: list[Signal]) -> int:
    """How many ways the gated ``signals`` split alpha (the ones that take a share)."""
    return sum(s.gated and s.shares_alpha for s in signals)


def gated_signals(rate: bool) -> list[Signal]:
    """The judged signals whose verdicts make the decision's verdict."""
    return [s for s in judged_signals(rate) if s.gated]
