"""A bisection as people read it: the terminal text and the CI step summary, both from a bisection record
(:mod:`serverbench.records.bisects`), so a stored file prints exactly what the run printed.  The steps are
judged again from the stored counts (:func:`serverbench.judge.bisect.bisection`): the record's numbers,
not its prose, are the source.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..judge.ab import COST
from ..judge.bisect import Bisection, bisection, summary
from ..judge.cost import APP, Shift, by_package
from ..measure.counting.bisect import Attempt
from ..measure.trees.commits import Commit

SHIFT_FIELDS = ("level", "function", "module", "package", "role", "base", "candidate", "share")


def judged(record: Mapping[str, Any]) -> Bisection:
    """The bisection the record's counts give."""
    counts = {i: c["per_request"] for i, c in enumerate(record["commits"]) if c.get("tried")}
    return bisection(counts, len(record["commits"]) - 1, float(record["threshold"]))


def names(record: Mapping[str, Any]) -> list[str]:
    """Each commit as ``1a2b3c4d5e (subject)``."""
    return [Commit(c["sha"], c["subject"]).name for c in record["commits"]]


def shifts(step: Mapping[str, Any]) -> list[Shift]:
    return [Shift(**{k: s[k] for k in SHIFT_FIELDS}) for s in step.get("attribution", ())]


def _rows(record: Mapping[str, Any]) -> list[tuple[int, str, str, str, str]]:
    """(index, commit, instructions/request or why skipped, change against the previous counted, subject)."""
    rows, previous = [], None
    last = len(record["commits"]) - 1
    for i, c in enumerate(record["commits"]):
        if not c.get("tried"):
            continue
        end = " (good end)" if i == 0 else " (bad end)" if i == last else ""
        if c["per_request"] is None:
            rows.append((i, c["sha"][:10], f"skipped: {c['skipped']}", "", c["subject"] + end))
            continue
        change = "" if previous is None else f"{c['per_request'] / previous - 1:+.2%}"
        rows.append((i, c["sha"][:10], f"{c['per_request']:,.0f}", change, c["subject"] + end))
        previous = c["per_request"]
    return rows


def _timing(record: Mapping[str, Any]) -> str:
    counted = [c["seconds"] for c in record["commits"] if c.get("per_request") is not None]
    one = f"one count: median {statistics.median(counted):.1f} s" if counted else "nothing counted"
    return (
        f"counted {record['counted']} of {len(record['commits'])} commits, skipped {record['skipped']}, "
        f"in {record['seconds']:.0f} s ({one})"
    )


def _gate_lines(gate: Mapping[str, Any]) -> list[str]:
    """The confirming gate's verdict, named by what it measured: timed (with its windows), or, when it stopped at
    its count (a counted regression ends a decision before any window), confirmed by a second count."""
    if gate.get("error"):
        return [f"gate, parent against culprit: not run: {gate['error']}"]
    said = [f"exit {gate['exit_status']}"]
    if _timed(gate):
        how = "timed gate"
        if gate.get("windows"):
            said.append(f"{gate['windows']} windows in {gate['blocks']} blocks")
    else:
        how = "confirmed by a second count"
        said.append("no window timed: a counted regression ends the gate")
    if gate.get("seconds") is not None:
        said.append(f"{gate['seconds']:.0f} s")
    lines = [f"{how}, parent against culprit: {gate['verdict']} ({', '.join(said)})"]
    lines += [f"  {label:42s} {value}" for label, value in gate.get("signals", {}).items()]
    return lines


def _timed(gate: Mapping[str, Any]) -> bool:
    """Whether the gate timed windows (a file from before their number was stored: whether it judged a timed
    signal, any but the counted one)."""
    if gate.get("windows") is not None:
        return gate["windows"] > 0
    return any(name != COST for name in gate.get("signals", {}))


def text(record: Mapping[str, Any]) -> str:
    """What ``serverbench bisect`` prints."""
    result, named = judged(record), names(record)
    head = (
        f"bisect {record['cell']} ({record['endpoint']}): {len(record['commits'])} commits, "
        f"{named[0]} .. {named[-1]}; threshold {record['threshold']:.1%}, {record['requests']} requests per count"
    )
    lines = [head, f"  {'#':>3}  {'commit':10}  {'instr/request':>14}  {'change':>8}  subject"]
    for i, sha, count, change, subject in _rows(record):
        if count.startswith("skipped"):
            lines.append(f"  {i:>3}  {sha:10}  {count}  [{subject}]")
        else:
            lines.append(f"  {i:>3}  {sha:10}  {count:>14}  {change:>8}  {subject}")
    lines.append(_timing(record))
    lines.append(f"verdict: {result.verdict} (exit {result.exit_status}): {summary(result, named)}")
    for step, stored in zip(result.steps, record["steps"]):
        lines.append(f"step {step.change:+.2%}: {named[step.before]} -> {named[step.after]}")
        found = shifts(stored)
        if found:
            lines.append(
                "  where it came from (C functions in instructions, Python functions in bytecodes, per request):"
            )
            lines += [f"    {s.line()}" for s in found]
            lines.append("  by package: " + ", ".join(f"{r} {p} {v:+.2%}" for r, p, v in by_package(found)[:5]))
        if stored.get("gate"):
            lines += ["  " + line for line in _gate_lines(stored["gate"])]
    return "\n".join(lines)


