"""One self-contained HTML report (plots inline, opens from disk with no network) from stored records.

    serverbench report RESULTS.json [MORE.json ...] [DECISION.json ...] -o report.html
    serverbench report tests/integration/sessions/records/ -o report.html   # every *.json in a folder

Results files are --perf-json outputs (several sessions, machines or interpreters); decision files
are `serverbench gate --json` outputs (or proof runs of the gate).  The folder above, in this repository, holds
two short real sessions to try it on.  Exit status: 0 written, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..errors import ConfigError
from ..report import html
from ..report.inputs import load
from ..report.sections import select


def _title(text: str) -> str:
    """--title as given; a byte that is not UTF-8 (escaped by Python from the command line) is a usage error."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not UTF-8 text; give the title in UTF-8") from None
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="serverbench report", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="--perf-json results files, A/B decision files, or folders of them")
    parser.add_argument("-o", "--output", type=Path, default=Path("report.html"), help="the HTML file to write")
    parser.add_argument("--title", type=_title, default="serverbench report")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        inputs = load(args.paths)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        size = html.write(args.output, inputs, args.title)
    except (OSError, ValueError) as exc:  # a folder, a file where a folder should be, a NUL byte in the name
        print(f"error: -o/--output {args.output}: cannot write the report there ({exc}); name a file", file=sys.stderr)
        return 2
    shown = ", ".join(s.id for s in select(inputs)) or "none"
    print(
        f"{args.output}: {size / 1024:,.0f} KB from {len(inputs.results)} results file(s) and "
        f"{len(inputs.decisions)} decision file(s) in {time.perf_counter() - started:.2f} s; sections: {shown}"
    )
    if inputs.skipped:
        print(f"skipped (neither results nor A/B decisions): {', '.join(str(p) for p in inputs.skipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
