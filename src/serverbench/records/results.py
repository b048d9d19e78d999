"""Results files (``--perf-json``): one session's records, written atomically, read back typed.

A file holds the schema version, when and on which machine it was made, every result (each with
the verdict it got), every failure (a test that produced no result) and the cost records of
``-m cost`` tests (kept as written, :mod:`serverbench.records.cost` reads them), the cells that could not run
here with the reason (``skipped``: a server that does not build or run on this interpreter keeps its row in a
comparison) and the interpreter that ran them (``python``, also when every cell was skipped).  Files of schema 1
(the load shape as a label) and files without ``skipped`` or ``python`` still load.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import jsonfile
from .schema import SCHEMA, Result, interpreter_label

READABLE = (1, 2)


@dataclass(frozen=True)
class Failure:
    """A test that produced no result (the server died, verification failed, …)."""

    nodeid: str
    variant: str
    app: str
    workload: str
    connections: int
    message: str


@dataclass(frozen=True)
class Skip:
    """A cell's test that could not run here, with the reason (the variant does not run on this interpreter, …)."""

    cell: str  # variant/app
    workload: str
    reason: str


@dataclass(frozen=True)
class Stored:
    """One result as it was stored, with the verdict it got (a plain mapping: records do not judge)."""

    result: Result
    verdict: Mapping[str, Any] | None
    record: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)  # as stored, schema 2

    @property
    def flags(self) -> tuple[str, ...]:
        """The names of the consistency flags stored with the result (docs/checks.md); none before schema 2."""
        stored = (self.record or {}).get("flags") or ()
        return tuple(str(f.get("name")) for f in stored if isinstance(f, Mapping) and f.get("name"))


@dataclass(frozen=True)
class ResultsFile:
    path: Path
    schema: int
    created: str
    machine: Mapping[str, Any]
    results: tuple[Stored, ...]
    failures: tuple[Failure, ...]
    cost: tuple[Mapping[str, Any], ...] = ()
    phases: Mapping[str, Any] | None = None  # where the session's time went, as written (report.phases)
    commit: str | None = None  # the commit measured (a clean checkout's HEAD): where `serverbench bisect` starts
    skipped: tuple[Skip, ...] = ()
    python: Mapping[str, Any] | None = None  # the session's interpreter; None in files written before it was kept

    @property
    def label(self) -> str:
        """The interpreter that measured (``cpython-3.11.7``, ``cpython-3.13.1t``), else the file's name."""
        named = [self.python] if self.python else []
        return next(
            (t for py in [*named, *(s.result.python for s in self.results[:1])] if (t := interpreter_label(py, True))),
            self.path.stem,
        )


class ResultsFileError(ValueError):
    """A file that is not a readable serverbench results file; the message names it and the fix."""


def write(
    path: Path,
    machine: Mapping[str, Any],
    results: Sequence[tuple[Result, Mapping[str, Any] | None]],
    failures: Sequence[Failure],
    version: str,
    flags: Sequence[Sequence[Mapping[str, str]]] | None = None,
    phases: Mapping[str, Any] | None = None,
    commit: str | None = None,
    skipped: Sequence[Skip] = (),
    python: Mapping[str, Any] | None = None,
) -> None:
    """``flags``: each result's consistency flags (judge.checks), in the order of ``results``; ``phases``: where the
    session's time went (report.phases.Breakdown.to_record); ``commit``: the commit measured, when the checkout
    was clean; ``skipped``: the cells that could not run, with the reason; ``python``: the session's interpreter."""
    jsonfile.write_atomic(
        Path(path),
        {
            "schema": SCHEMA,
            "serverbench": version,
            "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "machine": dict(machine),
            "results": [r.to_record(v, None if flags is None else flags[i]) for i, (r, v) in enumerate(results)],
            "failures": [f.__dict__ for f in failures],
            **({"skipped": [s.__dict__ for s in skipped]} if skipped else {}),
            **({"python": dict(python)} if python else {}),
            **({"phases": dict(phases)} if phases else {}),
            **({"commit": commit} if commit else {}),
        },
    )


