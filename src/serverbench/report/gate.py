"""The gate's decision as people read it: the terminal lines and the CI step summary, from an
:class:`~serverbench.records.decisions.ABDecision` (a fresh one, or a decision file read back by ``gate --rejudge``).

A value the decision did not measure reads "not measured" with the reason, never a zero: a gate its counted
regression ended timed no window, so it has no fixed rate, peak RSS or error rate.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from ..judge.ab import COST, COST_LABEL, SYSTEM, SYSTEM_LABEL
from ..judge.cost import Shift
from ..judge.decision import Policy
from ..judge.signals import SIGNALS
from ..records.decisions import ABDecision, p_text
from .verdict import decision_line

ARMS = ("base", "candidate")
# What a decision its counts ended did not measure: every value read off a timed window.
NOT_TIMED = "not measured: the counted regression ended the gate before any timed window"


def rate_line(run: ABDecision) -> str:
    if run.stopped == "counted":
        return NOT_TIMED
    if run.rate is None:
        return "no fixed-rate windows (--rate off): latency not gated, CPU per request from the saturated windows"
    return f"{run.rate:g} req/s per arm (oha, open model, latency from the intended send time)"


def rss_line(run: ABDecision) -> str:
    """Each arm's peak RSS and the change; an arm whose windows read none (or had none) is not measured."""
    if run.stopped == "counted":
        return NOT_TIMED
    base, cand = (run.peak_rss_mb.get(arm) for arm in ARMS)
    said = ", ".join(
        f"{arm} {mb:.1f} MB" if mb is not None else f"{arm} not measured (no window read its server's RSS)"
        for arm, mb in zip(ARMS, (base, cand))
    )
    return said + (f" ({cand / base - 1:+.1%})" if base and cand is not None else "")


def errors_line(run: ABDecision) -> str:
    """Each arm's error rate over its windows; an arm without a window is not measured."""
    if run.stopped == "counted":
        return NOT_TIMED
    return ", ".join(
        f"{arm} {run.error_rate[arm]:.2%}" if arm in run.error_rate else f"{arm} not measured (no window)"
        for arm in ARMS
    )


def markdown(run: ABDecision, shifts: tuple[Shift, ...] = ()) -> str:
    """The GitHub step summary: the decision's verdict line (report.verdict), then its :func:`statistics`."""
    return f"{decision_line(run, shifts)}\n\n{statistics(run, shifts)}"


def statistics(run: ABDecision, shifts: tuple[Shift, ...] = ()) -> str:
    """A table per cell of Δ, interval, p, n, dispersion and verdict; after a cost regression, the functions it
    came from."""
    lines = [
        f"### serverbench A/B: {run.cell}: **{run.verdict}**",
        "",
        "| signal | Δ | interval | p | n | dispersion | verdict |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    for name, label in shown():
        d = run.decisions.get(name)
        if d is None:
            continue
        lines.append(
            f"| {label} | {d.amount(d.delta)} | {d.interval()} | {p_text(d.p)} | {d.n} | "
            f"{d.amount(d.dispersion, sign=False)} | **{d.verdict}** |"
        )
    if SYSTEM in run.decisions:
        lines += ["", f"system calls, connections, memory kept (counted): {run.decisions[SYSTEM].reason}"]
    lines += [
        "",
        f"fixed rate: {rate_line(run)}",
        "",
        f"peak RSS: {rss_line(run)}",
        "",
        f"error rate: {errors_line(run)} (limit {run.max_error_rate:.2%}); mode {run.mode}; "
        f"{len(run.windows)} windows, {run.reruns} re-run; {stop_line(run)}; {run.seconds:.0f} s",
        "",
    ]
    if shifts:
        lines += [
            "where the counted cost came from (functions by change; C in instructions, Python in bytecodes "
            "per request):",
            "",
            "| share of the cell | change/req | role | package | function |",
            "|---:|---:|---|---|---|",
        ]
        for f in shifts:
            where = f"{f.module}:{f.function}" if f.level == "c" else f"{f.module}.{f.function}"
            lines.append(
                f"| {f.share:+.2%} | {f.delta:+,.0f} {'instr' if f.level == 'c' else 'bytecodes'} | "
                f"{f.role} | {f.package} | `{where}` |"
            )
        lines.append("")
    return "\n".join(lines)


def stop_line(run: ABDecision) -> str:
    """Why and where the decision ended, and where its time went."""
    if run.stopped is None:  # a decision file of the fixed design (schema 1 or 2)
        return f"extended {run.extended}"
    counted = run.stopped == "counted"  # before any timed block: no look was taken
    where = (
        f"at look {run.look + 1} of {len(run.looks)} ({run.measurement.blocks} blocks)"
        if run.looks and not counted
        else ""
    )
    spent = ", ".join(  # a phase under a second with its tenths: rounded to whole seconds, 0.5 s would read "0 s"
        f"{k} {v:.0f} s" if v >= 1 else f"{k} {v:.1f} s" for k, v in run.measurement.phases.items() if v >= 0.5
    )
    return f"stopped: {run.stopped} {where}".rstrip() + (f"; time: {spent}" if spent else "")


def shown() -> list[tuple[str, str]]:
    """(name, label) of the timed signals, then of the counted cost and system calls."""
    return [*((s.name, s.label) for s in SIGNALS), (COST, COST_LABEL), (SYSTEM, SYSTEM_LABEL)]


def show(run: ABDecision, shifts: tuple[Shift, ...] = (), file: TextIO | None = None) -> None:
    """The decision's lines on ``file`` (standard output; bisect shows the gate it confirms a step with on
    standard error, beside its progress)."""

    def say(line: str) -> None:
        print(line, file=file)

    say(decision_line(run, shifts))
    say(f"{run.cell}: {run.mode}, {len(run.windows)} windows, {run.reruns} re-run, {run.seconds:.0f} s")
    say(f"  {stop_line(run)}")
    for name, label in shown():
        if name in run.decisions:
            say(f"  {label:42s} {run.decisions[name].summary()}")
    if SYSTEM in run.decisions:  # what moved, by name, and the tolerances taken from a spread
        say(f"  {'':42s} {run.decisions[SYSTEM].reason}")
    say(f"  fixed rate  {rate_line(run)}")
    say(f"  peak RSS    {rss_line(run)}")
    say(f"  verdict     {run.verdict}")
    say(f"  error rate  {errors_line(run)}")
    if shifts:
        say("  where the counted cost came from (functions by change):")
        for f in shifts:
            say(f"    {f.line()}")


# What the gate says while it works, on standard error (the decision itself is on standard output).
def note(line: str) -> None:
    print(line, file=sys.stderr)


def no_cost_signal(why: str) -> None:
    note(f"note: no cost signal ({why})")


def set_up(label: str, seconds: float, folder: Path) -> None:
    """An arm's perf_app_setup ran, and where."""
    note(f"{label}: perf_app_setup ran in {seconds:.1f} s in {folder}")


def retrying(run: ABDecision, blocks: int) -> None:
    """An unreached decision measured again: each gated signal without a verdict, and the blocks of the retry."""
    said = "; ".join(
        f"{k} {d.summary()}" for k, d in run.gated_decisions().items() if d.verdict in ("rerun", "inconclusive")
    )
    note(f"{run.verdict}: {said}; retrying with {blocks} blocks")


def profiling(cell: str) -> None:
    note(f"{cell}: counted cost regression; profiling both arms for the functions it came from")


def rejudging(path: str | Path, policy: Policy) -> None:
    note(
        f"re-judged {path}: alpha {policy.alpha:g}, {policy.cells} cells, min effect {policy.min_effect:g}; "
        "no server started"
    )