def markdown(record: Mapping[str, Any]) -> str:
    """A GitHub step summary: the verdict, the commits tried, and per step its functions and the gate's verdict."""
    result, named = judged(record), names(record)
    lines = [
        f"### serverbench bisect: {record['cell']} ({record['endpoint']}): **{result.verdict}**",
        "",
        summary(result, named),
        "",
        "| # | commit | instructions/request | change | subject |",
        "|---:|---|---:|---:|---|",
    ]
    lines += [
        f"| {i} | `{sha}` | {count} | {change} | {_cell(subject)} |" for i, sha, count, change, subject in _rows(record)
    ]
    lines += ["", _timing(record), ""]
    for step, stored in zip(result.steps, record["steps"]):
        found = shifts(stored)
        listed = found[:3] + [s for s in found[3:] if s.role == APP]  # the app's own functions always
        top = ", ".join(f"`{s.short()}`" for s in listed) or "not profiled"
        lines.append(f"- {step.kind} {step.change:+.2%} at `{named[step.after]}`; functions: {top}")
        if stored.get("gate"):
            lines += [f"  - {line.strip()}" for line in _gate_lines(stored["gate"])[:1]]
            lines += ["", stored["gate"].get("markdown", "")]
    return "\n".join(lines) + "\n\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


# What a bisection says while it works, on standard error (its record is printed on standard output at the end).
def bisecting(name: str, commits: Sequence[Commit], threshold: float) -> None:
    _note(
        f"bisecting {name}: {len(commits)} commits ({commits[0].short}..{commits[-1].short}), threshold {threshold:.1%}"
    )


def counted(attempt: Attempt, commits: Sequence[Commit]) -> None:
    """One commit tried: its count, or why it was skipped, and how long it took."""
    what = f"{attempt.per_request:,.0f} instructions/request" if attempt.record else f"skipped: {attempt.reason}"
    _note(f"[{attempt.index}/{len(commits) - 1}] {commits[attempt.index].name}: {what} ({attempt.seconds:.1f} s)")


def no_profile(error: Exception) -> None:
    _note(f"note: no Python-level profile of the step ({error}); C functions only")


def confirming(after: Commit, before: Commit) -> None:
    _note(f"confirming {after.name} against its parent {before.short} with the A/B gate")


def _note(line: str) -> None:
    print(line, file=sys.stderr)


RESULTS = Path(__file__).resolve().parents[3] / "benchmarks" / "results"  # in a checkout: the measurement files


def example_block(path: Path = RESULTS / "bisect-example.json") -> str:
    """The docs' worked example: what the stored bisection printed."""
    return f"```\n{text(json.loads(path.read_text()))}\n```\n"


def positions_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The benchmark's runs (benchmarks/bisect_positions.py): per regression position, what was found at what cost."""
    lines = [
        "| app | regression at | found | step | counts (budget) | skipped | verdict (exit) | wall s | median count s |",
        "|---|---:|---|---|---:|---:|---|---:|---:|",
    ]
    for r in rows:
        step = "; ".join(f"{a} → {b} {c:+.2%}" for a, b, c in r["steps"]) or "none"
        median = f"{statistics.median(r['count_s']):.1f}" if r["count_s"] else "-"
        lines.append(
            f"| {r['app']} | {r['position'] or 'none'} | {'yes' if r['found'] else '**no**'} | {step} | "
            f"{r['counted']} ({r['budget']}) | {r['skipped']} | {r['verdict']} ({r['exit']}) | {r['wall_s']:.0f} | {median} |"
        )
    return "\n".join(lines) + "\n"


def count_time_table(data: Mapping[str, Any]) -> str:
    """One count per variant and its phases (benchmarks/bisect_count_time.py): medians of the repeated counts, and
    the phase that takes most of it."""
    lines = [
        "| variant (app, /json) | one count s | start, 20 requests, dump, stop s | warm-up s | window (190 requests) s "
        "| largest part |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for variant, row in data["variants"].items():
        m = {k: statistics.median(v) for k, v in row["walls"].items()}
        parts = {
            "start, 20 requests, dump, stop": m["warm-up 10"],
            "warm-up": m["window 10"] - m["warm-up 10"],
            "window": m["default"] - m["window 10"],
        }
        largest = max(parts, key=parts.__getitem__)
        lines.append(
            f"| {variant} ({row['app']}) | {m['default']:.1f} | "
            + " | ".join(f"{v:.1f}" for v in parts.values())
            + f" | {largest} ({parts[largest] / m['default']:.0%}) |"
        )
    lines += [
        "",
        f"A git worktree of this checkout (add and remove): median {statistics.median(data['worktree_s']):.2f} s.",
    ]
    return "\n".join(lines) + "\n"


def benchmark_block(folder: Path = RESULTS) -> str:
    """The docs' benchmark: the positions table, then the time of one count."""
    positions = json.loads((folder / "bisect-positions.json").read_text())
    counts = json.loads((folder / "bisect-count-time.json").read_text())
    return positions_table(positions) + "\n" + count_time_table(counts)
