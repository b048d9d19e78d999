"""A/B decision files (``serverbench gate --json``): the only code that reads or writes them.

A decision file holds what the A/B runner measured (every window, with its arm, phase and block; the
paired values of each signal; the pairs it discarded; the fixed rate) and what the judge made of it
(each signal's :class:`Decision`, which signals gated, the verdict, the exit status, the policy).  The
records are immutable; this module does not judge: the verdicts are stored as the judge gave them.

Schema 3 is written: schema 2 and the sequential design's looks (the blocks after which the judge looked, how
many of the first could only settle), the look the decision stopped at, why it stopped ("counted", "regression", "settled", "last look") and the wall
seconds by phase.  Schema 2 (one look, an optional extension) and schema 1 (the gate before this module; no
``schema`` key) still load: schema 1's windows named their arm only in the nodeid (``ab::base``,
``ab::base@rate``), which is read back here once; it stored neither the policy, the error-rate limit, the
blocks nor which signals gated (None).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import jsonfile
from .schema import Result, error_rate

SCHEMA = 3
READABLE = (1, 2, 3)
PHASES = ("saturated", "rate")  # closed-model windows at saturation; open-model windows at the fixed rate
# Where a decision's time went, in the order a block runs: the counts first, then per block the servers'
# start and verification, the warm-up, the saturated rounds, the drain, the fixed-rate rounds, the stop.
PHASE_NAMES = ("count", "start", "verify", "warm-up", "saturated", "drain", "rate", "stop")

Pairs = Mapping[str, tuple[tuple[float, ...], tuple[float, ...]]]  # signal -> (base values, candidate values)


def percent(x: float, sign: bool = True) -> str:
    return "n/a" if not math.isfinite(x) else (f"{x * 100:+.1f}%" if sign else f"{x * 100:.1f}%")


def p_text(p: float) -> str:
    return "n/a" if not math.isfinite(p) else (f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}")


@dataclass(frozen=True)
class Decision:
    """One signal's verdict on paired values, with the statistics it rests on (made by the judge)."""

    verdict: str
    delta: float
    ci: tuple[float, float]
    p: float
    n: int
    dispersion: float
    borderline: bool
    reason: str
    unit: str = ""  # "": delta, interval and dispersion are relative (candidate / base - 1); else their unit

    def amount(self, x: float, sign: bool = True) -> str:
        """``x`` (the delta, an end of the interval or the dispersion) as this decision states it."""
        if not self.unit:
            return percent(x, sign)
        return "n/a" if not math.isfinite(x) else (f"{x:+.3f}" if sign else f"{x:.3f}") + f" {self.unit}"

    def interval(self) -> str:
        """``[low, high]``, the unit once after it."""
        if not self.unit:
            return f"[{percent(self.ci[0])}, {percent(self.ci[1])}]"
        return f"[{self.amount(self.ci[0]).removesuffix(' ' + self.unit)}, {self.amount(self.ci[1])}]"

    def summary(self) -> str:
        return (
            f"Δ {self.amount(self.delta)} {self.interval()} p={p_text(self.p)} n={self.n} "
            f"disp={self.amount(self.dispersion, sign=False)} -> {self.verdict}"
        )

    def to_record(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "delta": self.delta,
            "ci": list(self.ci),
            "p": self.p if math.isfinite(self.p) else None,
            "n": self.n,  # None: not a test (counted cost)
            "dispersion": self.dispersion,
            "borderline": self.borderline,
            "reason": self.reason,
            **({"unit": self.unit} if self.unit else {}),
        }

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> Decision:
        lo, hi = rec["ci"]
        p = math.nan if rec["p"] is None else float(rec["p"])
        return cls(
            str(rec["verdict"]),
            float(rec["delta"]),
            (float(lo), float(hi)),
            p,
            int(rec["n"]),
            float(rec["dispersion"]),
            bool(rec["borderline"]),
            str(rec.get("reason") or ""),
            str(rec.get("unit") or ""),
        )


@dataclass(frozen=True)
class Window:
    """One measured window of one arm: which arm, which phase, which block, and the trial's record."""

    arm: str  # the arm's label ("base", "candidate")
    phase: str  # one of PHASES
    block: int | None  # None: read from a schema-1 file, which did not keep it
    result: Result

    def to_record(self) -> dict[str, Any]:
        return {**self.result.to_record(), "arm": self.arm, "phase": self.phase, "block": self.block}

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> Window:
        if "arm" in rec:
            return cls(str(rec["arm"]), str(rec["phase"]), _whole(rec.get("block")), Result.from_record(rec))
        # Schema 1: the nodeid was "ab::<label>" for a saturated window, "ab::<label>@rate" at the fixed rate.
        label, _, rate = str(rec["nodeid"]).removeprefix("ab::").partition("@")
        return cls(label, "rate" if rate else "saturated", None, Result.from_record(rec))


