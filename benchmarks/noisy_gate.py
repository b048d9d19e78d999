"""Does the gate cry wolf on a noisy runner?  A/A decisions, planted changes and a sequential compare, under noise.

    sblock timed .venv/bin/python benchmarks/noisy_gate.py run        # 20 A/A each way, 4 plants, 10 + 3 pairs
    .venv/bin/python benchmarks/noisy_gate.py run --quick             # a smoke test: one of each kind
    .venv/bin/python benchmarks/noisy_gate.py render                  # docs/lab/gate.md's block, from the results file

The noise (benchmarks/neighbours.py): one neighbour per core, not pinned, spinning 50 ms - 1 s then idle
50 ms - 1 s (uniformly random, seeded), started before each decision and stopped after it.

Each trial is one ``serverbench gate --json FILE`` of gunicorn-sync-w2 serving flask (``/json``, ``/redis`` for the
extra GET), as a user runs it: A/A (candidate = base) with the counted signal on (the default ``--cost-repeats``)
and off (``--cost-repeats 0``, the timed signals alone); then each planted change, counts on and off:

- ``sleep``: ``SERVERBENCH_DELAY_US=60`` (a 60 µs ``time.sleep`` per request);
- ``access-log``: gunicorn's own access log, ``GUNICORN_CMD_ARGS=--access-logfile FILE`` in the candidate's
  environment (the line records how many lines the file got, so a log that was never written shows);
- ``burn``: ``SERVERBENCH_BURN_US=N``, N = 5% of the base arm's CPU per request: the median, over the A/A
  decisions measured so far, of each decision's median ``cpu_us_per_request`` in the base arm's saturated windows;
- ``redis-get``: ``SERVERBENCH_REDIS_EXTRA_GET=1`` on ``--workload redis``.

The sequential compare is what github-action-benchmark does with two stored points: two ``pytest -m perf`` runs of
the same cell one after the other, under the same noise, the second's rps against the first's, an alarm when
first / second exceeds 1 + threshold (5% and 10%); A/A pairs and planted-sleep pairs (the second run sleeps).

Every trial appends one JSON line to ``--out`` as it ends; a trial whose key is already there is not run again,
so a stopped run resumes, and a larger ``--aa`` or ``--pairs`` extends it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from neighbours import Noise  # noqa: E402 (a sibling script)
from noisy_table import RESULTS, render  # noqa: E402 (a sibling script: the rendering half)

ROOT = Path(__file__).resolve().parents[1]
VARIANT, APP = "gunicorn-sync-w2", "flask"
BURN_SHARE = 0.05
THRESHOLDS = (0.05, 0.10)
BIN = Path(sys.executable).parent
PLANTS = {  # name: (what the table calls it, workload, the candidate's environment; None: computed)
    "sleep": ("a 60 µs sleep", "json", {"SERVERBENCH_DELAY_US": "60"}),
    "access-log": ("an access-log line", "json", None),
    "burn": ("a 5% CPU burn", "json", None),
    "redis-get": ("an extra Redis GET", "redis", {"SERVERBENCH_REDIS_EXTRA_GET": "1"}),
}
COUNTS = {"on": [], "off": ["--cost-repeats", "0"]}


def machine() -> dict:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor(),
    )
    return {"cpu": model, "cores": os.cpu_count()}


def base_cpu_us(decision: dict) -> float | None:
    """The median CPU µs per request of the base arm's saturated windows of a ``serverbench gate --json`` file."""
    values = [
        w["server"]["cpu_us_per_request"]
        for w in decision.get("windows", ())
        if w.get("arm") == "base"
        and w.get("phase") == "saturated"
        and (w.get("server") or {}).get("cpu_us_per_request")
    ]
    return statistics.median(values) if values else None


def burn_us(lines: list[dict]) -> tuple[int, dict] | None:
    """The burn's µs (BURN_SHARE of the base's CPU per request over the A/A decisions so far) and where it came
    from; None before any A/A decision measured a saturated window."""
    found = [r["base_cpu_us"] for r in lines if r.get("what") == "A/A" and r.get("base_cpu_us")]
    if not found:
        return None
    base = statistics.median(found)
    return max(1, round(BURN_SHARE * base)), {"base_cpu_us_per_request": round(base, 1), "aa_decisions": len(found)}


def signals(decision: dict) -> dict:
    keep = ("verdict", "delta", "ci", "p", "n", "dispersion")
    return {k: {f: d.get(f) for f in keep} for k, d in decision.get("decisions", {}).items()}


