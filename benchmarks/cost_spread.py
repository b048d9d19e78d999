"""A/A spread of what a count reads: fresh counts of each cell's /json, every figure a count keeps.

    sblock shared .venv/bin/python benchmarks/cost_spread.py run \\
        --variants gunicorn-sync-w2,gunicorn-gthread-t10,uvicorn --runs 20
    sblock shared .venv/bin/python benchmarks/cost_spread.py run --runs 10 \\
        --variants hypercorn,uwsgi-p2t2,uvicorn,gevent-pywsgi-nodelay --against 96f5503 --against aba3082
    sblock shared .venv/bin/python benchmarks/cost_spread.py stages --runs 4
    sblock shared .venv/bin/python benchmarks/cost_spread.py pairs --runs 12 \\
        --variants gunicorn-sync-w2,gevent-pywsgi-nodelay --label after
    .venv/bin/python benchmarks/cost_spread.py render    # docs/lab/cost.md's A/A blocks, from the results file
    .venv/bin/python benchmarks/cost_spread.py table benchmarks/results/cost-spread.json  # instructions only

Each count is a fresh server under valgrind (measure/counting/cost.py), 200 requests, two counts at a time (two cores), as
``pytest -m cost -n 2`` counts.  Per count the results file (benchmarks/results/cost-aa.json) keeps instructions per
request, system calls per request by name, socket bytes sent and received, connections opened and memory kept;
entries are merged per variant, so batches can be run one by one.  ``--against COMMIT`` keeps, per cell, the
instructions per request of the cost baseline committed at COMMIT (the drift between machines or harnesses).
``stages``: counts one at a time, taking turns holding the stage ``serverbench-paths-00`` and ``-01``
(measure/counting/fixedpaths.py: two counts at once hold two stages, whose names differ in one character; since
measure/counting/stagemount.py, each server sees ``-00`` where a mount namespace can be made), the stage each count held
recorded.
``pairs``: counts two at a time, as ``pytest -m cost -n 2`` counts, each keeping the stage it held (its slot) and the
stage its server saw (the one its processes' command lines name), under a ``--label`` (the code: before, after).

``render`` rewrites five blocks of docs/lab/cost.md: ``cost-aa``, the spread of every figure per cell (its range: highest
less lowest), and ``cost-aa-rule``, what a baseline written from ``COUNTS`` of them would have judged: each run of
``COUNTS`` consecutive counts made a baseline (its median count and its spread, records/cost.py), and every other
count of the cell was judged against it by judge/cost.py, with the session's 2% as the floor and without one;
``cost-aa-drift``, the cells that drifted most between machines, against their committed baselines; ``cost-aa-stages``;
``cost-aa-pairs``, the pairs' counts by the stage held and seen; ``cost-aa-saved``, the committed baselines' entries that
keep a spread.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.judge.cost import Tolerance, judge_cost, spread
from serverbench.judge.system import VDSO
from serverbench.measure.counting import fixedpaths
from serverbench.measure.counting.cost import CostPlan, counting_environment, measure_cost
from serverbench.records.cost import CostBaseline, CostRecord, SystemCounts, environment_id, written_from

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks/results/cost-aa.json"
BASELINES = ROOT / "baselines/cost"  # saved_table: the committed entries that keep a spread
DOC = ROOT / "docs/lab/cost.md"
TOLERANCE = 0.02  # pytest -m cost's default instruction tolerance
COUNTS = 5  # counts a baseline is written from (--perf-cost-baseline-counts' default)
# The cells of the A/A block, one per way of serving: what the issue asks for (a sync, a threaded and an event-loop server).
KINDS = {"gunicorn-sync-w2": "sync", "gunicorn-gthread-t10": "threaded", "uvicorn": "event loop"}
# The cells that drifted most from the AMD EPYC's baselines to this machine's (docs/lab/measurements.md).
DRIFTED = ("hypercorn", "uwsgi-p2t2", "uvicorn", "gevent-pywsgi-nodelay")


def count(variant: str, requests: int) -> dict:
    """One fresh count of ``variant``'s /json: every figure it reads."""
    v = registry()[variant]
    r = measure_cost(CostPlan(v, v.default_app, WORKLOADS["json"], requests=requests, apps_dir=ROOT / "apps"))
    return {
        "per_request": r.per_request,
        "calls": None if r.system is None else {k: round(n, 4) for k, n in sorted(r.system.calls.items())},
        "sent": None if r.system is None else round(r.system.sent, 1),
        "received": None if r.system is None else round(r.system.received, 1),
        "connections": None if r.system is None else round(r.system.connections, 4),
        "system_absent": r.system_absent,
        "kept": None if r.kept_per_request is None else round(r.kept_per_request, 1),
        "kept_absent": r.kept_absent,
        "wall_s": round(r.wall_s, 2),
        "timestamp": r.timestamp,
        "processes": [p.instructions for p in r.processes],
        "seen": seen_stage([p.command for p in r.processes]),
    }