@dataclass(frozen=True)
class Measurement:
    """What the A/B runner produced for one attempt: paired values per signal and every window."""

    mode: str  # "simultaneous" or "sequential"
    arms: tuple[str, str]  # the base and candidate labels
    pairs: Pairs
    windows: tuple[Window, ...]
    blocks: int | None  # blocks measured (None: not stored, schema 1)
    reruns: int  # pairs discarded (a generator saturated, or the base could not hold the fixed rate)
    rate: float | None  # requests/s per arm of the fixed-rate windows; None: none were measured
    seconds: float
    error_rate: Mapping[str, float]  # by arm, pooled over every window (discarded pairs too); no window: absent
    peak_rss_mb: Mapping[str, float]  # by arm, the highest server RSS of any window; none read: absent
    phases: Mapping[str, float] = field(default_factory=dict)  # wall seconds by phase (PHASE_NAMES), as measured

    @classmethod
    def of(
        cls,
        mode: str,
        arms: tuple[str, str],
        pairs: Pairs,
        windows: Sequence[Window],
        blocks: int,
        reruns: int,
        rate: float | None,
        seconds: float,
        phases: Mapping[str, float] | None = None,
    ) -> Measurement:
        """A measurement whose error rate and peak RSS per arm are computed from its windows; an arm without a
        window (a decision its counts ended) has neither, and one whose windows read no RSS has no peak RSS:
        not measured, never 0."""
        by_arm = {arm: [w.result for w in windows if w.arm == arm] for arm in arms}
        rss = {arm: [r.server_rss_mb for r in rs if r.server_rss_mb is not None] for arm, rs in by_arm.items()}
        return cls(
            mode,
            arms,
            pairs,
            tuple(windows),
            blocks,
            reruns,
            rate,
            seconds,
            {arm: error_rate([r.load for r in rs]) for arm, rs in by_arm.items() if rs},
            {arm: max(values) for arm, values in rss.items() if values},
            dict(phases or {}),
        )

    def plus(self, more: Measurement) -> Measurement:
        """This measurement extended by ``more`` (later blocks of the same attempt, at the same fixed rate)."""
        names = dict.fromkeys([*self.pairs, *more.pairs])
        pairs = {
            k: tuple(a + b for a, b in zip(self.pairs.get(k, ((), ())), more.pairs.get(k, ((), ())))) for k in names
        }
        return Measurement.of(
            self.mode,
            self.arms,
            pairs,
            self.windows + more.windows,
            (self.blocks or 0) + (more.blocks or 0),
            self.reruns + more.reruns,
            self.rate,
            self.seconds + more.seconds,
            _summed(self.phases, more.phases),
        )


