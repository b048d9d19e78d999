"""The A/B regression gate as a command: base (a git ref, interpreter or environment) vs the working tree.

    serverbench gate --base-ref origin/main                    # in your project: your app (perf_app)
    serverbench gate --base-ref origin/main --endpoint list    # ... on one of its perf_endpoints
    serverbench gate --variant aiohttp --workload json --base-ref origin/main
    serverbench gate --variant aiohttp --workload json --cand-env SERVERBENCH_BURN_US=20
    serverbench gate --rejudge decision.json --alpha 0.05      # judge a stored --json again, no server

Exit status: 0 pass (or improvement), 1 regression or error rate over the limit, 3 inconclusive
or too noisy to judge (never reported as a pass), 2 bad input (EXIT_STATUSES: the --help lists them).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from ..errors import ServerbenchError
from ..gate import user, workflow
from ..gate.options import GateOptions, add_arguments
from ..gate.resolve import resolve
from ..gate.served import REQUIRED_VARIANT
from ..hosts import handover
from ..processes.stopping import terminating_through_finally
from ..records import decisions as decision_file
from ..report import gate as report
from . import exit_statuses

EXIT_STATUSES = (
    (0, "pass or improvement"),
    (1, "regression, or an arm's error rate over the limit"),
    (2, "bad input, or a setup error (a server that would not start: its log tail is printed)"),
    (3, "could not decide: inconclusive or too noisy to judge (never reported as a pass)"),
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="serverbench gate",
        description=__doc__.splitlines()[0],
        epilog=exit_statuses(EXIT_STATUSES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_cell_options(p)
    _add_arm_sources(p)
    add_arguments(p)
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


def _add_arm_sources(p: argparse.ArgumentParser) -> None:
    """Where each arm's code and interpreter come from (how they run: :func:`serverbench.gate.options.add_arguments`)."""
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


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.rejudge is None and args.variant is None and not user.names_app(Path(args.repo)):
        p.error(f"the following arguments are required: {REQUIRED_VARIANT}")
    options = GateOptions.of(args)
    try:
        with terminating_through_finally():
            if args.rejudge is not None:
                runs = [(workflow.rejudged(args.rejudge, options), ())]
            else:  # an inventory whose server host is another machine: the gate runs there (docs/hosts.md)
                gate = [*(sys.argv[1:] if argv is None else argv)]
                handed = handover.if_apart(options.hosts, lambda s, _: [s.python, "-m", "serverbench", "gate", *gate])
                if handed is not None:
                    return handed
                runs = workflow.run(resolve(options))
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
    return workflow.exit_status([run for run, _ in runs])


if __name__ == "__main__":
    sys.exit(main())