def seen_stage(commands: list[str]) -> str | None:
    """The stage the server's processes were started through, as their command lines name it (None: none named)."""
    named = {m for c in commands for m in re.findall(rf"{re.escape(fixedpaths.STAGE_PREFIX)}\d\d", c)}
    return ",".join(sorted(named)) or None


def committed(commit: str, key: str) -> float | None:
    """Instructions per request of ``key`` in the cost baseline committed at ``commit`` (None: not there)."""
    v = registry()[key.split("/")[0]]
    name = environment_id(counting_environment(CostPlan(v, v.default_app, WORKLOADS["json"], apps_dir=ROOT / "apps")))
    shown = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:baselines/cost/{name}.json"], capture_output=True, text=True
    )
    if shown.returncode != 0:
        return None
    entry = json.loads(shown.stdout)["entries"].get(key)
    return None if entry is None else float(entry["per_request"])


def run(variants: list[str], runs: int, requests: int, out: Path, against: list[str], command: str) -> None:
    data = json.loads(out.read_text()) if out.exists() else {"cells": {}}
    data.update(
        {
            "command": command if not data.get("command") else data["command"],
            "machine": f"{_cpu()}, {len(os.sched_getaffinity(0))} cores",
            "python": platform.python_version(),
        }
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        for variant in variants:
            started = time.monotonic()
            counts = list(pool.map(lambda _, variant=variant: count(variant, requests), range(runs)))
            app = registry()[variant].default_app.name
            key = f"{variant}/{app}/json/n{requests}"
            data["cells"][variant] = {
                "app": app,
                "requests": requests,
                "command": command,
                "date": datetime.date.today().isoformat(),
                "seconds": round(time.monotonic() - started),
                "committed": {commit: committed(commit, key) for commit in against},
                "runs": counts,
            }
            values = [c["per_request"] for c in counts]
            print(
                f"{variant}: median {statistics.median(values):,.0f} spread {spread(values):.3%} "
                f"({time.monotonic() - started:.0f} s)",
                flush=True,
            )
            out.write_text(json.dumps(data, indent=1) + "\n")


def stages(variants: list[str], runs: int, requests: int, out: Path, command: str) -> None:
    """``runs`` pairs of counts of each variant, one count at a time: the first on the lowest free stage, the second
    with that stage held (so on the next); each count keeps the stage it used."""
    data = json.loads(out.read_text()) if out.exists() else {"cells": {}}
    used: list[str] = []
    claimed = fixedpaths.claimed_stage

    @contextlib.contextmanager
    def recorded(*args, **kwargs):
        with claimed(*args, **kwargs) as stage:
            used.append(stage.name)
            yield stage

    fixedpaths.claimed_stage = recorded  # fixed_paths looks it up at each count
    try:
        for variant in variants:
            counts = []
            for _ in range(runs):
                for held in (False, True):
                    with claimed() if held else contextlib.nullcontext():
                        counts.append({**count(variant, requests), "stage": used[-1]})
                    print(f"{variant}: {used[-1]} {counts[-1]['per_request']:,.0f}", flush=True)
            data.setdefault("stages", {})[variant] = {
                "app": registry()[variant].default_app.name,
                "requests": requests,
                "command": command,
                "date": datetime.date.today().isoformat(),
                "runs": counts,
            }
            out.write_text(json.dumps(data, indent=1) + "\n")
    finally:
        fixedpaths.claimed_stage = claimed


def pairs(variants: list[str], runs: int, requests: int, out: Path, label: str, command: str) -> None:
    """``runs`` counts of each variant, two at a time: each count keeps the stage it held and the one its server saw."""
    data = json.loads(out.read_text()) if out.exists() else {"cells": {}}
    held = threading.local()
    claimed = fixedpaths.claimed_stage

    @contextlib.contextmanager
    def recorded(*args, **kwargs):
        with claimed(*args, **kwargs) as stage:
            held.name = stage.name
            yield stage

    def one(variant: str) -> dict:
        counted = count(variant, requests)
        return {**counted, "held": held.name}

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    fixedpaths.claimed_stage = recorded  # fixed_paths looks it up at each count
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for variant in variants:
                started = time.monotonic()
                counts = list(pool.map(lambda _, variant=variant: one(variant), range(runs)))
                data.setdefault("pairs", {}).setdefault(variant, {})[label] = {
                    "app": registry()[variant].default_app.name,
                    "requests": requests,
                    "command": command,
                    "commit": commit.stdout.strip(),
                    "date": datetime.date.today().isoformat(),
                    "seconds": round(time.monotonic() - started),
                    "runs": counts,
                }
                for c in counts:
                    print(f"{variant} {label}: held {c['held']} seen {c['seen']} {c['per_request']:,.0f}", flush=True)
                out.write_text(json.dumps(data, indent=1) + "\n")
    finally:
        fixedpaths.claimed_stage = claimed


def _cpu() -> str:
    for text in Path("/proc/cpuinfo").read_text().splitlines():
        if text.startswith("model name"):
            return text.split(":", 1)[1].strip()
    return platform.machine()


def figures(runs: list[dict]) -> dict[str, list[float]]:
    """Every figure of these counts, per request, one value per count: a call absent from a count reads 0 there."""
    out = {"instructions": [r["per_request"] for r in runs]}
    if all(r["calls"] is not None for r in runs):
        for name in sorted({n for r in runs for n in r["calls"]}, key=lambda n: (n in VDSO, n)):
            out[name] = [r["calls"].get(name, 0.0) for r in runs]
        for what in ("connections", "sent", "received"):
            out[what] = [r[what] for r in runs]
    if all(r["kept"] is not None for r in runs):
        out["kept"] = [r["kept"] for r in runs]
    return out


LABELS = {
    "instructions": "instructions",
    "connections": "connections opened",
    "sent": "bytes sent",
    "received": "bytes received",
    "kept": "memory kept, bytes",
}


def _cell(what: str, values: list[float]) -> str:
    """``median (low-high, range)``: instructions with the range as a share of the median; bytes whole."""
    low, high, median = min(values), max(values), statistics.median(values)
    if what == "instructions":
        return f"{median:,.0f} ({low:,.0f}-{high:,.0f}, {spread(values):.3%})"
    if what in ("sent", "received", "kept"):
        return f"{median:,.0f}" if low == high else f"{median:,.0f} ({low:,.0f}-{high:,.0f}, {high - low:,.0f})"
    return f"{median:.3f}" if low == high else f"{median:.3f} ({low:.3f}-{high:.3f}, {high - low:.3f})"


def aa_table(data: dict) -> str:
    """Per figure, per cell: the median of its counts, and where they differ, lowest-highest and the range."""
    cells = [(v, data["cells"][v]) for v in KINDS if v in data["cells"]]
    per = {v: figures(e["runs"]) for v, e in cells}
    names = list(dict.fromkeys(n for v, _ in cells for n in per[v]))
    order = ["instructions"] + sorted((n for n in names if n not in LABELS), key=lambda n: (n in VDSO, n))
    order += [n for n in LABELS if n in names and n != "instructions"]
    head = " | ".join(f"{v}/{e['app']} ({KINDS[v]}, {len(e['runs'])} counts)" for v, e in cells)
    lines = [f"| per request | {head} |", "|---" * (len(cells) + 1) + "|"]
    for name in order:
        label = LABELS.get(name, f"`{name}`" + (" (vDSO)" if name in VDSO else ""))
        row = [_cell(name, per[v][name]) if name in per[v] else "-" for v, _ in cells]
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    dates = sorted({e["date"] for _, e in cells})
    took = ", ".join(f"{v} {e['seconds'] / len(e['runs']) * 2:.0f} s" for v, e in cells)
    commands = "; ".join(f"`{c}`" for c in dict.fromkeys(e["command"] for _, e in cells))
    lines += [
        "",
        f"{cells[0][1]['requests']} requests a count, two counts at a time; {', '.join(dates)}, {data['machine']}; "
        f"{commands}.  A count took (wall, two at a time): {took}.",
    ]
    return "\n".join(lines) + "\n"


def record_of(variant: str, entry: dict, run: dict) -> CostRecord:
    """A count of the results file as the cost record judge/cost.py reads (its figures only: no functions)."""
    system = None
    if run["calls"] is not None:
        system = SystemCounts(run["calls"], run["sent"], run["received"], run["connections"])
    requests = entry["requests"]
    return CostRecord(
        "",
        variant,
        entry["app"],
        "json",
        "/json",
        requests,
        round(run["per_request"] * requests),
        (),
        (),
        {},
        run["wall_s"],
        run["timestamp"],
        system=system,
        kept_per_request=run["kept"],
    )


def judged(variant: str, entry: dict, counts: int = COUNTS, floor: float = TOLERANCE) -> tuple[int, int, list]:
    """Each run of ``counts`` consecutive counts as a baseline (its median count, its spread; one count: that count,
    no spread, as a baseline was written before), every other count of the cell judged against it: (fails,
    judgements, the tolerances judged by)."""
    records = [record_of(variant, entry, r) for r in entry["runs"]]
    fails = total = 0
    stated: list = []
    for start in range(len(records) - counts + 1):
        window = records[start : start + counts]
        baseline = CostBaseline.of(written_from(window))
        for other in records[:start] + records[start + counts :]:
            verdict = judge_cost(other, baseline, floor)
            fails += verdict.failed
            total += 1
            stated.append(verdict.tolerance)
    return fails, total, stated


GRID = ((3, 2.0), (3, 3.0), (5, 2.0), (5, 3.0), (7, 2.0), (7, 3.0))  # (counts, factor) the rule was chosen among


def outside(values: list[float], counts: int, factor: float) -> tuple[int, int, int]:
    """Each run of ``counts`` consecutive counts, every other count checked against their median count: how many fall
    further from it, either way, than ``factor`` x their spread ((max - min) / median), how many of those above it
    (a verdict fails rises only), of how many checked."""
    out = rises = total = 0
    for start in range(len(values) - counts + 1):
        window = values[start : start + counts]
        middle, width = sorted(window)[counts // 2], factor * spread(window)
        for other in values[:start] + values[start + counts :]:
            total += 1
            out += abs(other / middle - 1) > width
            rises += other / middle - 1 > width
    return out, rises, total


def _outside(out: int, rises: int, total: int) -> str:
    return f"{out} of {total}" + (f" ({rises} above)" if out else "")


def rule_table(data: dict) -> str:
    """Per cell: what baselines written from COUNTS counts judge (judge/cost.py, the 2% floor, system calls too) and
    the instruction tolerance they state; what baselines of one count each (no spread: the constant) judge; and, for
    each (counts, factor) of GRID, the counts outside factor x the spread of their baseline's counts (no floor)."""
    grid = " | ".join(f"{n} counts, {k:g}x" for n, k in GRID)
    lines = [
        f"| cell | counts | false fails: baselines of {COUNTS} counts (tolerance stated) | of one count each "
        f"({TOLERANCE:.0%}) | outside: {grid} |",
        "|---" * (4 + len(GRID)) + "|",
    ]
    for variant, entry in data["cells"].items():
        fails, total, stated = judged(variant, entry)
        single, singles, _ = judged(variant, entry, counts=1)
        values = [r["per_request"] for r in entry["runs"]]
        cells = " | ".join(_outside(*outside(values, n, k)) for n, k in GRID)
        lines.append(
            f"| {variant}/{entry['app']} | {len(values)} | {fails} of {total} ({_range(stated)}) | "
            f"{single} of {singles} | {cells} |"
        )
    return "\n".join(lines) + "\n"


def _range(tolerances: list) -> str:
    """The instruction tolerances judged by, as ``±low-high%``."""
    values = sorted(t.value for t in tolerances)
    return f"±{values[0]:.1%}" if values[0] == values[-1] else f"±{values[0]:.1%}-{values[-1]:.1%}"


def drift_table(data: dict) -> str:
    """The drifted cells: their counts' median and spread here, against the baselines committed at each commit."""
    commits = list(dict.fromkeys(c for v in DRIFTED if v in data["cells"] for c in data["cells"][v]["committed"]))
    lines = [
        "| cell | counts | median | lowest | highest | spread | s a count | "
        + " | ".join(f"vs baseline at {c}" for c in commits)
        + " |",
        "|---" * (7 + len(commits)) + "|",
    ]
    for variant in DRIFTED:
        entry = data["cells"].get(variant)
        if entry is None:
            continue
        values = [r["per_request"] for r in entry["runs"]]
        median = statistics.median(values)
        against = [entry["committed"].get(c) for c in commits]
        lines.append(
            f"| {variant}/{entry['app']} | {len(values)} | {median:,.0f} | {min(values):,.0f} | {max(values):,.0f} | "
            f"{spread(values):.3%} | {entry['seconds'] / len(values) * 2:.0f} | "
            + " | ".join("-" if b is None else f"{median / b - 1:+.2%} ({b:,.0f})" for b in against)
            + " |"
        )
    shown = [data["cells"][v] for v in DRIFTED if v in data["cells"]]
    lines += _caption(
        f"Instructions per request, {shown[0]['requests']} requests a count, two counts at a time (s a count: wall "
        "time, two at a time)",
        shown,
        data["machine"],
    )
    return "\n".join(lines) + "\n"


def _caption(text: str, shown: list[dict], machine: str = "") -> list[str]:
    """A block's closing line: ``text``, the dates the counts of ``shown`` were made (and the machine), the commands."""
    commands = "; ".join(f"`{c}`" for c in dict.fromkeys(e["command"] for e in shown))
    dates = ", ".join(sorted({e["date"] for e in shown}))
    return ["", f"{text}; {dates}{f', {machine}' if machine else ''}; {commands}."]


def stages_table(data: dict) -> str:
    """Per cell: the counts on each stage, their median and range, and the difference between the stages' medians."""
    lines = ["| cell | stage | counts | median | lowest | highest | spread | vs the first stage |", "|---" * 8 + "|"]
    for variant, entry in data.get("stages", {}).items():
        by_stage: dict[str, list[float]] = {}
        for r in entry["runs"]:
            by_stage.setdefault(r["stage"], []).append(r["per_request"])
        first = None
        for stage, values in sorted(by_stage.items()):
            median = statistics.median(values)
            first = first or median
            lines.append(
                f"| {variant}/{entry['app']} | `{stage}` | {len(values)} | {median:,.0f} | {min(values):,.0f} | "
                f"{max(values):,.0f} | {spread(values):.3%} | {median / first - 1:+.3%} |"
            )
    shown = list(data.get("stages", {}).values())
    if shown:
        lines += _caption(
            f"Instructions per request, {shown[0]['requests']} requests a count, one count at a time, each count on "
            "the lowest free stage, every second one with that stage held (another session's counts held some)",
            shown,
        )
    return "\n".join(lines) + "\n"


def _row(cell: str, label: str, held: str, seen: str, values: list[float], first: float | None) -> str:
    median = statistics.median(values)
    return (
        f"| {cell} | {label} | {held} | {seen} | {len(values)} | {median:,.0f} | {min(values):,.0f} | "
        f"{max(values):,.0f} | {spread(values):.3%} | {'' if first is None else f'{median / first - 1:+.3%}'} |"
    )


def pairs_table(data: dict) -> str:
    """Per cell and code: all its counts two at a time, then those of each stage held (with the stage its server saw),
    their median, range and spread, and each median against the first stage's."""
    lines = [
        "| cell | code | stage held | stage seen | counts | median | lowest | highest | spread | vs the first stage |",
        "|---" * 10 + "|",
    ]
    shown = []
    for variant, labels in data.get("pairs", {}).items():
        for label, entry in labels.items():
            shown.append(entry)
            cell, code = f"{variant}/{entry['app']}", f"{label} ({entry['commit']})"
            values = [r["per_request"] for r in entry["runs"]]
            by_held: dict[str, list[dict]] = {}
            for r in entry["runs"]:
                by_held.setdefault(r["held"], []).append(r)
            first = statistics.median([r["per_request"] for r in by_held[min(by_held)]])
            lines.append(_row(cell, code, "all", "", values, None))
            for held, runs in sorted(by_held.items()):
                seen = ", ".join(f"`{s}`" for s in sorted({str(r["seen"]) for r in runs}))
                lines.append(_row(cell, code, f"`{held}`", seen, [r["per_request"] for r in runs], first))
    if shown:
        lines += _caption(
            f"Instructions per request, {shown[0]['requests']} requests a count, two counts at a time (as `pytest -m "
            "cost -n 2` counts)",
            shown,
            data["machine"],
        )
    return "\n".join(lines) + "\n"


def saved_table(data: dict) -> str:
    """The committed cost baselines' entries that keep a spread: their count, the spread of the counts they were written
    from, the instruction tolerance it gives at the default 2%, and the system calls whose counts differed."""
    lines = [
        "| cell | written | counts | instructions/request | spread | tolerance at 2% | system calls that differed, range "
        "per request (vDSO left out) |",
        "|---" * 7 + "|",
    ]
    for path in sorted(BASELINES.glob("*.json")):
        for key, entry in sorted(json.loads(path.read_text())["entries"].items()):
            kept = entry.get("spread")
            if kept is None:
                continue
            calls = {n: v for n, v in kept.get("calls", {}).items() if n not in VDSO}
            tolerance = Tolerance(TOLERANCE, kept["counts"], kept["instructions"])
            lines.append(
                f"| {key} | {entry['recorded_at'][:16].replace('T', ' ')} | {kept['counts']} | "
                f"{entry['per_request']:,.0f} | {kept['instructions']:.2%} | ±{tolerance.value:.1%} | "
                + (", ".join(f"`{n}` {v:.3f}" for n, v in sorted(calls.items())) or "none")
                + " |"
            )
    return "\n".join(lines) + "\n"


def committed_table(data: dict) -> str:
    """One fresh count of every /json cell against the committed baselines as they stood: how far each moved, how many
    within 0.5%, and the cells beyond a quarter of a percent."""
    got = data.get("committed")
    if not got:
        return "(not measured yet)\n"
    cells = got["cells"]
    drift = {cell: (c["ratio"] - 1.0) for cell, c in cells.items()}
    within = sum(1 for d in drift.values() if abs(d) <= 0.005)
    lines = [
        f"{len(cells)} cells counted once each at {got['code']} against the baselines committed at "
        f"{got['baselines_at']} (`{got['command']}`, {got['date']}): median drift "
        f"{statistics.median(abs(d) for d in drift.values()):.2%}, {within} of {len(cells)} within 0.5%, all passing; "
        f"{', '.join(got['no_baseline']) or 'none'} had no baseline.  The cells beyond 0.25%:",
        "",
        "| cell | count | baseline | drift | its tolerance | from a spread of |",
        "|---|---|---|---|---|---|",
    ]
    for cell, d in sorted(drift.items(), key=lambda item: -abs(item[1])):
        if abs(d) <= 0.0025:
            continue
        c = cells[cell]
        spread = f"{c['spread_counts']} counts" if c["spread_counts"] else "none (a constant)"
        lines.append(
            f"| {cell} | {c['count']:,.0f} | {c['baseline']:,.0f} | {d:+.2%} | ±{c['tolerance']:.1%} | {spread} |"
        )
    return "\n".join(lines) + "\n"


BLOCKS = {
    "cost-aa": aa_table,
    "cost-aa-rule": rule_table,
    "cost-aa-drift": drift_table,
    "cost-aa-stages": stages_table,
    "cost-aa-pairs": pairs_table,
    "cost-aa-saved": saved_table,
    "cost-aa-committed": committed_table,
}


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/cost.md with its A/A blocks rendered from the results file; written when ``write``."""
    data = json.loads(RESULTS.read_text())
    text = DOC.read_text()
    for name, block in BLOCKS.items():  # one after the other, on the text the previous one left
        text = rewrite(DOC, name, block(data), write, text)[DOC]
    return {DOC: text}


def table(path: Path) -> str:
    """The instructions-only table of an older results file (benchmarks/results/cost-spread.json, 12 variants)."""
    data = json.loads(path.read_text())
    lines = [
        "| variant (app, /json) | runs | median instr/request | spread (max-min)/median | A/A flags at 2% "
        "(runs 2..n vs run 1) | median wall s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for variant, entry in data.items():
        values = [c["per_request"] for c in entry["runs"]]
        flags = sum(1 for v in values[1:] if v > values[0] * (1 + TOLERANCE))
        wall = statistics.median(c["wall_s"] for c in entry["runs"])
        lines.append(
            f"| {variant} ({entry['app']}) | {len(values)} | {statistics.median(values):,.0f} | "
            f"{spread(values):.3%} | {flags}/{len(values) - 1} | {wall:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    if argv == ["render"]:
        render()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    counted = sub.add_parser("run", help="count each variant's /json --runs times")
    counted.add_argument("--variants", default=",".join(KINDS))
    counted.add_argument("--runs", type=int, default=20)
    counted.add_argument("--requests", type=int, default=200)
    counted.add_argument("--out", type=Path, default=RESULTS)
    counted.add_argument("--against", action="append", default=[], help="a commit whose committed baseline to keep")
    turns = sub.add_parser("stages", help="count each variant one at a time, taking turns on two stages")
    turns.add_argument("--variants", default=",".join(KINDS))
    turns.add_argument("--runs", type=int, default=4, help="pairs of counts")
    turns.add_argument("--requests", type=int, default=200)
    turns.add_argument("--out", type=Path, default=RESULTS)
    together = sub.add_parser("pairs", help="count each variant two at a time, keeping the stage held and seen")
    together.add_argument("--variants", default="gunicorn-sync-w2,gevent-pywsgi-nodelay")
    together.add_argument("--runs", type=int, default=12)
    together.add_argument("--requests", type=int, default=200)
    together.add_argument("--label", required=True, help="the code counted: before, after")
    together.add_argument("--out", type=Path, default=RESULTS)
    older = sub.add_parser("table", help="the instructions-only table of an older results file")
    older.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    if args.what == "table":
        print(table(args.path))
        return
    command = "python benchmarks/cost_spread.py " + " ".join(argv)
    if args.what == "pairs":
        pairs([v for v in args.variants.split(",") if v], args.runs, args.requests, args.out, args.label, command)
        return
    if args.what == "stages":
        stages([v for v in args.variants.split(",") if v], args.runs, args.requests, args.out, command)
        return
    run([v for v in args.variants.split(",") if v], args.runs, args.requests, args.out, args.against, command)


if __name__ == "__main__":
    main(sys.argv[1:])
