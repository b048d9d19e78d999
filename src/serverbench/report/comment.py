"""The pull request's comment (and the step summary, the same body without its marker), in words first.

    <!-- serverbench ci: PROJECT -->            the marker a poster finds the comment by, to update it on a new push
    ### serverbench gate: ✗ regression          the heading, the overall verdict
    ✗ `list` under waitress-t4: ...             one verdict line per endpoint and variant (report.verdict)
    | signal | base | head | Δ | limit |        one row per gated signal
    could not decide: why, and what to do
    Base and head ran in one session on one runner: ...
    <details> the full statistics and the functions a counted change came from </details>

Made from the gate's decisions (:class:`~serverbench.records.decisions.ABDecision`, with their shifts) or from the
records ``pytest -m cost`` writes into --perf-json (each with its verdict); an error or a change that could not be
measured gets the same marker and heading and one line saying why and what to do.  Pure: no server, no file.
"""

from __future__ import annotations

import statistics as stats
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..judge.ab import COST, COST_CLEAR, GATE_BLOCKS, GATE_POLICY, SYSTEM, UNREACHED
from ..judge.cost import COST_MIN_EFFECT, COST_SPREAD_FACTOR, Shift
from ..judge.memory import GROWTH_MIN_EFFECT
from ..judge.signals import GROWTH, SIGNALS
from ..records.decisions import ABDecision, Decision
from . import gate
from .verdict import (
    ERROR,
    NOT_MEASURED,
    SYMBOLS,
    UNDECIDED,
    cost_line,
    cost_verdict_of,
    decision_line,
    overall,
    percent,
    undecided,
    unheld,
    verdict_of,
    where,
)

Decided = tuple[ABDecision, Sequence[Shift]]
# What each arm's paired values are in (measure/trials/ab.py pairs them so): the table's base and head columns.
UNITS = {
    "throughput": "req/s",
    "p50": "ms",
    "p90": "ms",
    "cpu": "µs CPU/req",
    "pss": "MB",
    GROWTH: "MB/10k req",
    COST: "instr/req",
}
LABELS = {s.name: s.label for s in SIGNALS} | {COST: "instructions per request (counted)", SYSTEM: "system calls"}


@dataclass(frozen=True)
class Runner:
    """The machine both arms ran on, as a CI runner names it (each None: not said)."""

    name: str | None = None
    os: str | None = None
    arch: str | None = None
    image: str | None = None  # ImageOS and ImageVersion, as GitHub's hosted runners set them
    cpu: str | None = None
    cores: int | None = None

    def words(self) -> str:
        """``runner `GitHub Actions 3` (Linux X64, image ubuntu24 20241201.1), AMD EPYC 7763, 2 cores``."""
        platform = " ".join(p for p in (self.os, self.arch) if p)
        image = f"image {self.image}" if self.image else ""
        inside = ", ".join(p for p in (platform, image) if p)
        named = f"runner `{self.name}`" if self.name else "machine"
        machine = ", ".join(p for p in (self.cpu, f"{self.cores} cores" if self.cores else "") if p)
        return named + (f" ({inside})" if inside else "") + (f", {machine}" if machine else "")


def marker(project: str) -> str:
    """The hidden first line the poster finds this project's comment by (``.``: the repository's top)."""
    return f"<!-- serverbench ci: {project} -->"


def summary(comment: str) -> str:
    """The step summary: the comment without its hidden marker line."""
    first, _, rest = comment.partition("\n")
    return rest if first.startswith("<!-- serverbench ci:") else comment


def heading(mode: str, project: str, verdict: str) -> str:
    of = f" of `{project}`" if project != "." else ""
    return f"### serverbench {mode}{of}: {SYMBOLS[verdict]} {verdict}"


def counts(verdicts: Sequence[str]) -> str:
    """``2 cells: 1 ✗ regression, 1 ✓ pass``."""
    tally = {v: verdicts.count(v) for v in dict.fromkeys(verdicts)}
    said = ", ".join(f"{n} {SYMBOLS[v]} {v}" for v, n in tally.items())
    return f"{len(verdicts)} cell{'s' * (len(verdicts) != 1)}: {said}"


