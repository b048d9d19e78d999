"""A decision in one line of words, the line a pull request, the step summary and the terminal all lead with:

    ✗ `list` under waitress-t4: +12.4% instructions per request (`todo.app.list_todos` +9.1%), +1.00 `openat`
    per request; throughput −8.1% (−10.2 … −6.0%)

Made from an :class:`~serverbench.records.decisions.ABDecision` (and, after a counted regression, the functions
it came from) or from a ``pytest -m cost`` record with its verdict; pure, no server.  The symbol says the verdict
(``SYMBOLS``); the words name what decided it: the signals with that verdict (a pass: the counted cost and
throughput, the two a reader looks for first).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..judge.ab import COST, GATE_POLICY, SYSTEM, UNREACHED
from ..judge.cost import Shift
from ..judge.signals import SIGNALS
from ..records.decisions import ABDecision, Decision

PASS, IMPROVEMENT, REGRESSION, UNDECIDED, NOT_MEASURED, ERROR = (
    "pass",
    "improvement",
    "regression",
    "could not decide",
    "not measured",
    "error",
)
SYMBOLS = {PASS: "✓", IMPROVEMENT: "⚡", REGRESSION: "✗", UNDECIDED: "⚠", NOT_MEASURED: "○", ERROR: "✗"}
# How a verdict line names each timed signal (its label in report.gate's table is longer).
SHORT = {
    "throughput": "throughput",
    "p50": "latency p50",
    "p90": "latency p90",
    "cpu": "CPU per request",
    "pss": "peak PSS",
    "growth": "PSS growth",
}
NAMED_FUNCTIONS = 2  # functions a counted regression's line names (the app's own first)
# Paired from the fixed-rate windows when they are measured (measure/trials/ab.py), whose pair is discarded in a block
# where the base arm fell short of the rate or a load generator was saturated.
AT_RATE = ("p50", "p90", "cpu")


def verdict_of(run: ABDecision) -> str:
    """The decision's verdict in words: its exit status decides (an error rate over the limit fails a pass)."""
    if run.exit_status == 1:
        return REGRESSION
    if run.exit_status == 3 or run.verdict in UNREACHED:
        return UNDECIDED
    return IMPROVEMENT if run.verdict == "improvement" else PASS


def where(cell: str) -> tuple[str, str]:
    """(endpoint, variant) of a decision's cell, ``waitress-t4/todo.app list c32``."""
    words = cell.split()
    return (words[-2] if len(words) >= 3 else cell), cell.split("/")[0]


def percent(x: float) -> str:
    """``+12.4%``, ``−8.1%`` (a minus sign, as a reader's text has it)."""
    return "n/a" if not math.isfinite(x) else f"{x * 100:+.1f}%".replace("-", "−")


def function_name(level: str, module: str, function: str) -> str:
    """``todo.app.list_todos`` (Python), ``_json.so:encode`` (C)."""
    return f"{module}:{function}" if level == "c" else f"{module}.{function}"


def named_functions(shifts: Sequence[Shift]) -> str:
    """`` (`todo.app.list_todos` +9.1%)``: the functions a counted change came from, the app's own first."""
    ranked = sorted(shifts, key=lambda s: (s.role != "app", -abs(s.share)))[:NAMED_FUNCTIONS]
    said = ", ".join(f"`{function_name(s.level, s.module, s.function)}` {percent(s.share)}" for s in ranked)
    return f" ({said})" if said else ""


def system_moves(reason: str, verdict: str) -> str:
    """What the counted system decision's reason says rose (or fell), each call's name in backticks and without
    its two values: ``+1.00 `openat` per request``."""
    said = "rose: " if verdict == REGRESSION else "fell: "
    part = next((p.removeprefix(said) for p in reason.split("; ") if p.startswith(said)), "")
    part = re.sub(r" \([^()]*\)", "", part)
    return re.sub(r"([+−-][\d,.]+) ([A-Za-z_0-9]+) per request", r"\1 `\2` per request", part)


def timed(name: str, d: Decision) -> str:
    """``throughput −8.1% (−10.2 … −6.0%)``."""
    label = SHORT.get(name, name)
    if d.unit:
        return f"{label} {d.amount(d.delta)} ({d.amount(d.ci[0])} … {d.amount(d.ci[1])})".replace("-", "−")
    return f"{label} {percent(d.delta)} ({percent(d.ci[0]).removesuffix('%')} … {percent(d.ci[1])})"


def spoken(run: ABDecision, verdict: str) -> list[str]:
    """The signals a line names: those with the decision's verdict (a pass: the counted cost and throughput)."""
    gated = run.gated_decisions() if run.gated is not None else dict(run.decisions)
    wanted = {REGRESSION: ("regression",), IMPROVEMENT: ("improvement",), UNDECIDED: UNREACHED}.get(verdict)
    if wanted is None:
        return [n for n in (COST, "throughput") if n in gated]
    return [n for n, d in gated.items() if d.verdict in wanted]