def gate(key: str, workload: str, counts: str, env: dict[str, str], folder: Path) -> dict:
    """One ``serverbench gate --json`` decision; its exit status, verdict and per-signal figures."""
    out = folder / f"{key}.json"
    out.unlink(missing_ok=True)
    argv = [str(BIN / "serverbench"), "gate", "--variant", VARIANT, "--app", APP, "--workload", workload]
    argv += [*COUNTS[counts], *(a for k, v in env.items() for a in ("--cand-env", f"{k}={v}")), "--json", str(out)]
    started = time.monotonic()
    with open(folder / f"{key}.log", "w") as log:
        status = subprocess.run(argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT).returncode
    rec = {"command": argv[1:-2], "exit_status": status, "seconds": round(time.monotonic() - started, 1)}
    if not out.exists():
        tail = (folder / f"{key}.log").read_text(errors="replace").splitlines()[-5:]
        return {**rec, "verdict": "error", "error": "\n".join(tail)}
    decision = json.loads(out.read_text())
    return {
        **rec,
        "verdict": decision["verdict"],
        "stopped": decision.get("stopped"),
        "blocks": decision.get("blocks"),
        "signals": signals(decision),
        # the windows' lengths, and that this gate keeps every window as long as the first (the lines of the gate
        # that doubled them after a noisy look, tried and taken out, carry window_s without this field)
        "window_s": sorted({w["shape"]["duration"] for w in decision["windows"]}),
        "widening": False,
        "base_cpu_us": base_cpu_us(decision),
        "decision_file": str(out.relative_to(ROOT) if out.is_relative_to(ROOT) else out),
    }


def perf_rps(key: str, env: dict[str, str], folder: Path) -> dict:
    """One ``pytest -m perf`` run of the cell; its rps and exit status."""
    out = folder / f"{key}.json"
    out.unlink(missing_ok=True)
    argv = [
        str(BIN / "python"),
        "-m",
        "pytest",
        "-m",
        "perf",
        "tests/perf/test_throughput.py",
        "-p",
        "no:cacheprovider",
    ]
    argv += ["-q", "--perf-variants", VARIANT, "--perf-apps", APP, "--perf-workloads", "json", "--perf-json", str(out)]
    started = time.monotonic()
    with open(folder / f"{key}.log", "w") as log:
        status = subprocess.run(
            argv, cwd=ROOT, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT
        ).returncode
    results = json.loads(out.read_text())["results"] if out.exists() else []
    rps = next((r["rps"] for r in results if r.get("variant") == VARIANT and r.get("rps")), None)
    return {"exit_status": status, "rps": rps, "seconds": round(time.monotonic() - started, 1), "command": argv[1:-2]}


def alarms(first: float, second: float) -> dict[str, bool]:
    """github-action-benchmark's alert for a bigger-is-better figure: previous / current over 1 + threshold."""
    return {f"{t:g}": first / second > 1 + t for t in THRESHOLDS}


def sequential(key: str, env: dict[str, str], folder: Path) -> dict:
    runs = [perf_rps(f"{key}-1", {}, folder), perf_rps(f"{key}-2", env, folder)]
    rec = {"runs": runs, "seconds": round(sum(r["seconds"] for r in runs), 1), "command": runs[0]["command"]}
    first, second = (r["rps"] for r in runs)
    if not (first and second):
        return {**rec, "verdict": "error", "error": "a run wrote no rps: see its .log beside the decision files"}
    found = alarms(first, second)
    return {**rec, "delta": second / first - 1, "alarm": found, "verdict": "alarm" if any(found.values()) else "pass"}


def access_log(folder: Path, key: str) -> tuple[dict, Path]:
    path = Path("/tmp") / f"noisy-gate-{os.getpid()}-{key}.log"
    path.unlink(missing_ok=True)
    return {"GUNICORN_CMD_ARGS": f"--access-logfile {path}"}, path


