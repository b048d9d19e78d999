"""Side by side: the same cells from N --perf-json files (interpreters, environments), ratios to a reference.

    serverbench compare .tox/perf-py311.json .tox/perf-py313.json .tox/perf-pypy3.json [--reference 3.13]
    serverbench compare .tox/perf-py31*.json --missing-ok --markdown interpreters.md

Each cell shows each file's throughput, p99, the server's CPU per request, the instructions it counted per request
(when the file holds ``-m cost`` records) and its peak PSS, each with its ratio to the reference file's (default:
the first).  Cells are matched by their key (test, variant, app, workload, connections); a cell a file lacks keeps
its row with the reason the run stored (a variant that does not run on that interpreter), else a dash.  With
``--missing-ok`` a file that was not written (its tox env was skipped: the interpreter is not installed) is named
as not compared instead of an error.  Exit status: 0 shown, 2 bad input.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import ConfigError
from ..records import results as results_file
from ..report.sidebyside import METRICS, Entry, Row, Side, file_sides, reference_of, rows
from ..report.tables import Column, render_table


def load(paths: Sequence[Path], missing_ok: bool) -> tuple[list[results_file.ResultsFile], list[Path]]:
    """(the results files read, the paths not written: only with ``missing_ok``); a bad file is a ConfigError."""
    runs, absent = [], []
    for path in paths:
        if missing_ok and not path.exists():
            absent.append(path)
            continue
        try:
            runs.append(results_file.read(path))
        except results_file.ResultsFileError as exc:
            raise ConfigError(str(exc)) from None
    if not runs:
        raise ConfigError(
            f"none of the {len(paths)} files was written ({', '.join(map(str, absent))}): "
            "run the perf suite first (tox -e perf-py311,perf-py313 or pytest -m perf --perf-json FILE)"
        )
    return runs, absent


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _ratio(entry: Entry, metric: str, reference: bool) -> str:
    if reference:
        return "ref"
    value = entry.ratios.get(metric)
    return "-" if value is None else f"{value:.2f}x"


def _marks(entry: Entry) -> list[str]:
    """The generator-saturated mark and the record's other consistency flags (docs/checks.md)."""
    stored = entry.stored
    if stored is None:
        return []
    return (["SAT"] if stored.result.generator.saturated else []) + [
        f for f in stored.flags if f != "generator-saturated"
    ]


def _notes(entry: Entry) -> str:
    """Warm-up rounds in thousands of rps, or why the cell is missing; the GIL's state on a free-threaded build."""
    if entry.stored is None:
        return entry.missing
    result = entry.stored.result
    warm = result.warmup_rps
    text = f"{len(warm)}: " + " ".join(f"{x / 1000:.1f}k" for x in warm) if warm else "-"
    gil = result.gil
    if gil and gil.get("enabled"):
        text += f"; GIL on ({', '.join(gil.get('enabled_by') or ()) or 'enabled at start'})"
    return text


def cells(table_rows: Sequence[Row], reference: str) -> list[tuple[str, ...]]:
    """The table's text: one line per cell and side, the cell named on its first line."""
    out = []
    for row in table_rows:
        for i, entry in enumerate(row.entries):
            ref = entry.side == reference
            rps = _number(entry.figures["rps"], 0) if entry.stored is not None else "-"
            figures: list[str] = [" ".join([rps, *_marks(entry)]), _ratio(entry, "rps", ref)]
            for metric in METRICS[1:]:
                figures += [_number(entry.figures[metric.name], metric.digits), _ratio(entry, metric.name, ref)]
            side = f"{entry.side} (ref)" if ref else entry.side
            out.append((row.cell if i == 0 else "", side, *figures, _notes(entry)))
    return out


def columns() -> list[Column]:
    out = [Column("cell"), Column("interpreter", wraps=True)]
    for metric in METRICS:
        out += [Column(metric.header, "right", wraps=True), Column("x ref", "right")]
    return [*out, Column("warm-up (rps) or why not run", wraps=True)]


def title(sides: Sequence[Side], reference: int, absent: Sequence[Path]) -> str:
    text = f"serverbench: {' vs '.join(s.label for s in sides)}; ratios to {sides[reference].label}"
    text += "".join(f"\nnot compared: {p} (not written: its run was skipped)" for p in absent)
    return text + "".join(
        f"\n  {s.label}: {path}, written {created}" for s in sides for path, created in zip(s.paths, s.created)
    )


def render(sides: Sequence[Side], reference: int, absent: Sequence[Path] = (), width: int | None = None) -> str:
    """The side-by-side table, whole at ``width`` (None: not a terminal, as wide as it needs)."""
    table = cells(rows(sides, reference), sides[reference].label)
    return render_table(title(sides, reference, absent), columns(), table, width)


def markdown(sides: Sequence[Side], reference: int, absent: Sequence[Path] = ()) -> str:
    heads = [c.header for c in columns()]
    lines = [
        "| " + " | ".join(heads) + " |",
        "|" + "|".join("---:" if c.justify == "right" else "---" for c in columns()) + "|",
        *("| " + " | ".join(row) + " |" for row in cells(rows(sides, reference), sides[reference].label)),
    ]
    named = "".join(f"\nNot compared: `{p}` (not written: its run was skipped).\n" for p in absent)
    return "\n".join(lines) + "\n" + named


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="serverbench compare",
        description=__doc__.splitlines()[0],
        epilog="exit status: 0 shown, 2 bad input",
    )
    p.add_argument("files", type=Path, nargs="*", metavar="RESULTS.json", help="two or more --perf-json files")
    p.add_argument(
        "--reference",
        help="the side the ratios are to: an interpreter (cpython-3.11, 3.11) or one of the files (default: the first)",
    )
    p.add_argument(
        "--missing-ok",
        action="store_true",
        help="a file that does not exist (its tox env was skipped: interpreter not installed) is named, not an error",
    )
    p.add_argument("--markdown", type=Path, help="also write the table as Markdown to this file")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if len(args.files) < 2:
            raise ConfigError(
                f"compare takes two or more --perf-json files, got {len(args.files)}: "
                "give each interpreter's file (serverbench compare A.json B.json ...)"
            )
        runs, absent = load(args.files, args.missing_ok)
        sides = file_sides(runs)
        reference = reference_of(sides, args.reference)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None  # a log: as wide as the table
    print(render(sides, reference, absent, width), end="")
    if args.markdown:
        try:
            args.markdown.write_text(markdown(sides, reference, absent))
        except (OSError, ValueError) as exc:  # a folder, a missing folder, a NUL byte in the name
            print(
                f"error: --markdown {args.markdown}: cannot write the table there ({exc}); name a file", file=sys.stderr
            )
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
