"""What a perf session writes at its end besides its --perf-json records: the HTML report and the
pytest-benchmark file, both made from the session's own records."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..judge.checks import check_session
from ..records.jsonfile import write_atomic
from ..records.results import Failure, ResultsFile, Stored
from ..records.schema import SCHEMA, Result
from . import benchmark_json, html
from .inputs import Inputs


def session_inputs(
    name: Path,
    machine: Mapping[str, Any],
    results: Sequence[tuple[Result, Mapping[str, Any] | None]],
    failures: Sequence[Failure],
) -> Inputs:
    """The session's records as the report's input, as if read back from a results file called ``name``
    (each with its consistency flags, as the session's --perf-json stores them)."""
    judged = check_session([r for r, _ in results])
    stored = tuple(Stored(r, v, r.to_record(v, [f.to_record() for f in fs])) for (r, v), fs in zip(results, judged))
    run = ResultsFile(
        Path(name),
        SCHEMA,
        dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        dict(machine),
        stored,
        tuple(failures),
    )
    return Inputs((run,), ())


def write_html(
    path: Path,
    machine: Mapping[str, Any],
    results: Sequence[tuple[Result, Mapping[str, Any] | None]],
    failures: Sequence[Failure],
) -> int:
    """The session's HTML report; returns its size in bytes."""
    return html.write(
        path, session_inputs(Path("session"), machine, results, failures), "serverbench report: this session"
    )


def write_benchmark_json(
    path: Path, machine: Mapping[str, Any], results: Sequence[tuple[Result, Mapping[str, Any] | None]]
) -> int:
    """The session in pytest-benchmark's format; returns how many benchmarks (cells) it holds."""
    doc = benchmark_json.document(results, machine, benchmark_json.commit_info(), __version__)
    write_atomic(Path(path), doc)
    return len(doc["benchmarks"])
