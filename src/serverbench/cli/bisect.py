"""Which commit moved the cost: bisect a range on instructions per request, then confirm with the timed gate.

    serverbench bisect --good HEAD~5 --endpoint home --json bisect.json --markdown "$GITHUB_STEP_SUMMARY"
    serverbench bisect --good HEAD~5 --endpoint home --no-confirm --json bisect.json   # counts only (any machine)
    serverbench bisect --confirm bisect.json --json confirmed.json                     # the timed gate, later
    serverbench bisect --good HEAD~2 --variant waitress-t4 --workload json --no-confirm  # the reference apps

Each commit is counted under valgrind in a worktree of its own, with the environment of its lock file; a
commit that does not build or serve the endpoint is skipped and named.  Every step above the threshold is
reported with its size and the functions it came from; each regression is then confirmed by the timed A/B
gate (parent against culprit, the same cell).  Exit status: 0 no regression step, 1 a regression step,
3 the range moved but no single commit did, 2 bad input.
"""

from __future__ import annotations

import argparse
import io
import shlex
import signal
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from .. import __version__
from ..backends import base as backends
from ..bisect import search
from ..bisect.plan import DEFAULT_REQUESTS, BisectPlan, default_threshold
from ..catalog.apps import APPS
from ..catalog.matrix import Cell
from ..catalog.variants import registry
from ..catalog.workloads import WORKLOADS
from ..config.options import OPTIONS_BY_NAME, parse_option
from ..errors import ConfigError, ServerbenchError
from ..gate import user
from ..judge.bisect import REGRESSION, Bisection
from ..judge.cost import attribute
from ..measure.counting.bisect import Attempt, profiled
from ..measure.trees import commits as git
from ..measure.trees.commits import Commit
from ..measure.trees.lockenv import Environments
from ..measure.trees.worktree import worktree
from ..processes.stopping import terminating_through_finally
from ..records import bisects
from ..records import decisions as decision_file
from ..records.cost import CostBaseline
from ..report import bisect as report
from . import gate

URLS = tuple(b.url_option for b in backends.BACKENDS.values())
REFERENCE_SYNC = "--extra apps --extra servers --group native"  # what the reference apps' servers need of uv.lock
USER_SYNC = "--all-extras"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="serverbench bisect", description=__doc__.splitlines()[0])
    p.add_argument("--good", help="a commit (ref) whose count is the old level: the range starts after it")
    p.add_argument("--bad", default="HEAD", help="the newest commit of the range (default HEAD)")
    p.add_argument(
        "--repo",
        default=".",
        help="the git checkout of serverbench's reference apps, or your project whose pytest configuration "
        "names perf_app (default: .)",
    )
    p.add_argument(
        "--variant", help="the server variant (in a project with perf_app: default the first of perf_variants)"
    )
    p.add_argument("--app", help="the reference app the variant serves (default: its interface's reference app)")
    p.add_argument("--workload", help="a reference workload (default json)")
    p.add_argument("--endpoint", help="in a project with perf_app: the endpoint to count (default: the first)")
    p.add_argument(
        "--threshold",
        help="the smallest change of one commit reported as a step, a fraction (default: the cost test's "
        "tolerance, 0.02, or the variant's own cost_tolerance when wider)",
    )
    p.add_argument(
        "--requests", type=int, help=f"requests counted per commit (default {DEFAULT_REQUESTS}, or perf_cost_requests)"
    )
    p.add_argument(
        "--python",
        default=sys.executable,
        help="the environment of the working tree's lock file: commits with the same lock are counted with it",
    )
    p.add_argument(
        "--lock", help="the lock file, relative to the repository (default uv.lock beside the configuration)"
    )
    p.add_argument(
        "--sync-args",
        help=f"uv sync arguments that build a commit's environment from another lock (default for the reference "
        f"apps {REFERENCE_SYNC!r}, for your project {USER_SYNC!r})",
    )
    for name in URLS:
        option = OPTIONS_BY_NAME[name]
        p.add_argument(option.command_flag, dest=name, metavar="URL", help=option.help)
    p.add_argument("--no-confirm", action="store_true", help="count only: no timed gate on the steps found")
    p.add_argument(
        "--gate-args",
        default="",
        help="more arguments for the confirming gate, as one string (e.g. '--blocks 8 --rate off')",
    )
    p.add_argument("--confirm", metavar="BISECT.json", help="run the timed gate on the steps of a stored bisection")
    p.add_argument("--json", help="write the bisection (every commit tried, the steps, the gate's verdicts) here")
    p.add_argument("--markdown", help="append a step summary to this file ($GITHUB_STEP_SUMMARY)")
    return p


