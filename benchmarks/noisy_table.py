"""docs/lab/gate.md's "does it cry wolf" block, rendered from benchmarks/noisy_gate.py's results file.

    .venv/bin/python benchmarks/noisy_gate.py render [--results FILE] [--doc FILE]

Per method over the A/A trials: the false-regression rate (with its one-sided 95% upper bound) and the rate of
"could not decide" (exit 3; a sequential compare always answers); per planted change: each method's outcome and
the seconds it took; then the noise, the machine and the commands that made the file.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
# The gate as it ships: the fixed rate's p90 never withholds the verdict for its dispersion (judge/signals.py,
# NOISY_TAIL).  Before that change the p90 could withhold it; those decisions are kept in a block of their own.
RESULTS = ROOT / "benchmarks/results/noisy-gate-tail.jsonl"
BEFORE = ROOT / "benchmarks/results/noisy-gate.jsonl"
DOC = ROOT / "docs/lab/gate.md"
README = ROOT / "README.md"
BLOCK, BEFORE_BLOCK, README_BLOCK = "noisy-gate", "noisy-gate-before", "noisy-gate-readme"
SHIPS = "as it ships (1 s windows)"
SHIPPED_BEFORE = "as it shipped before the p90 stopped withholding (1 s windows)"
GATE_MODES = {"on": "`serverbench gate`, counts on (the default)", "off": "`serverbench gate`, timed signals alone"}
NOT_YET = "Not measured yet on this tree: `python benchmarks/noisy_gate.py run`, then `render`.\n"


def upper(k: int, n: int) -> float:
    """The one-sided 95% upper bound of a rate seen k times in n (Clopper-Pearson)."""
    return 1.0 if k >= n else float(stats.beta.ppf(0.95, k + 1, n - k))


def _rate(k: int, n: int) -> str:
    return f"**{k} / {n}** (≤ {upper(k, n):.0%})"


def _range(values: list[float]) -> str:
    return f"{min(values):+.1%} … {max(values):+.1%}" if values else "–"


def _seconds(lines: list[dict]) -> str:
    return f"{statistics.median(r['seconds'] for r in lines):.0f} s" if lines else "–"


def _throughput(rec: dict) -> float | None:
    return ((rec.get("signals") or {}).get("throughput") or {}).get("delta")


# Which gate made a decision: lines say so (widening), or, older ones, by naming their windows' lengths (window_s): only
# the gate that doubled its windows after a look too noisy to judge (tried, then taken out) wrote that field.
TAKEN_OUT = "tried and taken out: windows doubled after a too-noisy look"


def widening(rec: dict) -> bool:
    return rec.get("widening", "window_s" in rec)


def aa_rows(lines: list[dict], ships: str = SHIPS) -> list[str]:
    designs = {False: ships, True: TAKEN_OUT}
    rows = []
    for (counts, label), design in ((m, d) for d in (False, True) for m in GATE_MODES.items()):
        runs = [
            r
            for r in lines
            if r["kind"] == "gate" and r["what"] == "A/A" and r["counts"] == counts and widening(r) == design
        ]
        label = f"{label}; {designs[design]}"
        if runs:
            n, wolf = len(runs), sum(r["exit_status"] == 1 for r in runs)
            unsure, passed = sum(r["exit_status"] == 3 for r in runs), sum(r["exit_status"] == 0 for r in runs)
            deltas = [d for d in map(_throughput, runs) if d is not None]
            rows.append(
                f"| {label} | {_rate(wolf, n)} | {unsure} / {n} ({unsure / n:.0%}) | {passed} "
                f"| {_range(deltas)} | {_seconds(runs)} |"
            )
    pairs = [r for r in lines if r["kind"] == "sequential" and r["what"] == "A/A" and "alarm" in r]
    for t in sorted({t for r in pairs for t in r["alarm"]}, key=float):
        wolf = sum(r["alarm"][t] for r in pairs)
        rows.append(
            f"| two `pytest -m perf` runs, alarm at {float(t):.0%} | {_rate(wolf, len(pairs))} | never (always answers) "
            f"| {len(pairs) - wolf} | {_range([r['delta'] for r in pairs])} | {_seconds(pairs)} |"
        )
    return rows


def _outcome(rec: dict) -> str:
    if rec["kind"] == "sequential":
        return f"Δ rps {rec['delta']:+.1%}" if "delta" in rec else "error"
    fired = [k for k, s in (rec.get("signals") or {}).items() if s.get("verdict") == "regression"]
    noisy = [k for k, s in (rec.get("signals") or {}).items() if s.get("verdict") == "rerun"]
    verdict = f"**{rec['verdict']}**" if rec["exit_status"] == 1 else rec["verdict"]
    logged = f", {rec['access_log_lines']:,} log lines" if "access_log_lines" in rec else ""
    why = ", ".join(fired) or (f"too noisy: {', '.join(noisy)}" if noisy else "no signal fired")
    return (
        f"{verdict} ({why}), {rec['seconds']:.0f} s{logged}{' (windows doubled when noisy)' if widening(rec) else ''}"
    )


def _environment(runs: list[dict]) -> str:
    rec = runs[0]
    env = re.sub(r"/tmp/noisy-gate-[^\s`]+", "FILE", ", ".join(f"`{k}={v}`" for k, v in rec["cand_env"].items()))
    if "burn_from" in rec:
        src = rec["burn_from"]
        env += (
            f" (5% of {src['base_cpu_us_per_request']:g} µs, the base's median CPU per request saturated over "
            f"{src['aa_decisions']} A/A decisions)"
        )
    return env


def plant_rows(lines: list[dict]) -> list[str]:
    rows = []
    for name in dict.fromkeys(r["what"] for r in lines if r["what"] != "A/A"):
        runs = [r for r in lines if r["what"] == name]
        label, workload = runs[0]["label"], runs[0]["workload"]
        cells = []
        for counts in GATE_MODES:
            cells.append("; ".join(_outcome(r) for r in runs if r["kind"] == "gate" and r["counts"] == counts) or "–")
        pairs = [r for r in runs if r["kind"] == "sequential" and "alarm" in r]
        seq = "–"
        if pairs:
            alarmed = " / ".join(f"{sum(r['alarm'][t] for r in pairs)}" for t in sorted(pairs[0]["alarm"], key=float))
            seq = f"{'; '.join(_outcome(r) for r in pairs)}: alarms {alarmed} of {len(pairs)}"
        gate_runs = [r for r in runs if r["kind"] == "gate"] or runs
        rows.append(f"| {label} (`/{workload}`) | {_environment(gate_runs)} | {cells[0]} | {cells[1]} | {seq} |")
    return rows


def verdict_in_words(lines: list[dict], ships: str = SHIPS) -> str:
    """The table's answer in one sentence: false regressions and could-not-decide over every A/A decision of the gate
    ``ships`` names (1 s windows), and the stored-point compare's false alarms over its A/A pairs."""
    shipped = [r for r in lines if r["kind"] == "gate" and r["what"] == "A/A" and not widening(r)]
    pairs = [r for r in lines if r["kind"] == "sequential" and r["what"] == "A/A" and "alarm" in r]
    if not shipped:
        return ""
    n, wolf, unsure = (
        len(shipped),
        sum(r["exit_status"] == 1 for r in shipped),
        sum(r["exit_status"] == 3 for r in shipped),
    )
    said = (
        f"Over {n} A/A decisions of the gate {ships.split(' (')[0]}, it raised {wolf} false regressions and could not decide "
        f"{unsure} ({unsure / n:.0%})"
    )
    if pairs:
        alarms = " and ".join(
            f"{sum(r['alarm'][t] for r in pairs)} at {float(t):.0%}" for t in sorted(pairs[0]["alarm"], key=float)
        )
        said += f"; two plain runs one after the other raised false alarms in {alarms} of {len(pairs)} pairs"
    return said + ".\n\n"


