"""A pull request's or a push's verdict in one step: the gate against the pull request's base, or the counted cost
against the commit before the push, told as one comment, the step summary and the files a CI artifact keeps.

    serverbench ci                                   # in a GitHub Actions job: gate a pull_request, count a push
    serverbench ci --mode gate --base origin/main --project shop -- --duration 5 --blocks 24
    serverbench ci --mode cost --before HEAD~1 -- --perf-variants=waitress-t4

Arguments after ``--`` go to the gate (``serverbench gate``'s options) or to both ``pytest -m cost`` runs.
--out receives comment.md, summary.md (what was appended to $GITHUB_STEP_SUMMARY), decision*.json (the gate's
--json) or cost.json (cost mode's --perf-json), report.html and result.json.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from ..change import workflow
from ..change.result import DEFAULT_COMMENT, POSTED
from ..processes.stopping import terminating_through_finally
from . import exit_statuses

EXIT_STATUSES = (
    (0, "pass, improvement, or not measured (a base without serverbench's settings, a first commit)"),
    (1, "regression"),
    (2, "bad input or a setup error (its one-line error is in comment.md, summary.md and result.json)"),
    (3, "could not decide (too noisy for a verdict: never a pass)"),
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="serverbench ci",
        usage="serverbench ci [options] [-- EXTRA...]",
        description=__doc__.split("\n\n")[0],
        epilog=exit_statuses(EXIT_STATUSES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--mode",
        default="auto",
        help="gate (a pull request against its base), cost (a push against the commit before it), or auto "
        "(default: gate on a pull_request or pull_request_target event, cost on push, read from GITHUB_EVENT_NAME)",
    )
    p.add_argument(
        "--project", type=Path, default=Path("."), help="the folder of your serverbench settings (default: .)"
    )
    p.add_argument(
        "--endpoint",
        action="append",
        default=[],
        metavar="NAME",
        help="an endpoint of perf_endpoints; repeatable (default: all)",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="a variant of perf_variants; repeatable (default: every one that runs here)",
    )
    p.add_argument(
        "--comment",
        default=DEFAULT_COMMENT,
        help=f"when result.json says to post the comment: {', '.join(POSTED)} (default {DEFAULT_COMMENT}: a regression, "
        "an improvement, could not decide, or an error)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("serverbench-out"),
        help="the folder the files go to (default: serverbench-out)",
    )
    p.add_argument("--base", metavar="SHA", help="gate: the base commit (default: the event's pull_request.base.sha)")
    p.add_argument(
        "--before",
        metavar="SHA",
        help="cost: the commit before the push (default: the event's before; all zeros: the parent)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    ours, extra = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    args = parser().parse_args(ours)
    options = workflow.CiOptions(
        mode=args.mode,
        project=args.project,
        endpoints=tuple(args.endpoint),
        variants=tuple(args.variant),
        comment=args.comment,
        out=args.out,
        base=args.base,
        before=args.before,
        extra=tuple(extra),
    )
    try:
        with terminating_through_finally():
            return workflow.run(options, os.environ)
    except KeyboardInterrupt:
        print("interrupted: the servers, backends and worktrees were stopped and removed", file=sys.stderr)
        return 128 + signal.SIGINT


if __name__ == "__main__":
    sys.exit(main())
