"""Judging instruction counts: a cell against its stored cost baseline, the A/A spread, and where a
change came from.  Pure: records in, verdicts and rows out.

A count does not move with the machine's speed or load, so the stored-baseline check can be tight
(default 2%): it fails a cell whose instructions per request rose by more than its tolerance.  Where the
counts a baseline was written from fell apart (threads or timers scheduled differently from run to run), its
tolerance is ``SPREAD_FACTOR`` times their spread when that is wider, and the verdict says which.  A
baseline applies unless what ran changed: a package that never ran in the counted window (certifi on
``/json``) never matters; when one that ran (in the baseline's window or the candidate's) moved, was
added or removed, the cell is still judged and the verdict names the move ("+4.1% after flask 3.1.3 ->
3.2.0; top functions ...").  On a failure the verdict carries the functions whose counts changed most, each with its
module, package and role (server, framework, app, driver, standard library, interpreter, system).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..records.cost import APP, SAVE_COMMAND, CostBaseline, CostRecord, FunctionCost
from ..records.decisions import Decision
from .system import SPREAD_FACTOR, SystemVerdict, judge_system

PASS, FAIL, NO_BASELINE = "pass", "fail", "no-baseline"
TOP = 10
APP_TOP = 3  # how many of the app's own functions (role APP) a failure always names


@dataclass(frozen=True)
class Shift:
    """One function's change between base and candidate, per request (instructions, or bytecodes at
    the Python level) and as a share of the base cell's total at that level."""

    level: str
    function: str
    module: str
    package: str
    role: str
    base: float | None  # None: not among the base's stored functions (new, or below its cut)
    candidate: float
    share: float

    @property
    def delta(self) -> float:
        return self.candidate - (self.base or 0.0)

    def to_record(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "function": self.function,
            "module": self.module,
            "package": self.package,
            "role": self.role,
            "base": None if self.base is None else round(self.base, 1),
            "candidate": round(self.candidate, 1),
            "delta": round(self.delta, 1),
            "share": round(self.share, 5),
        }

    def short(self) -> str:
        """``package module:function +1.23%``: one function's change in a verdict's one-line message."""
        where = f"{self.module}:{self.function}" if self.level == "c" else f"{self.module}.{self.function}"
        return f"{self.package} {where} {self.share:+.2%}"

    def line(self) -> str:
        unit = "instr" if self.level == "c" else "bytecodes"
        base = "new" if self.base is None else f"{self.base:,.0f}"
        where = f"{self.module}:{self.function}" if self.level == "c" else f"{self.module}.{self.function}"
        return (
            f"{self.share:+7.2%} of the cell  {self.delta:+12,.0f} {unit}/req ({base} -> {self.candidate:,.0f})  "
            f"{self.role}: {self.package}  {where}"
        )


@dataclass(frozen=True)
class CostVerdict:
    status: str
    message: str
    baseline_per_request: float | None = None
    ratio: float | None = None
    shifts: tuple[Shift, ...] = ()
    moved: tuple[str, ...] = ()  # "name old -> new" of each package that ran and changed
    system: SystemVerdict | None = None  # system calls, connections and memory kept (judge/system.py)
    tolerance: Tolerance | None = None  # the instruction tolerance judged by: a constant, or from the baseline's spread

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    def to_record(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": self.message,
            "baseline_per_request": self.baseline_per_request,
            "ratio": None if self.ratio is None else round(self.ratio, 6),
            "tolerance": None if self.tolerance is None else self.tolerance.to_record(),
            "attribution": [s.to_record() for s in self.shifts],
            "moved": list(self.moved),
            "system": None if self.system is None else self.system.to_record(),
        }

    def report(self) -> str:
        """The message, what the system counts say, and, on a failure, the top functions by change."""
        lines = [self.message]
        if self.system is not None and self.system.verdict != "regression":  # a regression is in the message
            lines.append(f"system calls, connections, memory kept: {self.system.message()}")
        if self.shifts:
            lines.append(
                f"where it came from (top {len(self.shifts)} functions by change; C functions in "
                "instructions, Python functions in bytecodes, each as a share of the cell at its level):"
            )
            lines += ["  " + s.line() for s in self.shifts]
            packages = ", ".join(
                f"{role} {package} {share:+.2%}" for role, package, share in by_package(self.shifts)[:5]
            )
            lines.append(f"by package: {packages}")
        return "\n".join(lines)


