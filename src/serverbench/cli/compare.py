"""Side by side: the same cells from two --perf-json files (e.g. CPython and PyPy).

    serverbench compare .tox/perf-cpython.json .tox/perf-pypy.json [--markdown FILE]

Cells are matched by their key (test, variant, app, workload, connections); a cell present
on one side only is listed with a dash on the other, with the reason it is missing when
the run recorded one (a skipped variant has no record).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import ConfigError
from ..records import results as results_file
from ..records.results import Stored
from ..report.tables import Column, render_table


def load_records(path: Path) -> tuple[str, dict[str, Stored]]:
    """(interpreter label, stored results by key) of one --perf-json file; a bad file is a ConfigError."""
    try:
        stored = results_file.read(path)
    except results_file.ResultsFileError as exc:
        raise ConfigError(str(exc)) from None
    return stored.label, {s.result.key: s for s in stored.results}


def rows(left: Mapping[str, Stored], right: Mapping[str, Stored]) -> list[tuple]:
    """(key, left stored result or None, right or None, right/left rps ratio or None), left's order first."""
    keys = list(left) + [k for k in right if k not in left]
    out = []
    for key in keys:
        a, b = left.get(key), right.get(key)
        ratio = b.result.rps / a.result.rps if a and b and a.result.rps else None
        out.append((key, a, b, ratio))
    return out


def _cell(stored: Stored | None) -> tuple[str, str, str]:
    """rps with the generator-saturated mark and the record's consistency flags, p99, the warm-up rounds."""
    if stored is None:
        return "-", "-", "-"
    result = stored.result
    warm = result.warmup_rps
    warm_txt = f"{len(warm)}: " + " ".join(f"{x / 1000:.1f}k" for x in warm) if warm else "-"
    marks = (["SAT"] if result.generator.saturated else []) + [f for f in stored.flags if f != "generator-saturated"]
    return " ".join([f"{result.rps:,.0f}", *marks]), f"{result.load.latency_ms['p99']:.1f}", warm_txt


def render(labels: Sequence[str], table_rows: Sequence[tuple], width: int | None = None) -> str:
    """The side-by-side table, whole at ``width`` (None: not a terminal, as wide as it needs): a number is never cut;
    the headers, rps with their marks and the warm-up rounds wrap between words when the width is short."""
    columns = [Column("cell")]
    for label in labels:
        columns += [
            Column(f"{label} rps", "right", wraps=True),
            Column("p99 ms", "right"),
            Column("warm-up rounds (rps)", wraps=True),
        ]
    columns.append(Column(f"{labels[1]} / {labels[0]}", "right", wraps=True))
    cells = [
        (key.split("::", 1)[-1], *_cell(a), *_cell(b), "-" if ratio is None else f"{ratio:.2f}x")
        for key, a, b, ratio in table_rows
    ]
    return render_table(f"serverbench: {labels[0]} vs {labels[1]}", columns, cells, width)


def markdown(labels: Sequence[str], table_rows: Sequence[tuple]) -> str:
    head = f"| cell | {labels[0]} rps | {labels[1]} rps | {labels[1]} / {labels[0]} |\n|---|---:|---:|---:|\n"
    body = "".join(
        f"| {key.split('::', 1)[-1]} | {_cell(a)[0]} | {_cell(b)[0]} | {'-' if r is None else f'{r:.2f}x'} |\n"
        for key, a, b, r in table_rows
    )
    return head + body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="serverbench compare", description=__doc__.splitlines()[0])
    parser.add_argument("left", type=Path)
    parser.add_argument("right", type=Path)
    parser.add_argument("--markdown", type=Path, help="also write the table as Markdown to this file")
    args = parser.parse_args(argv)
    try:
        (la, left), (lb, right) = load_records(args.left), load_records(args.right)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table_rows = rows(left, right)
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None  # a log: as wide as the table
    print(render((la, lb), table_rows, width), end="")
    if args.markdown:
        try:
            args.markdown.write_text(markdown((la, lb), table_rows))
        except (OSError, ValueError) as exc:  # a folder, a missing folder, a NUL byte in the name
            print(
                f"error: --markdown {args.markdown}: cannot write the table there ({exc}); name a file", file=sys.stderr
            )
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
