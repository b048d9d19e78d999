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
import shlex
import signal
import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import NoReturn

from ..backends import base as backends
from ..bisect import confirm, workflow
from ..bisect.plan import DEFAULT_REQUESTS
from ..bisect.resolve import REFERENCE_SYNC, USER_SYNC, BisectOptions
from ..config.options import OPTIONS_BY_NAME
from ..errors import ConfigError, ServerbenchError
from ..gate.options import GateOptions, add_arguments
from ..judge.bisect import Bisection
from ..processes.stopping import terminating_through_finally
from ..records import bisects
from ..report import bisect as report
from . import exit_statuses

URLS = tuple(b.url_option for b in backends.BACKENDS.values())


EXIT_STATUSES = (
    (0, "no regression step (the range kept its cost, or it fell)"),
    (1, "a regression step: a commit that raised the counted cost"),
    (2, "bad input"),
    (3, "the range moved but no single commit did (spread over several)"),
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="serverbench bisect",
        description=__doc__.splitlines()[0],
        epilog=exit_statuses(EXIT_STATUSES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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


class _GateArgs(argparse.ArgumentParser):
    """The gate's options as --gate-args gives them: a mistake is bad input of bisect (one line), not an exit."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"--gate-args: {message}")


def gate_options(text: str) -> GateOptions:
    """--gate-args, read by the arguments the gate's own command line declares."""
    p = _GateArgs(prog="serverbench bisect --gate-args", add_help=False)
    add_arguments(p)
    return GateOptions.of(p.parse_args(shlex.split(text)))


def options_of(args: argparse.Namespace) -> BisectOptions:
    """The bisection the command line asks for, its --gate-args read by the gate's own arguments."""
    special = ("urls", "confirm", "gate")
    given = {f.name: getattr(args, f.name) for f in fields(BisectOptions) if f.name not in special}
    urls = {name: getattr(args, name) for name in URLS}
    return BisectOptions(**given, urls=urls, confirm=not args.no_confirm, gate=gate_options(args.gate_args))


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        with terminating_through_finally():
            options = options_of(args)
            record = confirm.confirm_stored(Path(args.confirm), options) if args.confirm else workflow.run(options)
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