def judge_cost(record: CostRecord, baseline: CostBaseline | None, tolerance: float) -> CostVerdict:
    """Fail when instructions per request exceed the baseline's by more than its tolerance: ``tolerance``, or
    SPREAD_FACTOR x the spread of the counts the baseline was written from where that is wider."""
    if baseline is None:
        return CostVerdict(
            NO_BASELINE,
            f"no stored cost baseline for {record.key} in this counting environment; store one with `{SAVE_COMMAND}`",
        )
    moved = tuple(package_changes(baseline.packages, record.packages, ran_in(baseline, record)))
    ratio = record.per_request / baseline.per_request if baseline.per_request > 0 else float("inf")
    after = f" after {'; '.join(moved)}" if moved else ""
    judged_by = tolerance_of(baseline, tolerance)
    summary = (
        f"{ratio - 1:+.2%}{after}: {record.per_request:,.0f} instructions/request vs baseline "
        f"{baseline.per_request:,.0f} ({judged_by.stated()})"
    )
    failed = ratio > 1 + judged_by.value
    system = judge_system([baseline], [record], _absent(record, baseline), record.kept_over, apart=True)
    shifts = attribute(baseline, record) if failed or moved else ()
    if moved:
        summary += "; top functions by change: " + (", ".join(s.short() for s in shifts[:3]) or "none")
    if system.verdict == "regression":
        said = f"system calls and memory {system.message()}"
        summary = f"{said}; instructions {summary}" if not failed else f"{summary}; {said}"
        failed = True
    if failed:
        return CostVerdict(
            FAIL,
            f"cost rose beyond tolerance: {summary}",
            baseline.per_request,
            ratio,
            shifts,
            moved,
            system,
            judged_by,
        )
    return CostVerdict(PASS, summary, baseline.per_request, ratio, shifts, moved, system, judged_by)


@dataclass(frozen=True)
class Tolerance:
    """The instruction tolerance a cell is judged with: ``constant`` (the session's, or a test's or variant's own),
    or SPREAD_FACTOR x the spread of the ``counts`` counts its baseline was written from where that is wider."""

    constant: float
    counts: int | None = None  # None: the baseline keeps no spread (written from one count, or before spreads were)
    spread: float = 0.0  # (max - min) / median of those counts' instructions per request

    @property
    def value(self) -> float:
        return max(self.constant, SPREAD_FACTOR * self.spread)

    @property
    def from_spread(self) -> bool:
        return self.value > self.constant

    def stated(self) -> str:
        """``tolerance ±1.7% from 5 counts' spread (...)``: the tolerance and where it came from."""
        if self.counts is None:
            return f"tolerance {self.constant:.1%}, a constant: the baseline keeps no measured spread"
        if self.from_spread:
            return (
                f"tolerance ±{self.value:.1%} from {self.counts} counts' spread ({SPREAD_FACTOR:g}x {self.spread:.2%}, "
                f"wider than {self.constant:.1%})"
            )
        return f"tolerance {self.constant:.1%}; {self.counts} counts' spread {self.spread:.2%}, {SPREAD_FACTOR:g}x it within"

    def to_record(self) -> dict[str, Any]:
        return {
            "value": round(self.value, 6),
            "constant": self.constant,
            "counts": self.counts,
            "spread": round(self.spread, 6),
        }


def tolerance_of(baseline: CostBaseline, constant: float) -> Tolerance:
    """The tolerance ``baseline`` is judged with: the constant where it keeps no spread of its counts."""
    if baseline.spread is None:
        return Tolerance(constant)
    return Tolerance(constant, baseline.spread.counts, baseline.spread.instructions)


def _absent(record: CostRecord, baseline: CostBaseline) -> str:
    """Why one side has no system counts: the count's own reason, else the baseline's age."""
    if record.system is None:
        return record.system_absent or "not counted"
    if baseline.system is None:
        return f"the baseline was stored before system calls were counted; re-save it with `{SAVE_COMMAND}`"
    return ""


def ran_in(baseline: CostBaseline, record: CostRecord) -> frozenset[str] | None:
    """The packages that ran in either window; None when the baseline cannot say (stored without a Python
    profile: a pure-Python package may have run unseen), so that every move is named."""
    if baseline.ran is None:
        return None
    return baseline.ran | record.packages_ran


def package_changes(
    base: Mapping[str, str], candidate: Mapping[str, str], ran: frozenset[str] | None = None
) -> list[str]:
    """``name old -> new`` for every package whose version differs, was added or was removed; only those in
    ``ran`` when given (a package whose code never ran in the window cannot have changed the count)."""
    changes = []
    for name in sorted(set(base) | set(candidate)):
        old, new = base.get(name), candidate.get(name)
        if old != new and (ran is None or name in ran):
            changes.append(f"{name} {old or 'absent'} -> {new or 'absent'}")
    return changes


