"""The A/B regression gate as a command: base (a git ref, interpreter or environment) vs the working tree.

    serverbench gate --base-ref origin/main                    # in your project: your app (perf_app)
    serverbench gate --base-ref origin/main --endpoint list    # ... on one of its perf_endpoints
    serverbench gate --variant aiohttp --workload json --base-ref origin/main
    serverbench gate --variant aiohttp --workload json --cand-env SERVERBENCH_BURN_US=20
    serverbench gate --rejudge decision.json --alpha 0.05      # judge a stored --json again, no server

Exit status: 0 pass (or improvement), 1 regression or error rate over the limit, 3 inconclusive
or too noisy to judge (never reported as a pass), 2 bad input.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..backends import base as backends
from ..catalog.apps import APPS
from ..catalog.matrix import Cell
from ..catalog.variants import registry
from ..catalog.workloads import WORKLOADS, Workload
from ..config.options import OPTIONS_BY_NAME, parse_option
from ..errors import ConfigError, ServerbenchError
from ..gate import loop, user
from ..gate.plan import DEFAULT_LOAD, ABPlan, Arm, default_mode, pairs_per_block
from ..judge.ab import COST, GATE_BLOCKS, GATE_POLICY, min_blocks, rejudge, stored_policy
from ..judge.cost import Shift, attribute
from ..judge.decision import Policy
from ..measure.counting.callgrind import valgrind_missing
from ..measure.serving.appsetup import set_up_app
from ..measure.trees.worktree import worktree
from ..measure.trials.ab import profile_arms
from ..processes.stopping import terminating_through_finally
from ..records import decisions as decision_file
from ..records.cost import CostBaseline
from ..records.decisions import ABDecision
from ..report import gate as report

COST_REPEATS = 1  # counted runs per arm, both at once (a second each when the first pair is ambiguous)

# Options the gate shares with the pytest session: declared once in the option table, the gate's own
# defaults given in the same rows (config.Option.context_defaults).
SHARED = (
    "perf_duration",
    "perf_warmup",
    "perf_connections",
    "perf_max_error_rate",
    *(b.url_option for b in backends.BACKENDS.values()),
)


def _env(items: list[str]) -> dict[str, str]:
    bad = [i for i in items if "=" not in i]
    if bad:
        raise ConfigError(f"--base-env / --cand-env settings must look like NAME=VALUE, got {bad}")
    return dict(i.split("=", 1) for i in items)


def _say_retry(run: ABDecision, blocks: int) -> None:
    said = "; ".join(
        f"{k} {d.summary()}" for k, d in run.gated_decisions().items() if d.verdict in ("rerun", "inconclusive")
    )
    print(f"{run.verdict}: {said}; retrying with {blocks} blocks", file=sys.stderr)


def _rate(text: str) -> float | str | None:
    if text in ("auto", "off"):
        return None if text == "off" else "auto"
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (value > 0 and math.isfinite(value)):
        raise ConfigError(f"--rate {text!r}: give requests/s > 0 per arm (finite), 'auto' or 'off'")
    return value


def cost_repeats(args: argparse.Namespace, user_app: bool = False) -> int:
    """--cost-repeats, else the default when valgrind can count here (and a note when it cannot)."""
    if args.cost_repeats is not None:
        if args.cost_repeats < 0:
            raise ConfigError(
                f"--cost-repeats {args.cost_repeats}: use 0 (no cost signal), 1 (one count per arm, a second when "
                "ambiguous) or 2 or more (each arm's own A/A spread sets the limit)"
            )
        return args.cost_repeats
    if not user_app and (APPS[args.app] if args.app else registry()[args.variant].default_app).runtime != "python":
        print("note: no cost signal (instructions are counted for Python servers only)", file=sys.stderr)
        return 0
    missing = valgrind_missing()
    if missing:
        print(f"note: no cost signal ({missing})", file=sys.stderr)
        return 0
    return COST_REPEATS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="serverbench gate", description=__doc__.splitlines()[0])
    _add_cell_options(p)
    _add_arm_options(p)
    _add_shared_options(p)
    _add_judge_options(p)
    _add_output_options(p)
    return p


def _add_cell_options(p: argparse.ArgumentParser) -> None:
    """The cell and what it serves: --variant, --app, --workload (a reference app's) or --endpoint (yours)."""
    p.add_argument(
        "--variant",
        help="the server variant to gate (required unless --rejudge, or in a project "
        "with perf_app: default the first of its perf_variants that runs here)",
    )
    p.add_argument("--app", help="the app the variant serves (default: its interface's reference app)")
    p.add_argument(
        "--workload",
        default=None,
        help="a reference workload (default json); in a project with perf_app use --endpoint",
    )
    p.add_argument(
        "--endpoint",
        action="append",
        default=[],
        metavar="NAME",
        help="in a project with perf_app: an endpoint of perf_endpoints to gate, by name; repeatable "
        "(default: every endpoint, one decision each, alpha split between them)",
    )


def _add_arm_options(p: argparse.ArgumentParser) -> None:
    """The two arms (base, candidate) and how they are run: where each one's code comes from, its interpreter
    and environment, simultaneous or sequential, and the blocks."""
    p.add_argument(
        "--base-ref",
        help="git ref whose apps/ folder (in a project with perf_app: whose perf_app_dir) "
        "is the base arm (default: the working tree)",
    )
    p.add_argument(
        "--repo",
        default=".",
        help="the git checkout holding apps/, or your project whose pytest configuration names perf_app (default: .)",
    )
    p.add_argument("--base-python", default=sys.executable, help="interpreter (venv) of the base arm")
    p.add_argument("--cand-python", default=sys.executable, help="interpreter (venv) of the candidate arm")
    p.add_argument("--base-env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--cand-env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--mode", choices=("simultaneous", "sequential"))
    p.add_argument(
        "--blocks",
        type=int,
        default=GATE_BLOCKS,
        help="the most fresh-server blocks (one pair each when simultaneous, two when sequential); the judge looks "
        "after the fewest that can show a regression at half of alpha, and after all of them",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=ABPlan.rounds,
        help="rounds per block and phase, both arms at once on their own cores (default 2: the cores swap within each "
        "block; 1 alternates them from block to block, half the windows)",
    )


def _add_shared_options(p: argparse.ArgumentParser) -> None:
    """The options the gate shares with the pytest session (SHARED), each with the gate's own default."""
    for name in SHARED:
        option = OPTIONS_BY_NAME[name]
        default = option.default_in("gate")
        here = (
            f" Here: one count, default {default[0]}."
            if isinstance(default, tuple)
            else ""
            if default is None
            else f" Default here: {default}."
        )
        p.add_argument(
            option.command_flag, dest=name, metavar=name.removeprefix("perf_").upper(), help=option.help + here
        )


def _add_judge_options(p: argparse.ArgumentParser) -> None:
    """What is measured and how it is judged: the fixed rate, alpha, cells, the smallest effect, retries and
    the counted cost's repeats."""
    p.add_argument(
        "--rate",
        default="auto",
        help="requests/s per arm of the latency and CPU-per-request windows: 'auto' "
        "(--load x the base throughput), a number, or 'off'",
    )
    p.add_argument(
        "--load",
        type=float,
        default=DEFAULT_LOAD,
        help="the fixed rate as a fraction of the base arm's saturated throughput (auto rate)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        help=f"family-wise false-failure budget of the whole suite run "
        f"(default {GATE_POLICY.alpha:g}; with --rejudge: the stored one)",
    )
    p.add_argument(
        "--cells",
        type=int,
        help="how many cells this suite run gates (alpha is split between them; "
        "default 1; with --rejudge: the stored number)",
    )
    p.add_argument(
        "--min-effect",
        type=float,
        help=f"smallest change that fails (default {GATE_POLICY.min_effect:g}; with --rejudge: the stored one)",
    )
    p.add_argument(
        "--retries",
        type=int,
        default=0,
        help="measure a too-noisy or inconclusive decision again this many times (alpha is split between the attempts)",
    )
    p.add_argument(
        "--cost-repeats",
        type=int,
        default=None,
        help="fresh counted runs (valgrind, instructions per request) per arm, before any timed block: 1 counts "
        "each arm once (twice when ambiguous), 2 or more gate against their own A/A spread; 0: none "
        f"(default {COST_REPEATS} when valgrind is installed, else 0)",
    )


def _add_output_options(p: argparse.ArgumentParser) -> None:
    """Where the decision goes (--markdown, --json), or a stored one judged again (--rejudge)."""
    p.add_argument("--markdown", help="append a step-summary table to this file ($GITHUB_STEP_SUMMARY)")
    p.add_argument("--json", help="write the whole decision (verdicts, pairs, every window) to this file")
    p.add_argument(
        "--rejudge",
        metavar="DECISION.json",
        help="judge the pairs of a stored --json decision again (with --alpha, --cells, --min-effect); "
        "no server is started",
    )


def shared_options(args: argparse.Namespace) -> dict[str, Any]:
    """The shared options' values: given (parsed by the table's parser), else the gate's default.  Every bad
    value is reported at once."""
    values, problems = {}, []
    for name in SHARED:
        raw = getattr(args, name)
        try:
            values[name] = OPTIONS_BY_NAME[name].default_in("gate") if raw is None else parse_option(name, raw, "gate")
        except ConfigError as exc:
            problems.append(str(exc))
    if not problems and len(values["perf_connections"]) != 1:
        problems.append(
            f"--connections takes one count in the gate (both arms at once), "
            f"got {','.join(map(str, values['perf_connections']))}"
        )
    if problems:
        raise ConfigError("\n".join(problems))
    return values


def policy_of(args: argparse.Namespace, policy: Policy) -> Policy:
    """``policy`` with the limits given on the command line."""
    given = {"alpha": args.alpha, "cells": args.cells, "min_effect": args.min_effect}
    try:
        return replace(policy, **{k: v for k, v in given.items() if v is not None})
    except ValueError as exc:
        raise ConfigError(f"--alpha / --cells / --min-effect: {exc}") from None


def check_names(args: argparse.Namespace) -> None:
    variants = registry()
    problems = []
    if args.variant not in variants:
        problems.append(f"unknown variant {args.variant!r}; known variants: {', '.join(variants)}")
    if args.app is not None and args.app not in APPS:
        problems.append(f"unknown app {args.app!r}; known apps: {', '.join(APPS)}")
    if args.endpoint:
        problems.append(
            f"--endpoint names a perf_app endpoint, and {Path(args.repo).resolve()} has no pytest "
            "configuration naming perf_app: use --workload, or run the gate in your project"
        )
    if args.workload not in WORKLOADS:
        problems.append(f"unknown workload {args.workload!r}; known workloads: {', '.join(WORKLOADS)}")
    if problems:
        raise ConfigError("\n".join(problems))


def check_blocks(args: argparse.Namespace, policy: Policy, rate: float | str | None) -> None:
    """Enough blocks to ever reach the split significance level (before anything starts)."""
    mode = args.mode or default_mode()
    policy = replace(policy, alpha=policy.alpha / (max(args.retries, 0) + 1))  # split between the attempts
    fewest = min_blocks(policy, rate is not None, pairs_per_block(mode))
    if args.blocks < fewest:
        raise ConfigError(
            f"--blocks {args.blocks} gives {pairs_per_block(mode) * args.blocks} pairs ({mode}), "
            "too few to ever reach the "
            f"significance level alpha {policy.alpha:g} / ({policy.cells} cells x gated signals): "
            f"use --blocks {fewest} or more (or a larger --alpha / fewer --cells)"
        )


def reference_cell(args: argparse.Namespace) -> Cell:
    """The cell --variant and --app name (--app: the variant's own app when not given)."""
    variant = registry()[args.variant]
    return Cell(variant, APPS[args.app] if args.app else variant.default_app)


def reference_arms(args: argparse.Namespace, base_root: Path, root: Path) -> tuple[Arm, Arm]:
    """Base and candidate serving the reference apps of ``base_root`` and ``root``, each with its interpreter and
    environment from the command line."""
    return (
        Arm("base", args.base_python, base_root / "apps", _env(args.base_env)),
        Arm("candidate", args.cand_python, root / "apps", _env(args.cand_env)),
    )


def plan_of(
    args: argparse.Namespace,
    cell: Cell,
    workload: Workload,
    arms: tuple[Arm, Arm],
    *,
    shared: dict[str, Any],
    policy: Policy,
    rate: float | str | None,
    repeats: int,
    backend_env: Mapping[str, str],
    cost_requests: int = ABPlan.cost_requests,
) -> ABPlan:
    """The one place the command line becomes a plan: ``cell`` under ``workload``, ``arms`` (base, candidate), with
    what was resolved from ``args`` before anything started (the ``shared`` options, ``policy``, ``rate`` and cost
    ``repeats``).  run_live, run_user and the options' fuzz test all call it, so a new plan field is set once."""
    base, candidate = arms
    return ABPlan(
        cell,
        workload,
        base,
        candidate,
        mode=args.mode,
        blocks=args.blocks,
        rounds=args.rounds,
        connections=shared["perf_connections"][0],
        duration=shared["perf_duration"],
        warmup=shared["perf_warmup"],
        rate=rate,
        load=args.load,
        policy=policy,
        retries=args.retries,
        backend_env=backend_env,
        max_error_rate=shared["perf_max_error_rate"],
        cost_repeats=repeats,
        cost_requests=cost_requests,
    )


def run_live(args: argparse.Namespace) -> list[tuple[ABDecision, tuple[Shift, ...]]]:
    """Resolve the command line into plans, start the backends and the base worktree, and run the decisions
    (one; in a project with perf_app, one per endpoint), each with the functions of a cost regression."""
    found = user.project(Path(args.repo))
    if found is not None:
        return run_user(args, found)
    args.workload = args.workload or "json"
    check_names(args)
    shared = shared_options(args)
    policy = policy_of(args, GATE_POLICY)
    rate = _rate(args.rate)
    check_blocks(args, policy, rate)
    repeats = cost_repeats(args)
    workload = WORKLOADS[args.workload]
    repo = Path(args.repo).resolve()
    urls = {b.name: shared[b.url_option] for b in backends.BACKENDS.values()}
    with (
        backends.started(workload.backends, urls) as services,
        worktree(args.base_ref, repo) if args.base_ref else nullcontext(repo) as base_root,
    ):
        for root in (base_root, repo):
            if not (root / "apps").is_dir():
                raise ConfigError(f"{root} has no apps/ folder to serve")
        plan = plan_of(
            args,
            reference_cell(args),
            workload,
            reference_arms(args, base_root, repo),
            shared=shared,
            policy=policy,
            rate=rate,
            repeats=repeats,
            backend_env=backends.env(services),
        )
        return [decided_with_shifts(plan)]


def run_user(args: argparse.Namespace, found: user.UserProject) -> list[tuple[ABDecision, tuple[Shift, ...]]]:
    """The gate on the user's app: its code at --base-ref (a worktree of their repository) against the working
    tree, one decision per endpoint, alpha split between them (unless --cells says otherwise)."""
    if args.app is not None or args.workload is not None:
        raise ConfigError(
            f"{found.config_file.path} names perf_app = {found.app.target.text}: the gate compares "
            "your app; name its endpoints with --endpoint (--app and --workload are for the "
            "reference apps)"
        )
    workloads = user.endpoints(found.app, args.endpoint)
    cell = user.cell(found, args.variant)
    shared = shared_options(args)
    policy = policy_of(args, replace(GATE_POLICY, cells=len(workloads)))
    rate = _rate(args.rate)
    check_blocks(args, policy, rate)
    repeats = cost_repeats(args, user_app=True)
    urls = {b.name: shared[b.url_option] for b in backends.BACKENDS.values()}
    needed = [name for name, _ in found.app.backends]
    with (
        backends.started(needed, urls) as services,
        worktree(args.base_ref, found.git_top) if args.base_ref else nullcontext(found.git_top) as base_root,
    ):
        given = {name: s.url for name, s in services.items()}
        arms = (
            Arm(
                "base",
                args.base_python,
                found.app_dir_in(base_root),
                user.arm_env(found.app, given, _env(args.base_env)),
                found.app.reset,
            ),
            Arm(
                "candidate",
                args.cand_python,
                found.app.directory,
                user.arm_env(found.app, given, _env(args.cand_env)),
                found.app.reset,
            ),
        )
        if found.app.setup is not None:  # perf_app_setup: each arm's tree made able to serve, before any server
            for arm in arms:
                seconds = set_up_app(found.app.setup, arm.apps_dir, arm.env, arm.python)
                print(f"{arm.label}: perf_app_setup ran in {seconds:.1f} s in {arm.apps_dir}", file=sys.stderr)
        out = []
        for workload in workloads:
            plan = plan_of(
                args,
                cell,
                workload,
                arms,
                shared=shared,
                policy=policy,
                rate=rate,
                repeats=repeats,
                backend_env=backends.env(services),
                cost_requests=found.settings.cost_requests,
            )
            out.append(decided_with_shifts(plan))
        return out


def decided_with_shifts(plan: ABPlan) -> tuple[ABDecision, tuple[Shift, ...]]:
    """The decision on ``plan`` and, when its counted cost regressed, the functions it came from (the decision's
    own counts, and one untimed Python-level pass of each arm)."""
    run, runs = loop.decide(plan, on_retry=_say_retry)
    cost = run.decisions.get(COST)
    if cost is None or cost.verdict != "regression" or runs is None:
        return run, ()
    print(f"{run.cell}: counted cost regression; profiling both arms for the functions it came from", file=sys.stderr)
    base, candidate = profile_arms(plan, runs.last)
    return run, attribute(CostBaseline.of(base), candidate)


def exit_status(runs: list[ABDecision]) -> int:
    """One status for several decisions: a regression (1) over an inconclusive one (3) over passes (0)."""
    statuses = {r.exit_status for r in runs}
    return next((s for s in (1, 3) if s in statuses), max(statuses, default=0))


def rejudged(args: argparse.Namespace) -> ABDecision:
    """The stored decision's pairs judged again under its policy with the limits given; no server starts."""
    stored = decision_file.read(Path(args.rejudge))
    given = args.perf_max_error_rate is not None
    limit = shared_options(args)["perf_max_error_rate"] if given else stored.max_error_rate
    limit = limit if limit is not None else OPTIONS_BY_NAME["perf_max_error_rate"].default_in("gate")
    try:
        policy = policy_of(args, stored_policy(stored))
    except ValueError as exc:  # the limits a file stored: out of range
        raise ConfigError(f"{args.rejudge}: its stored policy cannot be used ({exc})") from None
    print(
        f"re-judged {args.rejudge}: alpha {policy.alpha:g}, {policy.cells} cells, min effect "
        f"{policy.min_effect:g}; no server started",
        file=sys.stderr,
    )
    try:
        return rejudge(stored, policy, limit)
    except (
        ValueError,
        OverflowError,
    ) as exc:  # stored pairs the judge refuses (<= 0, unequal lengths, 1e-320 vs 1e308)
        raise ConfigError(f"{args.rejudge}: its pairs cannot be judged again ({exc})") from None


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.rejudge is None and args.variant is None and not user.names_app(Path(args.repo)):
        p.error(
            "the following arguments are required: --variant (or run it in a project whose pytest "
            "configuration names perf_app)"
        )
    try:
        with terminating_through_finally():
            runs = [(rejudged(args), ())] if args.rejudge is not None else run_live(args)
    except (ServerbenchError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the servers, backends and base worktree were stopped and removed", file=sys.stderr)
        return 128 + signal.SIGINT
    for run, shifts in runs:
        report.show(run, shifts)
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write("".join(report.markdown(run, shifts) for run, shifts in runs))
    if args.json:  # several decisions (a project's endpoints): one file each, the endpoint in its name
        path = Path(args.json)
        for run, _ in runs:
            name = path if len(runs) == 1 else path.with_name(f"{path.stem}-{run.cell.split()[-2]}{path.suffix}")
            decision_file.write(name, run)
    return exit_status([run for run, _ in runs])


if __name__ == "__main__":
    sys.exit(main())
