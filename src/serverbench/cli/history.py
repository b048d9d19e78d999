"""Trends and change points over stored runs (``--perf-json`` files, e.g. nightly runs of main).

    serverbench history benchmarks/history/            # every *.json in the folder
    serverbench history run1.json run2.json ... --min-effect 0.1

Runs are ordered by their ``created`` time and grouped by machine id and cell key: numbers from
different machines are never put in one series.  Each series is searched for sustained level
shifts (``serverbench.judge.changepoints``).  This is the coarse, slow guard over time; the tight
per-change verdict is the same-session A/B gate; a change between runs that carry their commit is printed with
the ``serverbench bisect`` command that finds the commit.  Exit status: 0 no shift down, 1 a throughput
drop was found, 2 bad input (a missing or corrupt file, fewer runs than a segment needs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..catalog.apps import APPS
from ..errors import ConfigError
from ..judge.changepoints import change_points
from ..records import results as results_file
from ..records.results import ResultsFile, series


def load_runs(paths: list[str]) -> list[ResultsFile]:
    """Every results file named (folders: their *.json), oldest first; a bad file is a ConfigError naming it."""
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files += sorted(path.glob("*.json"))
        elif path.is_file():
            files.append(path)
        else:
            raise ConfigError(f"{name}: no such file or folder of --perf-json results")
    runs = []
    for path in files:
        try:
            runs.append(results_file.read(path))
        except results_file.ResultsFileError as exc:
            raise ConfigError(str(exc)) from None
    return sorted(runs, key=lambda r: r.created)


def bisect_line(runs: list[ResultsFile], machine: str, key: str, index: int) -> str | None:
    """The ``serverbench bisect`` command that asks which commit made the change at run ``index`` of the series
    (machine, key): from the last run before it to the first after; None when either run carries no commit."""
    carrying = [
        r
        for r in runs
        if str(r.machine.get("id", "unknown")) == machine
        and any(s.result.key == key and s.result.rps for s in r.results)
    ]
    before, after = carrying[index - 1], carrying[index]
    if not (before.commit and after.commit):
        return None
    result = next(s.result for s in after.results if s.result.key == key)
    cell = f"--app {result.app} --workload {result.workload}" if result.app in APPS else f"--endpoint {result.workload}"
    return (
        f"which commit: serverbench bisect --good {before.commit[:12]} --bad {after.commit[:12]} "
        f"--variant {result.variant} {cell}"
    )


def check_limits(args: argparse.Namespace) -> None:
    """The change-point search's limits, each named by its flag, checked before any file is read."""
    problems = [
        f"{flag} {value!r}: expected {accepted}"
        for flag, value, ok, accepted in (
            ("--alpha", args.alpha, 0 < args.alpha < 1, "a number in (0, 1)"),
            ("--min-effect", args.min_effect, 0 <= args.min_effect < 1, "a number in [0, 1) (0.1 means 10%)"),
            ("--min-segment", args.min_segment, args.min_segment >= 2, "a whole number of runs >= 2"),
        )
        if not ok
    ]
    if problems:
        raise ConfigError("; ".join(problems))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="serverbench history", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="--perf-json result files, or folders of them")
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--min-effect", type=float, default=0.10)
    parser.add_argument("--min-segment", type=int, default=4, help="fewest runs on each side of a change")
    args = parser.parse_args(argv)
    try:
        check_limits(args)
        runs = load_runs(args.paths)
        if len(runs) < 2 * args.min_segment:
            raise ConfigError(
                f"{len(runs)} runs: a change needs at least {args.min_segment} runs on each side "
                f"(--min-segment), so at least {2 * args.min_segment} runs"
            )
        dropped, uncommitted = False, 0
        for (machine, key), points in sorted(series(runs).items()):
            found = change_points(
                [v for _, v in points], alpha=args.alpha, min_effect=args.min_effect, min_segment=args.min_segment
            )
            said = (
                "; ".join(
                    f"{points[c.index][0]}: {c.before:,.0f} -> {c.after:,.0f} rps ({c.change:+.1%}, p={c.p:.2g})"
                    for c in found
                )
                or "no sustained shift"
            )
            print(f"{machine}  {key}  {len(points)} runs, latest {points[-1][1]:,.0f} rps: {said}")
            handed = [bisect_line(runs, machine, key, c.index) for c in found]
            for line in filter(None, handed):
                print(f"    {line}")
            uncommitted += handed.count(None)
            dropped |= any(c.change < 0 for c in found)
        if uncommitted:
            print(
                f"which commit: {uncommitted} change(s) lie between runs that carry no commit; results files "
                "written by pytest in a clean git checkout carry it, and then name the `serverbench bisect` range"
            )
    except (ConfigError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 1 if dropped else 0


if __name__ == "__main__":
    sys.exit(main())