def gate_comment(project: str, decided: Sequence[Decided], runner: Runner, notes: Sequence[str] = ()) -> str:
    """The comment on the gate's decisions, one per endpoint and variant."""
    verdicts = [verdict_of(run) for run, _ in decided]
    lines = [marker(project), heading("gate", project, overall(verdicts)), "", counts(verdicts), ""]
    lines += [f"- {decision_line(run, shifts)}" for run, shifts in decided]
    lines += ["", *signal_table(decided), ""]
    lines += [*could_not_decide([run for run, _ in decided]), *(f"{note}\n" for note in notes)]
    lines += [f"Base and head ran in one session, interleaved, on one {runner.words()}.", ""]
    lines += ["<details><summary>Full statistics and the functions a counted change came from</summary>", ""]
    lines += [gate.statistics(run, tuple(shifts)) for run, shifts in decided]
    lines += ["</details>", ""]
    return "\n".join(lines)


def signal_table(decided: Sequence[Decided]) -> list[str]:
    """signal | base | head | Δ | limit, one row per gated signal (the cell first when there are several)."""
    many = len(decided) > 1
    lines = [
        "| " + "cell | " * many + "signal | base | head | Δ | limit |",
        "|" + "---|" * many + "---|---:|---:|---:|---:|",
    ]
    for run, _ in decided:
        endpoint, variant = where(run.cell)
        cell = f"`{endpoint}` {variant} | " * many
        gated = run.gated_decisions() if run.gated is not None else dict(run.decisions)
        for name, d in gated.items():
            base, head = arm_values(run, name)
            lines.append(f"| {cell}{LABELS.get(name, name)} | {base} | {head} | {delta(d)} | {limit(run, name, d)} |")
    return lines


def arm_values(run: ABDecision, name: str) -> tuple[str, str]:
    """Each arm's median of its paired values, in the signal's unit ("—": the signal keeps none, system calls)."""
    base, head = run.pairs.get(name, ((), ()))
    if not base or not head:
        return "—", "—"
    return _median(base, UNITS.get(name, "")), _median(head, UNITS.get(name, ""))


def _median(values: Sequence[float], unit: str) -> str:
    m = stats.median(values)
    return f"{m:,.{0 if abs(m) >= 100 else 2}f} {unit}".strip()


def delta(d: Decision) -> str:
    return d.amount(d.delta).replace("-", "−") if d.unit else percent(d.delta)


def limit(run: ABDecision, name: str, d: Decision) -> str:
    """The smallest change that fails the signal: its own minimum effect, else the policy's; the counted cost's
    from its counts (COST_CLEAR for one count per arm, else the wider of its floor and 3x their A/A spread)."""
    if name == SYSTEM:
        return "each figure's own"
    if name == COST:
        wide = COST_CLEAR if d.n == 1 else max(COST_MIN_EFFECT, COST_SPREAD_FACTOR * d.dispersion)
        return f"±{wide:.1%}"
    if name == GROWTH:
        return f"+{GROWTH_MIN_EFFECT:g} {UNITS[GROWTH]}"
    signal = next((s for s in SIGNALS if s.name == name), None)
    given = (run.policy or {}).get("min_effect", GATE_POLICY.min_effect)
    return f"±{(signal.min_effect if signal and signal.min_effect is not None else given):.1%}"