@dataclass(frozen=True)
class ABDecision:
    """One whole A/B decision: what was measured, each signal's decision, the verdict and the exit status."""

    cell: str  # "aiohttp/aiohttp json c32"
    measurement: Measurement
    decisions: Mapping[str, Decision]  # every judged signal
    gated: tuple[str, ...] | None  # the signals whose verdicts made the verdict (None: not stored, schema 1)
    verdict: str
    exit_status: int
    extended: bool = False
    policy: Mapping[str, Any] | None = None  # alpha, cells, min_effect, min_pairs, max_dispersion (None: schema 1)
    max_error_rate: float | None = None  # None: not stored (schema 1)
    schema: int = SCHEMA
    looks: tuple[int, ...] | None = None  # blocks after which the judge looked (None: one look, schemas 1-2)
    look: int | None = None  # the look it stopped at (0 first)
    stopped: str | None = None  # why it ended: "counted", "regression", "settled", "last look" (None: schemas 1-2)
    settle_only: int = 0  # how many of the first looks could only settle (no share of alpha)

    @property
    def mode(self) -> str:
        return self.measurement.mode

    @property
    def pairs(self) -> Pairs:
        return self.measurement.pairs

    @property
    def windows(self) -> tuple[Window, ...]:
        return self.measurement.windows

    @property
    def rate(self) -> float | None:
        return self.measurement.rate

    @property
    def reruns(self) -> int:
        return self.measurement.reruns

    @property
    def seconds(self) -> float:
        return self.measurement.seconds

    @property
    def error_rate(self) -> Mapping[str, float]:
        return self.measurement.error_rate

    @property
    def peak_rss_mb(self) -> Mapping[str, float]:
        return self.measurement.peak_rss_mb

    @property
    def throughput(self) -> Decision:
        return self.decisions["throughput"]

    @property
    def cpu_per_request(self) -> Decision:
        return self.decisions["cpu"]

    def gated_decisions(self) -> dict[str, Decision]:
        return {k: self.decisions[k] for k in self.gated or () if k in self.decisions}

    def to_record(self) -> dict[str, Any]:
        """The decision file's JSON (schema 2): verdicts, statistics, the paired values and every window."""
        m = self.measurement
        return {
            "schema": SCHEMA,
            "cell": self.cell,
            "verdict": self.verdict,
            "exit_status": self.exit_status,
            "mode": m.mode,
            "arms": list(m.arms),
            "rate": m.rate,
            "blocks": m.blocks,
            "extended": self.extended,
            "reruns": m.reruns,
            "seconds": round(m.seconds, 1),
            "phases": {k: round(v, 2) for k, v in m.phases.items()},
            "error_rate": dict(m.error_rate),
            "peak_rss_mb": dict(m.peak_rss_mb),
            "max_error_rate": self.max_error_rate,
            "policy": None if self.policy is None else dict(self.policy),
            "gated": None if self.gated is None else list(self.gated),
            "looks": None if self.looks is None else list(self.looks),
            "look": self.look,
            "stopped": self.stopped,
            "settle_only": self.settle_only,
            "decisions": {k: d.to_record() for k, d in self.decisions.items()},
            "pairs": {k: {"base": list(v[0]), "candidate": list(v[1])} for k, v in m.pairs.items()},
            "windows": [w.to_record() for w in m.windows],
        }

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> ABDecision:
        """Schema 2 or 1; a malformed record raises KeyError, TypeError or ValueError."""
        arms = tuple(rec.get("arms") or rec["error_rate"])
        if len(arms) != 2:
            raise ValueError(f"expected the two arms' labels, found {list(arms)}")
        measurement = Measurement(
            str(rec["mode"]),
            (str(arms[0]), str(arms[1])),
            {k: (tuple(map(float, v["base"])), tuple(map(float, v["candidate"]))) for k, v in rec["pairs"].items()},
            tuple(Window.from_record(w) for w in rec.get("windows") or ()),
            _whole(rec.get("blocks")),
            int(rec["reruns"]),
            None if rec.get("rate") is None else float(rec["rate"]),
            float(rec["seconds"]),
            {k: float(v) for k, v in rec["error_rate"].items()},
            {k: float(v) for k, v in (rec.get("peak_rss_mb") or {}).items()},
            {k: float(v) for k, v in (rec.get("phases") or {}).items()},
        )
        gated, policy, limit = rec.get("gated"), rec.get("policy"), rec.get("max_error_rate")
        if policy is not None and not isinstance(policy, Mapping):
            raise TypeError(f"'policy' must be an object, found {policy!r}")
        return cls(
            str(rec["cell"]),
            measurement,
            {k: Decision.from_record(d) for k, d in rec["decisions"].items()},
            None if gated is None else tuple(map(str, gated)),
            str(rec["verdict"]),
            int(rec["exit_status"]),
            bool(rec.get("extended")),
            policy,
            None if limit is None else float(limit),
            int(rec.get("schema", 1)),
            None if rec.get("looks") is None else tuple(int(b) for b in rec["looks"]),
            _whole(rec.get("look")),
            None if rec.get("stopped") is None else str(rec["stopped"]),
            _whole(rec.get("settle_only")) or 0,
        )


def _summed(a: Mapping[str, float], b: Mapping[str, float]) -> dict[str, float]:
    return {k: a.get(k, 0.0) + b.get(k, 0.0) for k in dict.fromkeys([*a, *b])}


def _whole(value: Any) -> int | None:
    return None if value is None else int(value)


class DecisionFileError(ValueError):
    """A file that is not a readable A/B decision file; the message names it and the fix."""


def write(path: Path, decision: ABDecision) -> None:
    jsonfile.write_atomic(Path(path), decision.to_record())


def read(path: Path) -> ABDecision:
    """A decision file, typed; anything else is a DecisionFileError naming the file and what was wrong."""
    path = Path(path)
    fix = "pass a file written by `serverbench gate --json`"
    try:
        data = jsonfile.read(path)
    except FileNotFoundError:
        raise DecisionFileError(f"{path}: no such file; {fix}") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DecisionFileError(f"{path}: not a readable JSON file ({exc}); {fix}") from None
    if not isinstance(data, dict) or not isinstance(data.get("decisions"), dict) or "pairs" not in data:
        raise DecisionFileError(f"{path}: not an A/B decision file (no 'decisions' and 'pairs'); {fix}")
    schema = data.get("schema", 1)
    if schema not in READABLE:
        raise DecisionFileError(
            f"{path}: decision schema {schema!r}; this serverbench reads {READABLE}: upgrade serverbench to read it"
        )
    try:
        return ABDecision.from_record(data)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise DecisionFileError(
            f"{path}: an A/B decision file that cannot be read ({type(exc).__name__}: {exc}); {fix}"
        ) from None
