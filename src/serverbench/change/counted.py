"""A push's cost test: what examples/*/ci/cost.sh did, in one place.  The commit before the push is counted in a
git worktree into a temporary baseline (``pytest -m cost --perf-save-baseline --perf-cost-baseline-dir=...``),
then the working tree against it, its records (each with its verdict) written to a --perf-json file; the
arguments after ``--`` go to both pytest runs (``--perf-variants=waitress-t4``).

Options are given as ``--name=value``: a separate path argument would move pytest's rootdir.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ServerbenchError
from ..measure.trees.worktree import worktree
from ..records import jsonfile
from .commits import Checkout

NO_TESTS = 5  # pytest's exit status when it collected nothing
TAIL = 30  # lines of pytest's output an error carries


class CountError(ServerbenchError):
    """A pytest -m cost run that failed other than by a cell's cost (it could not count)."""


@dataclass(frozen=True)
class Counted:
    """The head's cost records (``--perf-json``'s ``"cost"``, each with its verdict), or why nothing was compared."""

    records: tuple[dict[str, Any], ...] = ()
    not_measured: str = ""


def pytest(python: str, folder: Path, argv: Sequence[str]) -> tuple[int, str]:
    """``python -m pytest -m cost ARGV`` in ``folder``, its output passed on as it comes; (status, its last lines)."""
    command = [python, "-m", "pytest", "-m", "cost", "-p", "no:cacheprovider", *argv]
    print(f"serverbench: {' '.join(command)}  (in {folder})", file=sys.stderr)
    tail: deque[str] = deque(maxlen=TAIL)
    with subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            tail.append(line)
    return proc.returncode, "".join(tail)


def count(checkout: Checkout, before: str, python: str, extra: Sequence[str], results: Path) -> Counted:
    """The working tree's cost records judged against ``before``'s counts; ``results``: the head's --perf-json."""
    with tempfile.TemporaryDirectory(prefix="serverbench-cost-") as scratch, worktree(before, checkout.top) as base:
        baselines = f"--perf-cost-baseline-dir={Path(scratch) / 'baselines'}"
        status, tail = pytest(python, base / checkout.prefix, ["--perf-save-baseline", baselines, *extra])
        if status == NO_TESTS:
            return Counted(
                not_measured=f"the commit before the push ({before}) has no cost tests: nothing to compare with"
            )
        if status != 0:
            raise CountError(f"counting the commit before the push ({before}) failed (pytest exit {status})\n{tail}")
        results.unlink(missing_ok=True)
        status, tail = pytest(
            python, checkout.top / checkout.prefix, [baselines, f"--perf-json={results.resolve()}", *extra]
        )
    if status == NO_TESTS:
        return Counted(not_measured="pytest -m cost collected no test in this commit")
    records = tuple(jsonfile.read(results).get("cost", ())) if results.is_file() else ()
    failed = any((r.get("verdict") or {}).get("status") == "fail" for r in records)
    if status != 0 and not (status == 1 and failed):
        raise CountError(f"counting this commit failed (pytest exit {status})\n{tail}")
    if not records:
        return Counted(not_measured="pytest -m cost counted no cell in this commit")
    return Counted(records)