def threshold_of(args: argparse.Namespace, cell: Cell) -> float:
    if args.threshold is None:
        return default_threshold(cell)
    try:
        value = float(args.threshold)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise ConfigError(f"--threshold {args.threshold!r}: give a fraction in (0, 1), such as 0.02 for 2%")
    return value


def urls_of(args: argparse.Namespace) -> dict[str, str | None]:
    """The backends given by URL, by backend name (each parsed by the option table)."""
    given = {}
    for b in backends.BACKENDS.values():
        raw = getattr(args, b.url_option)
        given[b.name] = None if raw is None else parse_option(b.url_option, raw, "bisect")
    return given


def plan_of(args: argparse.Namespace) -> tuple[BisectPlan, list[str], str]:
    """The validated plan, the backends it needs, and the uv sync arguments; nothing has started yet."""
    if args.good is None:
        raise ConfigError("--good is required: the commit whose count is the old level (or --confirm BISECT.json)")
    found = user.project(Path(args.repo))
    if found is not None:
        return _user_plan(args, found)
    args.workload = args.workload or "json"
    variants = registry()
    problems = []
    if args.variant is None:
        problems.append("--variant is required for the reference apps (or run bisect in a project naming perf_app)")
    elif args.variant not in variants:
        problems.append(f"unknown variant {args.variant!r}; known variants: {', '.join(variants)}")
    if args.app is not None and args.app not in APPS:
        problems.append(f"unknown app {args.app!r}; known apps: {', '.join(APPS)}")
    if args.workload not in WORKLOADS:
        problems.append(f"unknown workload {args.workload!r}; known workloads: {', '.join(WORKLOADS)}")
    if args.endpoint is not None:
        problems.append("--endpoint names a perf_app endpoint and this checkout names no perf_app: use --workload")
    if problems:
        raise ConfigError("\n".join(problems))
    variant = variants[args.variant]
    cell = Cell(variant, APPS[args.app] if args.app else variant.default_app)
    top = git.top(Path(args.repo))
    lock = args.lock or "uv.lock"
    plan = BisectPlan(
        top,
        tuple(git.commit_range(top, args.good, args.bad, lock)),
        cell,
        WORKLOADS[args.workload],
        threshold_of(args, cell),
        requests=args.requests or DEFAULT_REQUESTS,
        python=args.python,
        lock_path=lock,
    )
    return plan, list(plan.workload.backends), args.sync_args or REFERENCE_SYNC


def _user_plan(args: argparse.Namespace, found: user.UserProject) -> tuple[BisectPlan, list[str], str]:
    if args.app is not None or args.workload is not None:
        raise ConfigError(
            f"{found.config_file.path} names perf_app = {found.app.target.text}: bisect counts your app; name its "
            "endpoint with --endpoint (--app and --workload are for the reference apps)"
        )
    workload = user.endpoints(found.app, [args.endpoint] if args.endpoint else [])[0]
    cell = user.cell(found, args.variant)
    project = found.config_file.rootdir.resolve().relative_to(found.git_top)
    lock = args.lock or str(project / "uv.lock")
    plan = BisectPlan(
        found.git_top,
        tuple(git.commit_range(found.git_top, args.good, args.bad, lock)),
        cell,
        workload,
        threshold_of(args, cell),
        requests=args.requests or found.settings.cost_requests,
        app_folder=str(found.app.directory.resolve().relative_to(found.git_top)),
        python=args.python,
        lock_path=lock,
        env=found.app.server_env({}),
        setup=found.app.setup,
        reset=found.app.reset,
        backend_vars=dict(found.app.backends),
        user=True,
        project=str(project),
    )
    return plan, [name for name, _ in found.app.backends], args.sync_args or USER_SYNC


