"""Join the --perf-json files of several shards (--perf-shard K/N) into one session's file.

    serverbench merge OUT.json SHARD1.json SHARD2.json ... [--allow-mixed-machines]

The timed results, failures and cost records of every file go into OUT, each record as it was
stored.  Timed results are only comparable on one machine id (the id baselines are stored
under), so files from different machine ids are refused unless ``--allow-mixed-machines`` says
the merged file is for reading, not for one baseline; its machine is then ``"mixed"``.  Files
holding only cost records are not checked: instruction counts do not depend on the machine.
A cell found in two files (a shard passed twice, shards of different splits) is refused.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import ServerbenchError
from ..records import results as results_file
from ..records.results import ResultsFile

MIXED = "mixed"


class MixedMachinesError(ServerbenchError):
    """Shards measured on different machine ids, merged without --allow-mixed-machines."""


class DuplicateCellError(ServerbenchError):
    """The same cell's record in two of the files being merged."""


def machine_of(files: Sequence[ResultsFile], allow_mixed: bool) -> Mapping[str, Any]:
    """The machine of the merged file: the one the timed files share, else refused (or ``mixed``)."""
    timed = [f for f in files if f.results or f.failures] or list(files)
    ids = {str(f.machine.get("id", "unknown")) for f in timed}
    if len(ids) == 1:
        return timed[0].machine
    if not allow_mixed:
        found = "\n  ".join(f"{f.path}: {f.machine.get('id', 'unknown')}" for f in timed)
        raise MixedMachinesError(
            f"the files come from {len(ids)} machine ids, and timed results are comparable only on one:\n  {found}\n"
            "merge each machine's files separately, or pass --allow-mixed-machines when the merged file is for "
            "reading only (it will not name one machine, so it cannot serve as one machine's baseline)"
        )
    return {"id": MIXED, "ids": sorted(ids)}


def check_disjoint(files: Sequence[ResultsFile]) -> None:
    """Each cell (a timed result's or a cost record's key) in at most one file."""
    seen: dict[str, Path] = {}
    for f in files:
        keys = {s.result.key for s in f.results} | {f"cost:{c.get('key')}" for c in f.cost}
        for key in sorted(keys):
            if key in seen:
                raise DuplicateCellError(
                    f"{key} is in both {seen[key]} and {f.path}; pass each shard's file once, and only shards of "
                    "one split (the same N in --perf-shard K/N)"
                )
            seen[key] = f.path


def merge(out: Path, paths: Sequence[Path], allow_mixed: bool = False) -> tuple[ResultsFile, ...]:
    """Read, check and write; the files merged are returned (for the summary)."""
    files = tuple(results_file.read(p) for p in paths)
    machine = machine_of(files, allow_mixed)
    check_disjoint(files)
    results_file.write_merged(out, files, machine, __version__)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="serverbench merge", description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the merged --perf-json file to write")
    parser.add_argument("inputs", type=Path, nargs="+", help="the shards' --perf-json files")
    parser.add_argument(
        "--allow-mixed-machines",
        action="store_true",
        help="merge files from different machine ids (the result names no single machine)",
    )
    args = parser.parse_args(argv)
    try:
        files = merge(args.out, args.inputs, args.allow_mixed_machines)
    except (ServerbenchError, results_file.ResultsFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = (sum(len(f.results) for f in files), sum(len(f.failures) for f in files), sum(len(f.cost) for f in files))
    print(f"{args.out}: {counts[0]} results, {counts[1]} failures and {counts[2]} cost records from {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
