"""Proof of the A/B gate: A/A false-failure rate, detection of injected 10% and 5% slowdowns, decision time.

    .venv/bin/python benchmarks/ab_rates.py --runs 20 --out ab-rates.json

Each run is one whole gated decision (`serverbench.ab.run` of an `ABPlan` with the gate's policy and
signals: saturated throughput, latency p50/p90 and CPU per request at the fixed rate) of aiohttp
on /json.  The injected cost is the apps' test-only knob SERVERBENCH_BURN_US (CPU burnt per
request), calibrated from a first A/A run so that it costs 10% / 5% of throughput when the server
is CPU-bound, or SERVERBENCH_DELAY_US (a wait without CPU: a latency-only regression; condition
names starting with "delay").  Runs are interleaved (A/A, 10%, 5%, A/A, …) so drift hits all
alike.  Every decision is appended to --out as it completes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from scipy import stats

from serverbench.ab import run as run_decision
from serverbench.abplan import ABPlan, Arm
from serverbench.catalog.matrix import Cell
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.judge.ab import GATE_BLOCKS, GATE_POLICY
from serverbench.judge.decision import Policy

ROOT = Path(__file__).resolve().parents[1]


def decision(variant, workload, knob: str, value: int, blocks: int, policy: Policy) -> dict:
    apps = ROOT / "apps"
    # Both arms run the knob middleware (0 in the base): the arms differ only by the injected cost.
    # One attempt (retries=0), as the proof figures are for a single attempt.
    run = run_decision(
        ABPlan(
            Cell(variant, variant.default_app),
            workload,
            Arm("base", apps_dir=apps, env={knob: "0"}),
            Arm("candidate", apps_dir=apps, env={knob: str(value)}),
            blocks=blocks,
            policy=policy,
            retries=0,
        )
    )
    base_cpu = [
        1e6 * w.result.server_cpu_s / max(w.result.load.good_requests, 1)
        for w in run.windows
        if w.arm == "base" and w.phase == "saturated"
    ]
    t = run.throughput
    return {
        "knob": knob,
        "value": value,
        "verdict": run.verdict,
        "delta": t.delta,
        "ci": t.ci,
        "p": t.p,
        "n": t.n,
        "dispersion": t.dispersion,
        "signals": {
            k: {"verdict": d.verdict, "delta": d.delta, "ci": d.ci, "p": d.p, "n": d.n, "dispersion": d.dispersion}
            for k, d in run.decisions.items()
        },
        "rate": run.rate,
        "extended": run.extended,
        "reruns": run.reruns,
        "seconds": run.seconds,
        "base_cpu_us_per_request": statistics.median(base_cpu),
    }


def knob_of(label: str) -> str:
    return "SERVERBENCH_DELAY_US" if label.startswith("delay") else "SERVERBENCH_BURN_US"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="decisions per condition")
    parser.add_argument("--out", default="ab-rates.json")
    parser.add_argument("--blocks", type=int, default=GATE_BLOCKS, help="fresh-server blocks (one pair each)")
    parser.add_argument("--max-dispersion", type=float, default=GATE_POLICY.max_dispersion)
    parser.add_argument("--conditions", default="A/A,10%,5%", help="which of A/A, 10%%, 5%% to run")
    parser.add_argument("--burns", help="explicit burns instead of calibration, e.g. 'A/A=0,10%%=12,5%%=6' (µs)")
    parser.add_argument("--delays", default="", help="latency-only conditions, e.g. 'delay1ms=1000' (µs waited)")
    parser.add_argument("--delay-every", type=int, default=1, help="run the delay conditions every Nth round")
    parser.add_argument(
        "--order",
        help="the conditions of one round, repeats allowed, e.g. 'A/A,5%%,A/A,10%%' (default: each condition once)",
    )
    parser.add_argument("--summarize", nargs="+", metavar="OUT", help="only summarize these --out files together")
    args = parser.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    policy = Policy(alpha=GATE_POLICY.alpha, min_effect=GATE_POLICY.min_effect, max_dispersion=args.max_dispersion)
    variant, workload = registry()["aiohttp"], WORKLOADS["json"]
    out = Path(args.out)
    records: list[dict] = []
    calib: dict = {}
    if args.burns:  # explicit burns: no calibration run
        burns = {k: int(v) for k, v in (item.split("=") for item in args.burns.split(","))}
    else:
        calib = decision(variant, workload, "SERVERBENCH_BURN_US", 0, args.blocks, policy)
        cpu = calib["base_cpu_us_per_request"]
        # Throughput of a CPU-bound server scales as 1/cost: a drop d needs cost × 1/(1-d).
        burns = {"A/A": 0, "10%": round(cpu * (1 / 0.90 - 1)), "5%": round(cpu * (1 / 0.95 - 1))}
        print(f"calibration (an A/A decision): {calib['verdict']}, base {cpu:.1f} µs CPU/request", flush=True)
    burns = {k: v for k, v in burns.items() if k in args.conditions.split(",")}
    delays = {k: int(v) for k, v in (item.split("=") for item in args.delays.split(",") if item)}
    print(f"burns (µs): {burns}", flush=True)
    started = time.monotonic()
    for i in range(args.runs):
        order = args.order.split(",") if args.order else list(burns)
        todo = [(k, burns[k]) for k in order if k in burns]
        todo += list(delays.items()) if i % args.delay_every == 0 else []
        for label, value in todo:
            rec = {
                "condition": label,
                "round": i,
                **decision(variant, workload, knob_of(label), value, args.blocks, policy),
            }
            records.append(rec)
            out.write_text(
                json.dumps(
                    {
                        "calibration": calib,
                        "burns": burns,
                        "delays": delays,
                        "blocks": args.blocks,
                        "max_dispersion": args.max_dispersion,
                        "decisions": records,
                    },
                    indent=1,
                )
            )
            print(
                f"{i + 1:2d} {label:4s} {rec['verdict']:12s} Δ {rec['delta']:+.1%} p={rec['p']:.4f} "
                f"n={rec['n']} disp={rec['dispersion']:.1%} {rec['seconds']:.0f}s | "
                + " ".join(f"{k}:{d['verdict']}:{d['delta']:+.1%}" for k, d in rec["signals"].items()),
                flush=True,
            )
    print(f"total {time.monotonic() - started:.0f} s")
    print(summary(records))


def summary(records: list[dict]) -> str:
    """Per condition: how often the gate said regression (with a 95% Clopper-Pearson interval), the other
    verdicts, which signals fired, the median measured change of throughput and CPU, and the decision time."""
    lines = []
    for label in dict.fromkeys(r["condition"] for r in records):
        rs = [r for r in records if r["condition"] == label]
        k, n = sum(r["verdict"] == "regression" for r in rs), len(rs)
        lo = stats.beta.ppf(0.025, k, n - k + 1) if k else 0.0
        hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
        verdicts = {v: sum(r["verdict"] == v for r in rs) for v in sorted({r["verdict"] for r in rs})}
        fired = {s: sum(r["signals"][s]["verdict"] == "regression" for r in rs) for s in rs[0]["signals"]}
        med = {
            s: statistics.median(r["signals"][s]["delta"] for r in rs)
            for s in ("throughput", "cpu", "p50")
            if s in rs[0]["signals"]
        }
        lines.append(
            f"{label:8s} regression {k}/{n} (95% CI {lo:.0%}-{hi:.0%}); verdicts {verdicts}; "
            f"signals judged regression {fired}; median Δ "
            + ", ".join(f"{s} {v:+.1%}" for s, v in med.items())
            + f"; time median {statistics.median(r['seconds'] for r in rs):.0f} s, "
            f"max {max(r['seconds'] for r in rs):.0f} s"
        )
    return "\n".join(lines)


def summarize(paths: list[str]) -> None:
    """Print the summary of earlier runs' --out files together (same configuration), calibration runs as A/A."""
    records = []
    for path in paths:
        data = json.loads(Path(path).read_text())
        if data.get("calibration"):
            records.append({"condition": "A/A", **data["calibration"]})
        records += data["decisions"]
    print(summary(records))


if __name__ == "__main__":
    main()