def dispersion_limit(run: ABDecision, name: str) -> float:
    """The most dispersion a signal's pairs may show before it is too noisy to judge: its own, else the policy's."""
    signal = next((s for s in SIGNALS if s.name == name), None)
    if signal is not None and signal.max_dispersion is not None:
        return signal.max_dispersion
    return float((run.policy or {}).get("max_dispersion", GATE_POLICY.max_dispersion))


def unheld(run: ABDecision, name: str) -> bool:
    """Whether signal ``name`` has no pairs because every block's fixed-rate pair was discarded: the rate, not the
    machine's noise, kept it from a verdict."""
    d = run.decisions.get(name)
    return d is not None and d.n == 0 and run.rate is not None and name in AT_RATE and run.reruns > 0


def undecided(run: ABDecision, name: str) -> str:
    """Why a signal has no verdict: ``throughput too noisy (dispersion 18.2%, limit 15.0%)``, too few pairs, or
    none at a fixed rate held in no block."""
    d = run.decisions[name]
    label = SHORT.get(name, "instructions per request" if name == COST else name)
    if unheld(run, name):
        return f"{label}: no pairs, the fixed rate held in no block"
    if d.verdict == "rerun":
        said = percent(d.dispersion).lstrip("+")
        return f"{label} too noisy (dispersion {said}, limit {dispersion_limit(run, name):.1%})"
    if name == COST:  # its counts fell between the floor and the limit one count must clear
        return f"{label}: {d.reason}"
    return f"{label}: {d.n} pair{'s' * (d.n != 1)}, too few to judge"


def decision_line(run: ABDecision, shifts: Sequence[Shift] = ()) -> str:
    """The decision in words, symbol first (the module's docstring shows one)."""
    verdict = verdict_of(run)
    endpoint, variant = where(run.cell)
    names = spoken(run, verdict)
    counted, timed_parts = [], []
    for name in names:
        d = run.decisions[name]
        if verdict == UNDECIDED:
            timed_parts.append(undecided(run, name))
        elif name == COST:
            counted.append(f"{percent(d.delta)} instructions per request" + named_functions(shifts))
        elif name == SYSTEM:
            counted.append(system_moves(d.reason, verdict) or d.reason)
        else:
            timed_parts.append(timed(name, d))
    parts = [", ".join(counted)] * bool(counted) + [", ".join(timed_parts)] * bool(timed_parts)
    if verdict == REGRESSION and not names:  # failed by its error rate alone
        parts = [f"error rate over the limit {run.max_error_rate or 0:.2%} ({_errors(run.error_rate)})"]
    said = "; ".join(parts) or "no gated signal was measured"
    lead = "could not decide: " if verdict == UNDECIDED else ""
    return f"{SYMBOLS[verdict]} `{endpoint}` under {variant}: {lead}{said}"


def _errors(rates: Mapping[str, float]) -> str:
    return ", ".join(f"{arm} {rate:.2%}" for arm, rate in rates.items())


def cost_verdict_of(record: Mapping[str, Any]) -> str:
    """A ``pytest -m cost`` record's verdict in words: fail a regression, no baseline not measured, a fall below
    its tolerance an improvement."""
    verdict = record.get("verdict") or {}
    status, ratio, tolerance = verdict.get("status"), verdict.get("ratio"), verdict.get("tolerance") or {}
    if status == "fail":
        return REGRESSION
    if status != "pass" or ratio is None:
        return NOT_MEASURED
    return IMPROVEMENT if ratio < 1 - float(tolerance.get("value") or math.inf) else PASS


def cost_line(record: Mapping[str, Any]) -> str:
    """A counted cell in words: ``✗ `list` under waitress-t4: +12.4% instructions per request (`fn` +9.1%)``."""
    verdict = cost_verdict_of(record)
    judged = record.get("verdict") or {}
    head = f"{SYMBOLS[verdict]} `{record['workload']}` under {record['variant']}: "
    if verdict == NOT_MEASURED:
        return head + "not measured: " + str(judged.get("message") or "no verdict")
    shifts = [
        Shift(s["level"], s["function"], s["module"], s["package"], s["role"], s["base"], s["candidate"], s["share"])
        for s in judged.get("attribution") or ()
    ]
    said = f"{percent(judged['ratio'] - 1)} instructions per request" + named_functions(shifts) * (verdict != PASS)
    system = judged.get("system") or {}
    moves = system.get("regressions") if verdict == REGRESSION else system.get("improvements")
    for move in moves or ():
        said += f", {move['candidate'] - move['base']:+.2f} `{move['what']}` per request".replace("-", "−")
    return head + said


WORST_FIRST = (ERROR, REGRESSION, UNDECIDED, IMPROVEMENT, PASS, NOT_MEASURED)


def overall(verdicts: Sequence[str]) -> str:
    """One verdict for several cells: the worst (an error, a regression, could-not-decide, an improvement, a
    pass); none measured: not measured."""
    return next((v for v in WORST_FIRST if v in verdicts), NOT_MEASURED)