def schedule(args: argparse.Namespace) -> list[tuple[str, str, str, str | None]]:
    """(key, kind, what, counts) in the order run: A/A first in each round, so the burn has a base to size from;
    the plants in the first round; the sequential pairs spread over the rounds."""
    jobs = []
    for i in range(max(args.aa, args.pairs, args.sleep_pairs, 1)):
        if i < args.aa:
            wanted = args.aa if args.aa_off is None else args.aa_off
            jobs += [(f"gate|A/A|{c}|{i}", "gate", "A/A", c) for c in COUNTS if c == "on" or i < wanted]
        if i < args.pairs:
            jobs.append((f"sequential|A/A|{i}", "sequential", "A/A", None))
        if i < args.plant_runs:
            jobs += [(f"gate|{p}|{c}|{i}", "gate", p, c) for p in args.plants for c in COUNTS]
        if i < args.sleep_pairs:
            jobs.append((f"sequential|sleep|{i}", "sequential", "sleep", None))
    return jobs


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def run(args: argparse.Namespace) -> None:
    folder = args.out.parent / (args.out.stem + "-decisions")
    folder.mkdir(parents=True, exist_ok=True)
    lines = read(args.out)
    done = {r["key"] for r in lines}
    started = time.monotonic()
    for key, kind, what, counts in schedule(args):
        if key in done:
            continue
        name = key.replace("|", "-").replace("/", "")
        env = dict(PLANTS[what][2] or {}) if what in PLANTS else {}
        extra, log = {}, None
        if what == "access-log":
            env, log = access_log(folder, name)
        if what == "burn":
            sized = burn_us(lines)
            if sized is None:
                print(f"{key}: skipped: no A/A decision has measured the base's CPU per request yet", flush=True)
                continue
            env, extra = {"SERVERBENCH_BURN_US": str(sized[0])}, {"burn_from": sized[1]}
        workload = PLANTS[what][1] if what in PLANTS else "json"
        when = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        with Noise(zlib.crc32(f"{args.seed}|{key}".encode()), low=args.busy[0], high=args.busy[1]) as noise:
            found = gate(name, workload, counts, env, folder) if kind == "gate" else sequential(name, env, folder)
        if log is not None:
            extra["access_log_lines"] = sum(1 for _ in log.open()) if log.exists() else 0
            log.unlink(missing_ok=True)
        label = PLANTS[what][0] if what in PLANTS else what
        rec = {"key": key, "kind": kind, "what": what, "label": label, "counts": counts, "workload": workload}
        rec |= {"cand_env": env, "argv": args.argv}
        rec |= {**extra, **found, "noise": noise.record(), "machine": machine(), "started": when}
        with args.out.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        lines.append(rec)
        print(summary(rec), flush=True)
    print(f"total {time.monotonic() - started:.0f} s; {len(lines)} lines in {args.out}")


def summary(rec: dict) -> str:
    if "delta" in rec:
        tail = f"Δ rps {rec['delta']:+.1%}"
    else:
        tail = f"exit {rec.get('exit_status')} ({rec.get('stopped') or rec.get('error')})"
    if "access_log_lines" in rec:
        tail += f", {rec['access_log_lines']} access-log lines"
    return f"{rec['key']}: {rec['verdict']}, {tail}, {rec['seconds']:.0f} s, noise took {rec['noise']['cpu_share']:.0%}"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="measure (resumes: keys already in --out are not run again)")
    r.add_argument("--aa", type=int, default=20, help="A/A decisions with the counted signal on, and as many off")
    r.add_argument("--aa-off", type=int, help="A/A decisions with the counted signal off, when fewer than --aa")
    r.add_argument("--pairs", type=int, default=10, help="A/A pairs of sequential pytest -m perf runs")
    r.add_argument("--sleep-pairs", type=int, default=3, help="sequential pairs whose second run sleeps 60 µs")
    r.add_argument("--plant-runs", type=int, default=1, help="decisions of each plant, counts on and off")
    r.add_argument("--plants", type=lambda s: s.split(","), default=list(PLANTS), help=",".join(PLANTS))
    r.add_argument("--busy", type=lambda s: tuple(map(float, s.split(","))), default=(0.05, 1.0), help="LOW,HIGH s")
    r.add_argument("--seed", type=int, default=56)
    r.add_argument("--out", type=Path, default=RESULTS)
    r.add_argument("--quick", action="store_true", help="one of each: --aa 1 --pairs 1 --sleep-pairs 0 --plants sleep")
    d = sub.add_parser("render", help="docs/lab/gate.md's block from the results file")
    d.add_argument("--results", type=Path, default=RESULTS)
    d.add_argument("--doc", type=Path, default=ROOT / "docs/lab/gate.md")
    args = parser.parse_args(argv)
    args.argv = argv
    if args.command == "render":
        render(args.results, args.doc)
        return
    if unknown := set(args.plants) - set(PLANTS):
        raise SystemExit(f"--plants: unknown {sorted(unknown)}; choose from {','.join(PLANTS)}")
    if args.quick:
        args.aa, args.pairs, args.sleep_pairs, args.plant_runs = 1, 1, 0, 1
        args.plants = args.plants if "--plants" in argv else ["sleep"]
    run(args)


if __name__ == "__main__":
    main(sys.argv[1:])