def could_not_decide(runs: Sequence[ABDecision]) -> list[str]:
    """Why each undecided cell has no verdict, and what to do about it: the runner's noise (or too few pairs), or a
    fixed rate the base arm never held."""
    lines, rates, noisy = [], [], False
    for run in runs:
        if verdict_of(run) != UNDECIDED:
            continue
        endpoint, variant = where(run.cell)
        names = [n for n, d in run.gated_decisions().items() if d.verdict in UNREACHED]
        lines.append(
            f"**{SYMBOLS[UNDECIDED]} Could not decide** `{endpoint}` under {variant}: "
            f"{'; '.join(undecided(run, n) for n in names)}."
        )
        short = [n for n in names if unheld(run, n)]
        rates += [run.rate] if short else []
        noisy = noisy or len(short) < len(names)
    if not lines:
        return []
    lines += ["", "Not a pass and not a failure."]
    if rates:
        lines[-1] += (
            f" The base arm fell short of the fixed rate ({min(rates):,.0f} requests/s per arm) in every block, or "
            "its load generator was saturated, so no latency or CPU-per-request pair was kept: give a rate it can "
            "hold, below its saturated throughput (`-- --rate N`), or `-- --rate auto`."
        )
    if noisy:
        lines[-1] += (
            " This runner was too noisy for a verdict at the gate's smallest effect. Re-run the job; or gate fewer "
            f"endpoints (`--endpoint NAME`) with more blocks (`-- --blocks {2 * GATE_BLOCKS}`), or a retry "
            "(`-- --retries 1`)."
        )
    return [*lines, ""]


def cost_comment(project: str, records: Sequence[Mapping[str, Any]], runner: Runner, before: str) -> str:
    """The comment on a push's counted cells (``pytest -m cost`` records judged against the commit before it)."""
    ordered = sorted(records, key=lambda r: r["key"])
    verdicts = [cost_verdict_of(r) for r in ordered]
    lines = [marker(project), heading("cost", project, overall(verdicts)), "", counts(verdicts), ""]
    lines += [f"- {cost_line(r)}" for r in ordered]
    lines += ["", "| cell | signal | base | head | Δ | limit |", "|---|---|---:|---:|---:|---:|"]
    for r in ordered:
        judged = r.get("verdict") or {}
        base, ratio = judged.get("baseline_per_request"), judged.get("ratio")
        tolerance = (judged.get("tolerance") or {}).get("value")
        lines.append(
            f"| `{r['workload']}` {r['variant']} | instructions per request | "
            f"{'—' if base is None else f'{base:,.0f}'} | {r['instructions_per_request']:,.0f} | "
            f"{'—' if ratio is None else percent(ratio - 1)} | {'—' if tolerance is None else f'+{tolerance:.1%}'} |"
        )
    lines += [
        "",
        f"The commit before the push (`{before[:12]}`) and this one were counted under valgrind, one after the "
        f"other, on one {runner.words()} (a count does not move with the machine's load).",
        "",
        "<details><summary>Each cell's verdict and the functions its cost came from</summary>",
        "",
    ]
    for r in ordered:
        lines += [f"**`{r['key']}`**: {(r.get('verdict') or {}).get('message', 'no verdict')}", ""]
        lines += functions_table((r.get("verdict") or {}).get("attribution") or ())
    lines += ["</details>", ""]
    return "\n".join(lines)


def functions_table(attribution: Sequence[Mapping[str, Any]]) -> list[str]:
    if not attribution:
        return []
    lines = ["| share of the cell | change/req | role | package | function |", "|---:|---:|---|---|---|"]
    for s in attribution:
        where_ = f"{s['module']}:{s['function']}" if s["level"] == "c" else f"{s['module']}.{s['function']}"
        unit = "instr" if s["level"] == "c" else "bytecodes"
        lines.append(f"| {s['share']:+.2%} | {s['delta']:+,.0f} {unit} | {s['role']} | {s['package']} | `{where_}` |")
    return [*lines, ""]


def error_comment(project: str, mode: str, message: str) -> str:
    """A bad input or a setup error: its one-line error, then (a server that would not start) the rest of the
    message, its command and log tail, as it was printed."""
    first, _, rest = message.strip().partition("\n")
    lines = [marker(project), heading(mode, project, ERROR), "", f"{SYMBOLS[ERROR]} error: {first}", ""]
    if rest.strip():
        lines += ["```", rest.rstrip(), "```", ""]
    return "\n".join(lines)


def not_measured_comment(project: str, mode: str, why: str) -> str:
    """A change that could not be measured (a base without serverbench's settings, a first commit): why."""
    return "\n".join(
        [marker(project), heading(mode, project, NOT_MEASURED), "", f"{SYMBOLS[NOT_MEASURED]} not measured: {why}", ""]
    )
