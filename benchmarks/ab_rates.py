"""Proof of the A/B gate: A/A false failures, detection of injected slowdowns, and the time of each decision.

    .venv/bin/python benchmarks/ab_rates.py run --variant gunicorn-sync-w2 --app flask --runs 5 \
        --conditions 'A/A=burn:0,10%=burn:60' --out benchmarks/results/gate-seq-flask-1.json
    .venv/bin/python benchmarks/ab_rates.py summary benchmarks/results/gate-seq-*.json
    .venv/bin/python benchmarks/ab_rates.py render    # docs/lab/gate.md's table, from its PROOF files or those named

Each run is one whole decision, as ``serverbench gate`` makes it: ``serverbench.gate.loop.run`` of an ``ABPlan`` with
the gate's defaults (its policy, looks, windows and counted signal), one attempt.  A condition is
``label=knob:value``: ``burn`` (SERVERBENCH_BURN_US, CPU burnt per request, a spin on the thread's CPU clock:
under valgrind it runs as long, so the counts barely see it: a timed regression), ``work``
(SERVERBENCH_WORK_ITERS, a fixed loop: the counts see it), ``delay`` (SERVERBENCH_DELAY_US, aiohttp: a wait
without CPU).  Both arms run the knob (0 in the base), so the arms differ only by its value.  Conditions are
interleaved round by round (A/A, 10%, A/A, ...) so drift hits all alike, and every decision is written to
``--out`` as it completes: a run stopped for time keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from scipy import stats

from serverbench.catalog.apps import APPS
from serverbench.catalog.matrix import Cell
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.gate.loop import run as run_decision
from serverbench.gate.plan import ABPlan, Arm

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "lab" / "gate.md"
MARKS = ("<!-- gate proof table (benchmarks/ab_rates.py render) -->\n", "<!-- end of the gate proof table -->")
KNOBS = {"burn": "SERVERBENCH_BURN_US", "work": "SERVERBENCH_WORK_ITERS", "delay": "SERVERBENCH_DELAY_US"}
COST_REPEATS = 1  # the gate's default where valgrind is installed (gate.options.COST_REPEATS)


def conditions(text: str) -> dict[str, tuple[str, int]]:
    """``'A/A=burn:0,10%=burn:60'`` -> {label: (knob, value)}."""
    out = {}
    for item in text.split(","):
        label, _, spec = item.partition("=")
        knob, _, value = spec.partition(":")
        if knob not in KNOBS or not value.isdigit():
            raise SystemExit(f"condition {item!r}: write label=knob:value, knob one of {', '.join(KNOBS)}")
        out[label] = (knob, int(value))
    return out


def _number(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else x


def decision(cell: Cell, knob: str, value: int, cost_repeats: int, **given: int) -> dict:
    """One whole decision of the gate on ``cell`` /json, the candidate with ``knob`` at ``value`` (``given``: plan
    fields set away from the gate's defaults, such as rounds and duration)."""
    apps, variable = ROOT / "apps", KNOBS[knob]
    started = time.monotonic()
    plan = ABPlan(
        cell,
        WORKLOADS["json"],
        Arm("base", apps_dir=apps, env={variable: "0"}),
        Arm("candidate", apps_dir=apps, env={variable: str(value)}),
        cost_repeats=cost_repeats,
        **given,
    )
    planned = time.monotonic() - started
    run = run_decision(plan)
    wall = time.monotonic() - started
    saturated = [w.result for w in run.windows if w.arm == "base" and w.phase == "saturated"]
    return {
        "knob": knob,
        "value": value,
        "verdict": run.verdict,
        "exit_status": run.exit_status,
        "stopped": run.stopped,
        "look": run.look,
        "looks": list(run.looks or ()),
        "blocks": run.measurement.blocks,
        "rounds": plan.rounds,
        "duration": plan.duration,
        "seconds": wall,  # the plan (validated, as the gate does before anything starts) and the decision
        "plan_s": planned,
        "phases": {k: round(v, 2) for k, v in run.measurement.phases.items()},
        "signals": {
            k: {
                "verdict": d.verdict,
                "delta": _number(d.delta),
                "ci": [_number(d.ci[0]), _number(d.ci[1])],
                "p": _number(d.p),
                "n": d.n,
                "dispersion": _number(d.dispersion),
            }
            for k, d in run.decisions.items()
        },
        "counts": {k: list(v) for k, v in zip(("base", "candidate"), run.pairs.get("cost", ((), ())))},
        "rate": run.rate,
        "reruns": run.reruns,
        "error_rate": dict(run.error_rate),
        "base_cpu_us_per_request": statistics.median(
            [1e6 * (r.server_cpu_s or 0.0) / max(r.load.good_requests, 1) for r in saturated] or [math.nan]
        ),
    }


def measure(args: argparse.Namespace) -> None:
    variant = registry()[args.variant]
    cell = Cell(variant, APPS[args.app] if args.app else variant.default_app)
    todo = conditions(args.conditions)
    order = args.order.split(",") if args.order else list(todo)
    out, records = Path(args.out), []
    given = {k: v for k, v in (("rounds", args.rounds), ("duration", args.duration)) if v is not None}
    started = time.monotonic()
    for i in range(args.runs):
        for label in order:
            knob, value = todo[label]
            rec = {
                "condition": label,
                "round": i,
                "cell": cell.name,
                **decision(cell, knob, value, args.cost_repeats, **given),
            }
            records.append(rec)
            config = {"cell": cell.name, "conditions": args.conditions, "cost_repeats": args.cost_repeats, **given}
            out.write_text(json.dumps({"config": config, "decisions": records}, indent=1))
            print(line(rec), flush=True)
            if args.budget and time.monotonic() - started > args.budget:
                print(f"stopped after {time.monotonic() - started:.0f} s (--budget {args.budget:g})")
                return
    print(f"total {time.monotonic() - started:.0f} s")


def line(rec: dict) -> str:
    fired = " ".join(
        f"{k}:{s['verdict']}:{s['delta']:+.1%}" for k, s in rec["signals"].items() if s["delta"] is not None
    )
    return (
        f"{rec['round'] + 1:2d} {rec['condition']:8s} {rec['verdict']:12s} exit {rec['exit_status']} "
        f"{rec['stopped']} (look {rec['look'] + 1}, {rec['blocks']} blocks) {rec['seconds']:.0f} s | {fired}"
    )


def load(paths: list[str]) -> list[dict]:
    return [rec for path in paths for rec in json.loads(Path(path).read_text())["decisions"]]


def groups(records: list[dict]) -> dict[tuple[str, str], list[dict]]:
    """Decisions by (cell, condition), in the order first seen."""
    out: dict[tuple[str, str], list[dict]] = {}
    for rec in records:
        out.setdefault((rec["cell"], rec["condition"]), []).append(rec)
    return out


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """The exact 95% interval of a rate seen k times in n."""
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return lo, hi


def row(cell: str, label: str, rs: list[dict]) -> list[str]:
    """One table row: what the gate said, why it stopped, the measured change and the time of a decision."""
    k, n = sum(r["exit_status"] == 1 for r in rs), len(rs)
    lo, hi = clopper_pearson(k, n)
    verdicts = Counter(r["verdict"] for r in rs if r["exit_status"] != 1)
    stopped = Counter(r["stopped"] + ("" if r["stopped"] == "counted" else f" {r['look'] + 1}") for r in rs)
    fired = Counter(s for r in rs for s, d in r["signals"].items() if d["verdict"] == "regression")

    def median(signal: str) -> str:
        values = [r["signals"][signal]["delta"] for r in rs if signal in r["signals"]]
        values = [v for v in values if v is not None]
        return f"{statistics.median(values):+.1%}" if values else "–"

    seconds = [r["seconds"] for r in rs]
    return [
        cell,
        label,
        f"**{k} / {n}** ({lo:.0%}–{hi:.0%})",
        ", ".join(f"{c} {v}" for v, c in verdicts.most_common()) or "–",
        ", ".join(f"{name} {c}" for name, c in fired.most_common()) or "none",
        ", ".join(f"{c} {s}" for s, c in sorted(stopped.items())),
        f"{median('throughput')} / {median('cpu')} / {median('cost')}",
        f"{statistics.median(seconds):.0f} s, max {max(seconds):.0f} s",
    ]


HEADER = [
    "cell",
    "condition",
    "exit 1 (95% CI)",
    "other verdicts",
    "signals that fired",
    "stopped (at look)",
    "median Δ throughput / CPU / counted",
    "time per decision",
]


def is_aa(label: str) -> bool:
    """An A/A condition: ``A/A``, or a relabelled one such as ``A/A, 2026-11-27``."""
    return label == "A/A" or label.startswith("A/A,")


def design(rec: dict) -> tuple[int, int]:
    """The windows a decision ran: (seconds per window, rounds per block); files from before these were recorded
    ran the gate's earlier (2, 2)."""
    return rec.get("duration", 2), rec.get("rounds", 2)


def table(records: list[dict]) -> str:
    """One row per cell and condition; a cell with A/A runs of one design (window, rounds per block) under more
    than one label gets a row of them all."""
    rows = [row(cell, label, rs) for (cell, label), rs in groups(records).items()]
    for cell in dict.fromkeys(r["cell"] for r in records):
        aa = [r for r in records if r["cell"] == cell and is_aa(r["condition"])]
        for seconds, rounds in sorted({design(r) for r in aa}, reverse=True):
            same = [r for r in aa if design(r) == (seconds, rounds)]
            if len({r["condition"] for r in same}) > 1:
                rows.append(
                    row(
                        cell, f"every A/A above ({seconds} s windows, {rounds} round{'s' * (rounds > 1)} a block)", same
                    )
                )
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows]) + "\n"