def server_env(plan: BisectPlan, services: Mapping[str, Any]) -> dict[str, str]:
    """The backends' URLs under the names the app reads them by (a user's app: its perf_app_backends)."""
    if plan.backend_vars is None:
        return backends.env(services)
    return {variable: services[name].url for name, variable in plan.backend_vars.items()}


def progress(plan: BisectPlan) -> Any:
    def said(attempt: Attempt) -> None:
        what = f"{attempt.per_request:,.0f} instructions/request" if attempt.record else f"skipped: {attempt.reason}"
        print(
            f"[{attempt.index}/{plan.last}] {plan.commits[attempt.index].name}: {what} ({attempt.seconds:.1f} s)",
            file=sys.stderr,
        )

    return said


def run_live(args: argparse.Namespace) -> dict[str, Any]:
    """Plan, count, attribute and confirm; the bisection record."""
    plan, needed, sync = plan_of(args)
    envs = Environments(
        plan.repo, plan.lock_path, plan.python, git.working_lock(plan.repo, plan.lock_path), shlex.split(sync)
    )
    envs.check(plan.commits)
    started = time.monotonic()
    print(
        f"bisecting {plan.name}: {len(plan.commits)} commits ({plan.commits[0].short}..{plan.commits[-1].short}), "
        f"threshold {plan.threshold:.1%}",
        file=sys.stderr,
    )
    with backends.started(needed, urls_of(args)) as services, envs:
        env = server_env(plan, services)
        attempts, result = search.run(plan, envs, env, progress(plan))
        extra = []
        for step in result.steps:
            added: dict[str, Any] = {}
            if step.kind == REGRESSION:
                added["attribution"] = _attribution(plan, attempts, step.before, step.after, envs, env)
                if not args.no_confirm:
                    urls = {name: service.url for name, service in services.items()}
                    before, after = plan.commits[step.before], plan.commits[step.after]
                    added["gate"] = confirm(plan_fields(plan), before, after, envs, urls, args.gate_args)
            extra.append(added)
        return search.to_record(plan, attempts, result, time.monotonic() - started, __version__, extra)


def _attribution(
    plan: BisectPlan, attempts: Mapping[int, Attempt], before: int, after: int, envs, env
) -> list[dict[str, Any]]:
    """The functions a step came from: both commits' counts with their Python profiles, compared."""
    try:
        base = profiled(plan, before, attempts[before].record, envs, env)
        candidate = profiled(plan, after, attempts[after].record, envs, env)
    except ServerbenchError as exc:
        print(f"note: no Python-level profile of the step ({exc}); C functions only", file=sys.stderr)
        base, candidate = attempts[before].record, attempts[after].record
    return [s.to_record() for s in attribute(CostBaseline.of(base), candidate)]


def plan_fields(plan: BisectPlan) -> dict[str, Any]:
    """What the confirming gate needs of the plan (also stored in a bisection file)."""
    return {
        "repo": str(plan.repo),
        "project": plan.project,
        "user": plan.user,
        "variant": plan.cell.variant.name,
        "app": plan.cell.app.name,
        "workload": plan.workload.name,
    }


class _Tee(io.StringIO):
    """Writes through to ``out`` and keeps a copy (the gate's last error line)."""

    def __init__(self, out: Any):
        super().__init__()
        self.out = out

    def write(self, text: str) -> int:
        self.out.write(text)
        return super().write(text)