def table(lines: list[dict], ships: str = SHIPS, results: Path = RESULTS) -> str:
    """The block: the sentence, the A/A table, the plants' table and the commands, of the decisions in ``lines`` (from
    ``results``) by the gate ``ships`` names."""
    if not lines:
        return NOT_YET
    shares = [r["noise"]["cpu_share"] for r in lines]
    noise, box = lines[0]["noise"], lines[0]["machine"]
    days = sorted(r["started"][:10] for r in lines)
    argvs = sorted({" ".join(r.get("argv") or ["run"]) for r in lines})
    out = [
        verdict_in_words(lines, ships)
        + f"Measured on {box['cpu']} ({box['cores']} cores), {days[0]}"
        + (f" to {days[-1]}" if days[-1] != days[0] else "")
        + f", gunicorn-sync-w2 serving flask, with {noise['neighbours']} neighbours (each busy "
        f"{noise['busy_s'][0] * 1000:.0f} ms – {noise['busy_s'][1]:g} s, then idle {noise['idle_s'][0] * 1000:.0f} ms – "
        f"{noise['idle_s'][1]:g} s) taking {min(shares):.0%}–{max(shares):.0%} of the machine's CPU "
        f"(median {statistics.median(shares):.0%}) while each trial ran.",
        "",
        "| A/A (candidate = base) | false regressions (95% upper bound) | could not decide | passed "
        "| Δ throughput, range | median time |",
        "|---|---|---|---:|---|---:|",
        *aa_rows(lines, ships),
        "",
        "| planted change | the candidate's environment | counts on | timed signals alone "
        "| two `pytest -m perf` runs (alarms at 5% / 10%) |",
        "|---|---|---|---|---|",
        *plant_rows(lines),
        "",
        "Made by "
        + ", ".join(f"`python benchmarks/noisy_gate.py {a}`" for a in argvs)
        + f"; every trial's line is in `benchmarks/results/{results.name}`.",
    ]
    errors = [r["key"] for r in lines if r.get("verdict") == "error"]
    if errors:
        out.append(f"Ended in an error (not counted above as a pass): {', '.join(errors)}.")
    return "\n".join(out) + "\n"