def write_merged(path: Path, files: Sequence[ResultsFile], machine: Mapping[str, Any], version: str) -> None:
    """One file holding several files' results, failures and cost records (serverbench merge).

    Records of the current schema are copied as stored (writing them again from the typed result
    would round their numbers a second time); older ones are upgraded.  ``created`` is the
    earliest file's: when the measurements began.
    """
    cost = [dict(c) for f in files for c in f.cost]
    commits = {f.commit for f in files}  # shards of one commit keep it
    pythons = [dict(f.python) for f in files if f.python]
    skipped = [s.__dict__ for f in files for s in f.skipped]
    jsonfile.write_atomic(
        Path(path),
        {
            "schema": SCHEMA,
            "serverbench": version,
            "created": min(f.created for f in files),
            "machine": dict(machine),
            "results": [
                dict(s.record) if s.record is not None else s.result.to_record(s.verdict)
                for f in files
                for s in f.results
            ],
            "failures": [x.__dict__ for f in files for x in f.failures],
            **({"skipped": skipped} if skipped else {}),
            **({"python": pythons[0]} if pythons and all(p == pythons[0] for p in pythons) else {}),
            **({"cost": cost} if cost else {}),
            **({"commit": commits.pop()} if len(commits) == 1 and None not in commits else {}),
        },
    )


def read(path: Path) -> ResultsFile:
    """A results file, typed; anything else is a ResultsFileError naming the file and what was wrong."""
    path = Path(path)
    try:
        data = jsonfile.read(path)
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such file; write one with `pytest -m perf --perf-json {path}`") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsFileError(
            f"{path}: not a readable serverbench results file ({exc}); {path.name} is not a "
            "serverbench --perf-json file: pass only --perf-json outputs"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list) or "created" not in data:
        raise ResultsFileError(
            f"{path}: not a serverbench results file (no 'created' and 'results'); pass only --perf-json outputs"
        )
    schema = data.get("schema", 1)
    if schema not in READABLE:
        raise ResultsFileError(
            f"{path}: results schema {schema!r}; this serverbench reads {READABLE}: upgrade serverbench to read it"
        )
    try:
        results = tuple(
            Stored(Result.from_record(r), r.get("verdict"), r if schema == SCHEMA else None) for r in data["results"]
        )
        failures = tuple(Failure(**f) for f in data.get("failures") or ())
        cost = tuple(dict(c) for c in data.get("cost") or ())
        skipped = tuple(Skip(str(s["cell"]), str(s["workload"]), str(s["reason"])) for s in data.get("skipped") or ())
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise ResultsFileError(f"{path} is not a serverbench --perf-json file ({type(exc).__name__}: {exc})") from None
    machine = data.get("machine") or {}
    if not isinstance(machine, dict):
        raise ResultsFileError(
            f"{path} is not a serverbench --perf-json file ('machine' is {machine!r}, not an object)"
        )
    phases = data.get("phases")
    commit = data.get("commit")
    python = data.get("python")
    return ResultsFile(
        path,
        schema,
        str(data["created"]),
        machine,
        results,
        failures,
        cost,
        phases if isinstance(phases, dict) else None,
        commit if isinstance(commit, str) else None,
        skipped,
        python if isinstance(python, dict) else None,
    )


def series(runs: list[ResultsFile]) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """(machine id, cell key) -> [(created, median rps of that run's replicates)], oldest first."""
    out: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for run in runs:
        by_key: dict[str, list[float]] = defaultdict(list)
        for stored in run.results:
            if stored.result.rps:
                by_key[stored.result.key].append(stored.result.rps)
        machine = str(run.machine.get("id", "unknown"))  # a file may hold any JSON there
        for key, rps in by_key.items():
            out[(machine, key)].append((run.created, statistics.median(rps)))
    return dict(out)