def phases(records: list[dict]) -> str:
    """The median seconds each phase took per decision, by cell and condition."""
    names = list(dict.fromkeys(k for r in records for k in r["phases"]))
    lines = ["| cell | condition | " + " | ".join(names) + " | whole |", "|" + "---|" * (len(names) + 3)]
    for (cell, label), rs in groups(records).items():
        spent = [f"{statistics.median(r['phases'].get(k, 0.0) for r in rs):.1f}" for k in names]
        whole = statistics.median(r["seconds"] for r in rs)
        lines.append(f"| {cell} | {label} | " + " | ".join(spent) + f" | {whole:.1f} |")
    return "\n".join(lines) + "\n"


# The files docs/lab/gate.md's proof table is rendered from (``render`` with no files).
PROOF = (
    "gate-seq-flask.json",
    "gate-seq-flask-aa.json",
    "gate-seq-flask-10.json",
    "gate-seq-flask-1s-aa.json",
    "gate-seq-flask-1s-10.json",
    "gate-seq-flask-1round.json",
)


def render(paths: Sequence[str] = (), write: bool = True) -> dict[Path, str]:
    """The proof table and the phase table into docs/lab/gate.md, between the markers: {doc: its new text}.  No
    ``paths``: the PROOF files in benchmarks/results/."""
    paths = list(paths) or [str(ROOT / "benchmarks" / "results" / name) for name in PROOF]
    records = load(paths)
    files = ", ".join(f"`{Path(p).name}`" for p in paths)
    text = (
        table(records)
        + "\nMedian seconds per decision by phase (`count`: the counted signal; then summed over the blocks):\n\n"
        + phases(records)
        + f"\nRendered from {files} in `benchmarks/results/`.\n"
    )
    doc = DOC.read_text()
    start, end = MARKS
    head, rest = doc.split(start, 1)
    new = head + start + text + rest[rest.index(end) :]
    if write:
        DOC.write_text(new)
        print(text)
    return {DOC: new}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="measure whole decisions, interleaved by condition")
    run.add_argument("--variant", default="aiohttp")
    run.add_argument("--app", help="default: the variant's reference app")
    run.add_argument("--runs", type=int, default=5, help="rounds (each condition of --order once per round)")
    run.add_argument("--conditions", default="A/A=burn:0,10%=burn:10,5%=burn:5", help="label=knob:value, ...")
    run.add_argument("--order", help="one round's conditions, repeats allowed, e.g. 'A/A,10%%,A/A,5%%'")
    run.add_argument("--cost-repeats", type=int, default=COST_REPEATS, help="the counted signal (0: none)")
    run.add_argument(
        "--rounds", type=int, help="rounds per block (default: the gate's; 1 alternates the cores by block)"
    )
    run.add_argument("--duration", type=int, help="seconds per window (default: the gate's)")
    run.add_argument("--budget", type=float, default=0, help="stop after the decision that passes this many seconds")
    run.add_argument("--out", required=True)
    sub.add_parser("summary", help="the summary of --out files").add_argument("files", nargs="+")
    sub.add_parser("render", help="the table of --out files (none: PROOF's)").add_argument("files", nargs="*")
    args = parser.parse_args()
    if args.command == "run":
        measure(args)
    elif args.command == "summary":
        records = load(args.files)
        print(table(records) + "\n" + phases(records))
    else:
        render(args.files)


if __name__ == "__main__":
    main()