def _read(results: Path) -> list[dict]:
    return [json.loads(x) for x in results.read_text().splitlines() if x.strip()] if results.exists() else []


def claim(lines: list[dict]) -> str:
    """The README's sentence: the shipped gate's A/A outcomes and planted changes under noise, beside the stored-point
    compare's false alarms at its lowest threshold."""
    shipped = [r for r in lines if r["kind"] == "gate" and r["what"] == "A/A" and not widening(r)]
    if not shipped:
        return NOT_YET
    plants = [r for r in lines if r["kind"] == "gate" and r["what"] != "A/A"]
    caught = sum(r["exit_status"] == 1 for r in plants)
    pairs = [r for r in lines if r["kind"] == "sequential" and r["what"] == "A/A" and "alarm" in r]
    shares = [r["noise"]["cpu_share"] for r in lines]
    low = min(pairs[0]["alarm"], key=float) if pairs else None
    said = (
        f"On a {lines[0]['machine']['cores']}-core machine with neighbours stealing {min(shares):.0%}–{max(shares):.0%}"
        f" of its CPU in random bursts, the gate gave {sum(r['exit_status'] == 1 for r in shipped)} false regressions"
        f' and {sum(r["exit_status"] == 3 for r in shipped)} "could not decide" in {len(shipped)} A/A decisions, and'
        f" decided {caught} of {len(plants)} planted changes ({', '.join(dict.fromkeys(r['label'] for r in plants))},"
        " each with the counted signal on and off) a regression"
    )
    if low is not None:
        said += (
            f"; two plain runs one after the other, compared at {float(low):.0%}, raised false alarms in"
            f" {sum(r['alarm'][low] for r in pairs)} of {len(pairs)} pairs"
        )
    return said + " ([how it was measured](docs/lab/gate.md)).\n"


def render(results: Path = RESULTS, doc: Path = DOC, write: bool = True, before: Path = BEFORE) -> dict[Path, str]:
    """``doc`` with its noisy-gate block rendered from ``results`` (the gate as it ships) and its noisy-gate-before
    block from ``before`` (the decisions made before the p90 stopped withholding), and the README's sentence from
    ``results``; written when ``write``."""
    shipped = _read(results)
    text = rewrite(doc, BLOCK, table(shipped, SHIPS, results), write=False)[doc]
    pages = rewrite(doc, BEFORE_BLOCK, table(_read(before), SHIPPED_BEFORE, before), write, text=text)
    return pages | rewrite(README, README_BLOCK, claim(shipped), write)
