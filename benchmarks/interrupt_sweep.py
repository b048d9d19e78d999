"""Ctrl-C just as a measured run ends, many times: is every interrupt honoured, and does every session exit?

The fault census (tests/integration/sessions/test_fault_census.py) interrupts each moment of a perf session once.  This
sweep aims SIGINT at one moment over and over, at a random delay: the measured wrk of the first test has just ended
(the census's "measured wrk ended (judging)"), plus 0 to ``--max-delay`` seconds, when the session forks its next
processes.  Each session is the census's (aiohttp, json and plaintext, 1 s windows, wrk) in a folder of its own.

    # one sweep, alone on the machine, kept in benchmarks/results/interrupt-sweep.json as the run named:
    flock -x /tmp/serverbench-load.lock .venv/bin/python benchmarks/interrupt_sweep.py run --runs 66 --max-delay 0.03 \\
        --as after --commit "$(git rev-parse --short HEAD)"
    # docs/lab/robustness.md's block, from that file:
    .venv/bin/python benchmarks/interrupt_sweep.py render

A session ends one of three ways: ``interrupted`` (pytest's exit 2, or -2 when a signal ended the interpreter), the
right answer; ``finished`` (exit 0: the SIGINT was lost and the session ran to its end); ``hung`` (still running
60 s after the signal: killed, its output's tail kept).  Processes left behind are counted too.  ``run`` exits 1
unless every session was interrupted and left nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "interrupt-sweep.json"
DOC = ROOT / "docs" / "lab" / "robustness.md"
HANG_S = 60.0


def outcome(status: int | None) -> str:
    """How a session ended: None (it did not exit) is hung, 0 finished (the signal was lost), anything else
    interrupted."""
    return "hung" if status is None else "finished" if status == 0 else "interrupted"


def one(folder: Path, delay: float) -> dict:
    """One session, SIGINT ``delay`` seconds after its second wrk run (the first test's measured one) ended."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.integration.sessions import test_fault_census as census

    census._project(folder)
    session = census._perf_session(folder, "json,plaintext")
    status, tail = None, ""
    try:
        session.wait_for(census._ended(census.WRK, 2))
        time.sleep(delay)
        session.process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        while session.process.poll() is None and time.monotonic() - sent < HANG_S:
            session.poll()
            time.sleep(0.02)
        took = time.monotonic() - sent
        status = session.process.poll()
        if status is None:
            tail = "\n".join(cmd[:120] for pid, (_, _, cmd) in session.seen.items() if pid not in session.gone)
    finally:
        if session.process.poll() is None:
            os.killpg(session.process.pid, signal.SIGKILL)
            session.process.wait()
    if status is None:
        tail += "\n" + session.log.read_text(errors="replace")[-2000:]
    return {
        "delay_s": round(delay, 4),
        "outcome": outcome(status),
        "exit": status,
        "exit_s": round(took, 2),
        "left": session.leftovers(5),
        **({"running_then": tail} if tail else {}),
    }


def summary(rows: list[dict]) -> dict:
    """Counts by outcome, processes left, and the seconds from the signal to the exit (median, worst) of the sessions
    that exited."""
    exits = [r["exit_s"] for r in rows if r["outcome"] != "hung"]
    return {
        "sessions": len(rows),
        **{k: sum(r["outcome"] == k for r in rows) for k in ("interrupted", "finished", "hung")},
        "left_processes": sum(len(r["left"]) for r in rows),
        "exit_s_median": round(statistics.median(exits), 2) if exits else None,
        "exit_s_max": max(exits) if exits else None,
    }


def sweep(runs: int, max_delay: float, seed: int, progress=print) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    with tempfile.TemporaryDirectory(prefix="interrupt-sweep-") as top:
        for i in range(runs):
            folder = Path(top) / f"s{i}"
            folder.mkdir()
            rows.append(one(folder, rng.uniform(0.0, max_delay)))
            r = rows[-1]
            progress(f"{i + 1}/{runs}: +{r['delay_s']:.3f} s -> {r['outcome']} (exit {r['exit']}, {r['exit_s']} s)")
    return rows


def record(name: str, rows: list[dict], commit: str, max_delay: float, seed: int, date: str) -> dict:
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"runs": {}}
    data["runs"][name] = {
        "date": date,
        "commit": commit,
        "max_delay_s": max_delay,
        "seed": seed,
        "summary": summary(rows),
        "rows": rows,
    }
    RESULTS.write_text(json.dumps(data, indent=1) + "\n")
    return data["runs"][name]


def render_block(data: dict) -> str:
    lines = [
        "| run | commit | date | sessions | interrupted | finished (SIGINT lost) | hung | processes left "
        "| signal to exit, median (worst) |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, run in data["runs"].items():
        s = run["summary"]
        lines.append(
            f"| {name} | {run['commit']} | {run['date']} | {s['sessions']} | {s['interrupted']} | {s['finished']} "
            f"| {s['hung']} | {s['left_processes']} | {s['exit_s_median']} s ({s['exit_s_max']} s) |"
        )
    delays = sorted({run["max_delay_s"] for run in data["runs"].values()})
    lines += [
        "",
        f"Each session got its SIGINT 0 to {', '.join(f'{d:g}' for d in delays)} s after its measured wrk ended.",
    ]
    return "\n".join(lines) + "\n"


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/robustness.md with its interrupt-sweep block rendered from the results file; written when ``write``."""
    if not RESULTS.exists():
        raise SystemExit(
            f"no {RESULTS.relative_to(ROOT)}: sweep first (benchmarks/interrupt_sweep.py run --as after ...)"
        )
    return rewrite(DOC, "interrupt-sweep", render_block(json.loads(RESULTS.read_text())), write)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/interrupt_sweep.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="sweep, then keep it in benchmarks/results/interrupt-sweep.json")
    r.add_argument("--runs", type=int, default=66, help="sessions to interrupt (default 66)")
    r.add_argument("--max-delay", type=float, default=0.03, help="the latest SIGINT after the wrk run ended, s")
    r.add_argument("--seed", type=int, default=1, help="the delays' random seed")
    r.add_argument("--as", dest="name", required=True, help="the run's name in the results file (before, after)")
    r.add_argument("--commit", required=True, help="the commit swept")
    sub.add_parser("render", help="rewrite docs/lab/robustness.md's block from benchmarks/results/interrupt-sweep.json")
    args = parser.parse_args(argv)
    if args.command == "render":
        render()
        return 0
    if args.runs < 1 or args.max_delay < 0:
        parser.error("--runs must be at least 1 and --max-delay at least 0")
    rows = sweep(args.runs, args.max_delay, args.seed)
    run = record(args.name, rows, args.commit, args.max_delay, args.seed, dt.date.today().isoformat())
    print(json.dumps(run["summary"]))
    return 0 if honoured(run["summary"]) else 1


def honoured(s: dict) -> bool:
    """Every session was interrupted and left nothing (the sweep's exit status: tests.yml's documented job runs it)."""
    return s["interrupted"] == s["sessions"] and s["left_processes"] == 0


if __name__ == "__main__":
    raise SystemExit(main())