def confirm(
    fields: Mapping[str, Any],
    before: Commit,
    after: Commit,
    envs: Environments,
    urls: Mapping[str, str],
    gate_args: str,
) -> dict[str, Any]:
    """The timed A/B gate on one step, parent (base) against culprit (candidate), through the gate's own command
    line: its verdict, exit status and each signal's summary (or why it could not run)."""
    repo = Path(fields["repo"])
    cell = (
        ["--endpoint", fields["workload"]]
        if fields["user"]
        else ["--app", fields["app"], "--workload", fields["workload"]]
    )
    print(f"confirming {after.name} against its parent {before.short} with the A/B gate", file=sys.stderr)
    with (
        worktree(after.sha, repo) as candidate,
        worktree(before.sha, repo) as base,
        tempfile.TemporaryDirectory() as tmp,
    ):
        try:
            pythons = [envs.python_for(before, base), envs.python_for(after, candidate)]
        except ServerbenchError as exc:
            return {"error": str(exc)}
        argv = [
            "--repo",
            str(candidate / fields["project"]),
            "--base-ref",
            before.sha,
            "--variant",
            fields["variant"],
            *cell,
            "--base-python",
            pythons[0],
            "--cand-python",
            pythons[1],
            *(
                a
                for name, url in urls.items()
                for a in (OPTIONS_BY_NAME[backends.BACKENDS[name].url_option].command_flag, url)
            ),
            "--json",
            f"{tmp}/decision.json",
            "--markdown",
            f"{tmp}/summary.md",
            *shlex.split(gate_args),
        ]
        said = _Tee(sys.stderr)
        with redirect_stdout(sys.stderr), redirect_stderr(said):
            status = gate.main(argv)
        if status == 128 + signal.SIGINT:  # Ctrl-C stopped the gate (which removed its own): the bisection stops too
            raise KeyboardInterrupt
        if status == 2 or not Path(f"{tmp}/decision.json").exists():
            errors = [line for line in said.getvalue().splitlines() if line.startswith("error:")]
            return {
                "error": (errors[-1] if errors else f"the gate exited {status}").removeprefix("error: "),
                "argv": argv,
            }
        run = decision_file.read(Path(f"{tmp}/decision.json"))
        summary = Path(f"{tmp}/summary.md").read_text() if Path(f"{tmp}/summary.md").exists() else ""
    return {
        "verdict": run.verdict,
        "exit_status": run.exit_status,
        "stopped": run.stopped,  # "counted": decided by the counts, before any window
        "windows": len(run.windows),
        "blocks": run.measurement.blocks,
        "signals": {name: d.summary() for name, d in run.decisions.items()},
        "seconds": round(run.seconds, 1),
        "markdown": summary,
    }


def confirm_stored(args: argparse.Namespace) -> dict[str, Any]:
    """The gate on each regression step of a stored bisection; the record with the verdicts added."""
    record = bisects.read(Path(args.confirm))
    rows = [Commit(c["sha"], c["subject"], c.get("lock")) for c in record["commits"]]
    repo = Path(record["repo"])
    sync = args.sync_args or (USER_SYNC if record["user"] else REFERENCE_SYNC)
    lock = record.get("lock_path") or "uv.lock"
    with Environments(repo, lock, args.python, git.working_lock(repo, lock), shlex.split(sync)) as envs:
        envs.check([rows[s["before"]] for s in record["steps"]] + [rows[s["after"]] for s in record["steps"]])
        for step in record["steps"]:
            if step["kind"] == REGRESSION:
                step["gate"] = confirm(record, rows[step["before"]], rows[step["after"]], envs, {}, args.gate_args)
    return record


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        with terminating_through_finally():
            record = confirm_stored(args) if args.confirm else run_live(args)
    except (ServerbenchError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the servers, backends and worktrees were stopped and removed", file=sys.stderr)
        return 128 + signal.SIGINT
    print(report.text(record))
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write(report.markdown(record))
    if args.json:
        bisects.write(Path(args.json), record)
    result: Bisection = report.judged(record)
    return result.exit_status


if __name__ == "__main__":
    sys.exit(main())
