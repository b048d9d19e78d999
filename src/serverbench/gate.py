"""The A/B regression gate as a command: base (a git ref, interpreter or environment) vs the working tree.

    python -m serverbench.gate --variant aiohttp --workload json --base-ref origin/main
    python -m serverbench.gate --variant aiohttp --workload json --cand-env SERVERBENCH_BURN_US=20

Exit status: 0 pass (or improvement), 1 regression or error rate over the limit, 3 inconclusive
or too noisy to judge (never reported as a pass), 2 bad input.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterator

from .measure.ab import (DEFAULT_LOAD, GATE_BLOCKS, GATE_POLICY, ABRun, Arm, default_mode, min_blocks, pairs_per_block,
                     run_gated)
from .judge.signals import SIGNALS
from .backends.redis import start_redis
from .config import parse_option
from .judge.decision import Policy
from .errors import ConfigError, ServerbenchError
from .records.jsonfile import write_atomic
from .catalog.apps import APPS
from .catalog.variants import registry
from .catalog.workloads import WORKLOADS


@contextmanager
def worktree(ref: str, repo: Path) -> Iterator[Path]:
    """Check ``ref`` out into a temporary git worktree; a ref that does not exist is a ConfigError."""
    check = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                           capture_output=True, text=True)
    if check.returncode != 0:
        raise ConfigError(f"base ref {ref!r} does not exist in {repo}; name a branch, tag or commit "
                          "(`git fetch` it first if it lives on a remote)")
    path = Path(tempfile.mkdtemp(prefix="serverbench-base-"))
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "--force", str(path), ref],
                   check=True, capture_output=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(path)], capture_output=True)


def _env(items: list[str]) -> dict[str, str]:
    bad = [i for i in items if "=" not in i]
    if bad:
        raise ConfigError(f"environment settings must look like NAME=VALUE, got {bad}")
    return dict(i.split("=", 1) for i in items)


def _say_retry(run: ABRun, blocks: int) -> None:
    said = "; ".join(f"{k} {d.summary()}" for k, d in run.gated.items() if d.verdict in ("rerun", "inconclusive"))
    print(f"{run.verdict}: {said}; retrying with {blocks} blocks", file=sys.stderr)


def _rate(text: str) -> float | str | None:
    if text in ("auto", "off"):
        return None if text == "off" else "auto"
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ConfigError(f"--rate {text!r}: give requests/s > 0 per arm, 'auto' or 'off'")
    return value


def rate_line(run: ABRun) -> str:
    if run.rate is None:
        return "no fixed-rate windows (--rate off): latency not gated, CPU per request from the saturated windows"
    return f"{run.rate:g} req/s per arm (oha, open model, latency from the intended send time)"


def rss_line(run: ABRun) -> str:
    base, cand = run.peak_rss_mb.get("base", 0.0), run.peak_rss_mb.get("candidate", 0.0)
    change = f" ({cand / base - 1:+.1%})" if base else ""
    return f"base {base:.1f} MB, candidate {cand:.1f} MB{change}"


def exit_status(run: ABRun, max_error_rate: float) -> int:
    if max(run.error_rate.values()) > max_error_rate or run.verdict == "regression":
        return 1
    if run.verdict in ("inconclusive", "rerun"):
        return 3
    return 0


def markdown(name: str, run: ABRun, max_error_rate: float) -> str:
    """A GitHub step-summary table: per cell Δ, interval, p, n, dispersion and verdict."""
    lines = [f"### serverbench A/B: {name}: **{run.verdict}**", "",
             "| signal | Δ | interval | p | n | dispersion | verdict |", "|---|---:|---|---:|---:|---:|---|"]
    for signal in SIGNALS:
        d = run.decisions.get(signal.name)
        if d is None:
            continue
        lines.append(f"| {signal.label} | {d.delta:+.1%} | [{d.ci[0]:+.1%}, {d.ci[1]:+.1%}] | {d.p:.4f} | {d.n} | "
                     f"{d.dispersion:.1%} | **{d.verdict}** |")
    errors = ", ".join(f"{k} {v:.2%}" for k, v in run.error_rate.items())
    lines += ["", f"fixed rate: {rate_line(run)}", "", f"peak RSS: {rss_line(run)}", "",
              f"error rate: {errors} (limit {max_error_rate:.2%}); mode {run.mode}; "
                  f"{len(run.trials)} windows, {run.reruns} re-run, extended: {run.extended}; {run.seconds:.0f} s", ""]
    return "\n".join(lines)


def record(name: str, run: ABRun, max_error_rate: float) -> dict:
    """The whole decision as JSON: every signal's verdict and statistics, the paired values, every window."""
    return {"cell": name, "verdict": run.verdict, "exit_status": exit_status(run, max_error_rate), "mode": run.mode,
            "rate": run.rate, "extended": run.extended, "reruns": run.reruns, "seconds": round(run.seconds, 1),
            "error_rate": dict(run.error_rate), "peak_rss_mb": dict(run.peak_rss_mb),
            "decisions": {k: {"verdict": d.verdict, "delta": d.delta, "ci": list(d.ci), "p": d.p, "n": d.n,
                              "dispersion": d.dispersion, "borderline": d.borderline, "reason": d.reason}
                          for k, d in run.decisions.items()},
            "pairs": {k: {"base": list(v[0]), "candidate": list(v[1])} for k, v in run.pairs.items()},
            "windows": [t.to_record() for t in run.trials]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m serverbench.gate", description=__doc__.splitlines()[0])
    parser.add_argument("--variant", required=True)
    parser.add_argument("--app", help="the app the variant serves (default: its interface's reference app)")
    parser.add_argument("--workload", default="json")
    parser.add_argument("--base-ref", help="git ref whose apps/ folder is the base arm (default: the working tree)")
    parser.add_argument("--repo", default=".", help="the git checkout holding apps/ (default: .)")
    parser.add_argument("--base-python", default=sys.executable, help="interpreter (venv) of the base arm")
    parser.add_argument("--cand-python", default=sys.executable, help="interpreter (venv) of the candidate arm")
    parser.add_argument("--base-env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--cand-env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--mode", choices=("simultaneous", "sequential"))
    parser.add_argument("--blocks", type=int, default=GATE_BLOCKS,
                        help="fresh-server blocks (one pair each when simultaneous, two when sequential)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rate", default="auto",
                        help="requests/s per arm of the latency and CPU-per-request windows: 'auto' "
                             "(--load x the base throughput), a number, or 'off'")
    parser.add_argument("--load", type=float, default=DEFAULT_LOAD,
                        help="the fixed rate as a fraction of the base arm's saturated throughput (auto rate)")
    parser.add_argument("--alpha", type=float, default=GATE_POLICY.alpha,
                        help="family-wise false-failure budget of the whole suite run")
    parser.add_argument("--cells", type=int, default=1,
                        help="how many cells this suite run gates (alpha is split between them)")
    parser.add_argument("--min-effect", type=float, default=GATE_POLICY.min_effect)
    parser.add_argument("--max-error-rate", default="0.01")
    parser.add_argument("--retries", type=int, default=1,
                        help="re-run a too-noisy or inconclusive decision this many times, doubling the blocks")
    parser.add_argument("--markdown", help="append a step-summary table to this file ($GITHUB_STEP_SUMMARY)")
    parser.add_argument("--json", help="write the whole decision (verdicts, pairs, every window) to this file")
    args = parser.parse_args(argv)
    try:
        variants = registry()
        if args.variant not in variants:
            raise ConfigError(f"unknown variant {args.variant!r}; known variants: {', '.join(variants)}")
        if args.app is not None and args.app not in APPS:
            raise ConfigError(f"unknown app {args.app!r}; known apps: {', '.join(APPS)}")
        if args.workload not in WORKLOADS:
            raise ConfigError(f"unknown workload {args.workload!r}; known workloads: {', '.join(WORKLOADS)}")
        if args.blocks < 1 or args.duration < 1 or args.warmup < 0 or args.connections < 1 or args.cells < 1:
            raise ConfigError("--blocks, --duration, --connections and --cells must be >= 1, --warmup >= 0")
        max_error_rate = parse_option("perf_max_error_rate", args.max_error_rate, "cli")
        policy = Policy(alpha=args.alpha, cells=args.cells, min_effect=args.min_effect)
        rate = _rate(args.rate)
        mode = args.mode or default_mode()
        fewest = min_blocks(policy, rate is not None, mode)
        if args.blocks < fewest:
            raise ConfigError(f"--blocks {args.blocks} gives {pairs_per_block(mode) * args.blocks} pairs ({mode}), "
                              "too few to ever reach the "
                              f"significance level alpha {args.alpha:g} / ({args.cells} cells x gated signals): "
                              f"use --blocks {fewest} or more (or a larger --alpha / fewer --cells)")
        if not 0 < args.load < 1:
            raise ConfigError(f"--load {args.load}: a fraction in (0, 1) of the base arm's saturated throughput")
        repo = Path(args.repo).resolve()
        workload = WORKLOADS[args.workload]
        redis = start_redis() if workload.backends else None
        try:
            with (worktree(args.base_ref, repo) if args.base_ref else nullcontext(repo)) as base_root:
                for root in (base_root, repo):
                    if not (root / "apps").is_dir():
                        raise ConfigError(f"{root} has no apps/ folder to serve")
                run = run_gated(variants[args.variant], workload,
                                Arm("base", args.base_python, base_root / "apps", _env(args.base_env)),
                                Arm("candidate", args.cand_python, repo / "apps", _env(args.cand_env)),
                                retries=args.retries, blocks=args.blocks, on_retry=_say_retry, mode=args.mode,
                                connections=args.connections, duration=args.duration, warmup=args.warmup,
                                redis_url=redis.url if redis else None, policy=policy,
                                app=APPS[args.app] if args.app else None, rate=rate, load=args.load)
        finally:
            if redis is not None:
                redis.stop()
    except (ServerbenchError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    name = f"{args.variant}/{args.app or variants[args.variant].default_app.name} {args.workload} c{args.connections}"
    print(f"{name}: {run.mode}, {len(run.trials)} windows, {run.reruns} re-run, extended {run.extended}, "
          f"{run.seconds:.0f} s")
    for signal in SIGNALS:
        if signal.name in run.decisions:
            print(f"  {signal.label:42s} {run.decisions[signal.name].summary()}")
    print(f"  fixed rate  {rate_line(run)}")
    print(f"  peak RSS    {rss_line(run)}")
    print(f"  verdict     {run.verdict}")
    print(f"  error rate  {', '.join(f'{k} {v:.2%}' for k, v in run.error_rate.items())}")
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write(markdown(name, run, max_error_rate))
    if args.json:
        write_atomic(Path(args.json), record(name, run, max_error_rate))
    return exit_status(run, max_error_rate)


if __name__ == "__main__":
    sys.exit(main())