def attribute(baseline: CostBaseline, record: CostRecord, top: int = TOP, app_top: int = APP_TOP) -> tuple[Shift, ...]:
    """The ``top`` functions by absolute change, C and Python levels together, ranked by share of the cell;
    then the ``app_top`` largest changes of the app's own functions (role ``app``) not among them.

    The app's functions are named even when the interpreter and the standard library they call moved more
    (an extra ``json.dumps`` in a view shows mostly as the encoder's cost): the app's code is what its
    authors change, so its row is where they start."""
    shifts = sorted(
        diff(baseline.functions, record.functions, baseline.per_request)
        + diff(
            baseline.python_functions,
            record.python_functions,
            baseline.python_per_request or _total(baseline.python_functions),
        ),
        key=lambda s: -abs(s.share),
    )
    own = [s for s in shifts[top:] if s.role == APP and abs(s.delta) >= 0.5][:app_top]
    return tuple(shifts[:top] + own)


def diff(base: Sequence[FunctionCost], candidate: Sequence[FunctionCost], base_total: float) -> list[Shift]:
    """Per function: base and candidate per request, change as a share of ``base_total``.

    The base keeps only its largest functions (and all of the app's own, however small); one missing there
    counts from zero if the candidate spends more on it than the smallest of the largest stored (it may be
    new), and is left out otherwise.
    """
    if not candidate:
        return []
    stored = {_id(f): f for f in base}
    floor = min((f.per_request for f in base if f.role != APP), default=0.0)
    out = []
    for f in candidate:
        old = stored.pop(_id(f), None)
        if old is None and f.per_request <= floor:
            continue
        out.append(
            Shift(
                f.level,
                f.function,
                f.module,
                f.package,
                f.role,
                None if old is None else old.per_request,
                f.per_request,
                _share(f.per_request - (old.per_request if old else 0.0), base_total),
            )
        )
    for old in stored.values():  # stored in the base, absent from the candidate: all of it went away
        out.append(
            Shift(
                old.level,
                old.function,
                old.module,
                old.package,
                old.role,
                old.per_request,
                0.0,
                _share(-old.per_request, base_total),
            )
        )
    return out


def by_package(shifts: Iterable[Shift]) -> list[tuple[str, str, float]]:
    """(role, package, share) summed over the given shifts, largest change first."""
    sums: dict[tuple[str, str], float] = {}
    for s in shifts:
        sums[(s.role, s.package)] = sums.get((s.role, s.package), 0.0) + s.share
    return sorted(((r, p, v) for (r, p), v in sums.items()), key=lambda row: -abs(row[2]))


def spread(values: Sequence[float]) -> float:
    """(max - min) / median of repeated counts: the A/A spread."""
    if not values:
        raise ValueError("spread of no values")
    median = statistics.median(values)
    return (max(values) - min(values)) / median if median else 0.0


def _id(f: FunctionCost) -> tuple[str, str, str]:
    return (f.level, f.module, f.function)


def _total(rows: Sequence[FunctionCost]) -> float:
    return sum(f.per_request for f in rows)


def _share(delta: float, total: float) -> float:
    return delta / total if total else 0.0


# The A/B gate's cost signal.  Counts barely move between fresh runs (A/A spread 0.015-0.52% over 12
# variants, benchmarks/results/cost-spread.md), so a t-test over a few noisy samples is the wrong tool:
# the candidate's median is compared with the base's, against a limit set by the spread the two arms
# themselves show in this session.
COST_MIN_EFFECT = 0.01  # never flag less than 1%: below it, time-driven housekeeping moves counts
COST_SPREAD_FACTOR = 3.0  # the limit grows with the measured A/A spread: 3x the wider arm's


def judge_counts(
    base: Sequence[float],
    candidate: Sequence[float],
    min_effect: float = COST_MIN_EFFECT,
    factor: float = COST_SPREAD_FACTOR,
) -> Decision:
    """The cost signal of an A/B decision: instructions per request of each arm's fresh runs.

    Regression when the candidate's median exceeds the base's by more than the limit, max(``min_effect``,
    ``factor`` x the wider arm's A/A spread); improvement when below by as much; else pass.  Fewer than
    two counts in an arm: inconclusive (no spread to judge by).  ``p`` is NaN: this is not a test."""
    if len(base) < 2 or len(candidate) < 2:
        return Decision(
            "inconclusive",
            math.nan,
            (math.nan, math.nan),
            math.nan,
            min(len(base), len(candidate)),
            math.nan,
            False,
            "cost: fewer than two counts in an arm, no A/A spread to judge by",
        )
    b, c = statistics.median(base), statistics.median(candidate)
    delta = c / b - 1
    noise = max(spread(base), spread(candidate))
    limit = max(min_effect, factor * noise)
    verdict = "regression" if delta > limit else "improvement" if delta < -limit else "pass"
    reason = (
        f"counted: median {c:,.0f} vs {b:,.0f} instructions/request, limit {limit:.2%} "
        f"(max of {min_effect:.0%} and {factor:g}x the A/A spread {noise:.3%})"
    )
    ci = (min(candidate) / max(base) - 1, max(candidate) / min(base) - 1)
    return Decision(verdict, delta, ci, math.nan, min(len(base), len(candidate)), noise, False, reason)
