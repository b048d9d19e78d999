"""A/B decisions: per signal, every paired ratio, the interval of the change, the threshold and the verdict."""

from __future__ import annotations

import math

from ..charts import Axis, Cell, Column, Fold, Interval, IntervalChart, Mark, Note, Section, Table, optional
from ..inputs import Decision, DecisionFile, Inputs, SignalDecision, signal_label, threshold


def _pct(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x * 100:+.1f}%"


def signal_row(s: SignalDecision) -> Interval:
    return Interval(signal_label(s.name), s.delta, s.ci[0], s.ci[1], s.verdict, s.ratios, s.threshold)


def _amount(s: SignalDecision, x: float | None) -> str:
    """A change as its signal states it: relative, or (growth) in its own unit."""
    if not s.unit or x is None or not math.isfinite(x):
        return _pct(x)
    return f"{x:+.3f} {s.unit}"


def gate_blocks(path_name: str, d: Decision) -> tuple:
    # The chart's axis is relative; a signal judged on differences (growth) is in the table only.
    chart = IntervalChart(
        f"{d.label}: {d.verdict} ({path_name})",
        Axis("candidate / base - 1"),
        tuple(signal_row(s) for s in d.signals if not s.unit),
        (Mark(0.0, "no change"),),
    )
    table = Table(
        (
            Column("signal"),
            Column("verdict"),
            Column("change", True),
            Column("interval"),
            Column("p", True),
            Column("pairs", True),
            Column("threshold", True),
        ),
        tuple(
            (
                Cell(signal_label(s.name)),
                Cell(s.verdict, s.verdict, "fail" if s.verdict == "regression" else ""),
                Cell(_amount(s, s.delta), s.delta),
                Cell(f"[{_amount(s, s.ci[0])}, {_amount(s, s.ci[1])}]"),
                optional(s.p, 4),
                Cell(str(s.n), s.n),
                Cell(_amount(s, s.threshold).lstrip("+"), s.threshold),
            )
            for s in d.signals
        ),
    )
    return chart, table, Note(d.detail)


def proof_blocks(f: DecisionFile) -> Fold:
    """One chart per signal: every decision of the proof run as a row, the signal's threshold on both sides."""
    out = []
    names = list(dict.fromkeys(s.name for d in f.decisions for s in d.signals))
    for name in names:
        rows = tuple(
            Interval(d.label, s.delta, s.ci[0], s.ci[1], s.verdict)
            for d in f.decisions
            for s in d.signals
            if s.name == name
        )
        t = threshold(name)
        refs = (Mark(0.0, "0"),) + ((Mark(-t, f"-{t:.0%}"), Mark(t, f"+{t:.0%}")) if t else ())
        out.append(
            IntervalChart(
                f"{signal_label(name)}: {len(rows)} decisions ({f.path.stem})", Axis("candidate / base - 1"), rows, refs
            )
        )
    return Fold(
        f"Proof run {f.path.stem}: {len(f.decisions)} decisions; {verdict_counts(f)} (click to show "
        f"{len(out)} chart(s))",
        tuple(out),
    )


def verdict_counts(f: DecisionFile) -> str:
    """Per condition, how many decisions got each verdict: 'A/A: pass 20; 5%: pass 1, regression 4'."""
    counts: dict[str, dict[str, int]] = {}
    for d in f.decisions:
        cond = counts.setdefault(d.label.split(" #")[0], {})
        cond[d.verdict] = cond.get(d.verdict, 0) + 1
    return "; ".join(f"{cond}: " + ", ".join(f"{v} {n}" for v, n in sorted(c.items())) for cond, c in counts.items())


def build(inputs: Inputs) -> Section | None:
    blocks: list = []
    for f in (f for f in inputs.decisions if f.kind == "gate"):
        for d in f.decisions:
            blocks += gate_blocks(f.path.stem, d)
    blocks += [proof_blocks(f) for f in inputs.decisions if f.kind == "proof"]
    if not blocks:
        return None
    return Section(
        "ab",
        "A/B decisions",
        "Each row is a signal's change, candidate against base: the faint dots are the paired ratios "
        "(one per block of fresh processes), the bar their interval, the square the estimate, the ticks "
        "the signal's minimum effect. Green pass, red regression, blue improvement, orange rerun or "
        "inconclusive. Proof runs (many decisions under injected costs) show one row per decision.",
        tuple(blocks),
    )
