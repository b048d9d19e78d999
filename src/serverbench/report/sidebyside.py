"""Interpreters side by side: the same cells on N interpreters, each figure with its ratio to a reference's.

A *side* is what one interpreter measured: a results file (``serverbench compare``, one side per file) or every
result one interpreter has across the files of a report (the later run of a cell replaces the earlier).  Each
cell of each side gets five figures: throughput, p99, the server's CPU per request, the instructions it counted
per request (a ``-m cost`` record of the same variant, app and workload in the file) and the tree's peak PSS.  A
cell a side lacks keeps its row with the reason the run stored (the variant does not run on that interpreter, a
failed start), else a dash.

Pure and descriptive: records in, figures and ratios out.  A ratio is a quotient, not a verdict; nothing here
says better or worse (the gate judges: docs/gate.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from ..records.results import ResultsFile, Stored
from ..records.schema import interpreter_label


@dataclass(frozen=True)
class Metric:
    name: str
    header: str
    digits: int


METRICS = (
    Metric("rps", "rps", 0),
    Metric("p99_ms", "p99 ms", 1),
    Metric("cpu_us", "CPU µs/req", 1),
    Metric("instructions", "instr/req", 0),
    Metric("pss_mb", "PSS MB", 1),
)


@dataclass(frozen=True)
class Side:
    """One interpreter's cells: results by key, skip reasons by (variant/app, workload), and counted instructions
    per request by (variant, app, workload)."""

    label: str
    results: Mapping[str, Stored]
    skipped: Mapping[tuple[str, str], str] = field(default_factory=dict)
    instructions: Mapping[tuple[str, str, str], float] = field(default_factory=dict)
    paths: tuple[Path, ...] = ()
    created: tuple[str, ...] = ()  # when each of its files was written (a file left by an earlier run shows its age)


@dataclass(frozen=True)
class Entry:
    """One side's figures for one cell (None each where not measured), their ratios to the reference side's
    (None: no quotient, either side missing or zero), and why the cell is missing (``""``: it is not)."""

    side: str
    stored: Stored | None
    figures: Mapping[str, float | None]
    ratios: Mapping[str, float | None]
    missing: str = ""


@dataclass(frozen=True)
class Row:
    key: str
    workload: str
    entries: tuple[Entry, ...]

    @property
    def cell(self) -> str:
        """The key without its test: variant/app/workload/shape."""
        return self.key.split("::", 1)[-1]


def _costs(run: ResultsFile) -> dict[tuple[str, str, str], float]:
    out = {}
    for c in run.cost:  # as written by -m cost (records.cost); one that lacks the fields is not a count
        try:
            out[(str(c["variant"]), str(c["app"]), str(c["workload"]))] = float(c["instructions"]) / int(c["requests"])
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
    return out


def _skips(run: ResultsFile) -> dict[tuple[str, str], str]:
    out = {(s.cell, s.workload): s.reason for s in run.skipped}
    for f in run.failures:
        cell = f"{f.variant}/{f.app}" if f.app else str(f.variant)
        out.setdefault((cell, str(f.workload)), f"failed: {f.message}")
    return out


def file_sides(runs: Sequence[ResultsFile]) -> list[Side]:
    """One side per file, labelled with its interpreter (two files of one interpreter: each with its file's name)."""
    labels = [run.label for run in runs]
    return [
        Side(
            label if labels.count(label) == 1 else f"{label} ({run.path.stem})",
            {s.result.key: s for s in run.results},
            _skips(run),
            _costs(run),
            (run.path,),
            (run.created,),
        )
        for label, run in zip(labels, runs)
    ]


def interpreter_sides(runs: Sequence[ResultsFile]) -> list[Side]:
    """One side per interpreter over every file (a results file may hold several), first seen first; a later run of
    a cell replaces an earlier one."""
    results: dict[str, dict[str, Stored]] = {}
    skipped: dict[str, dict[tuple[str, str], str]] = {}
    costs: dict[str, dict[tuple[str, str, str], float]] = {}
    for run in runs:
        for s in run.results:
            results.setdefault(interpreter_label(s.result.python, True) or run.label, {})[s.result.key] = s
        if run.skipped or run.cost:
            skipped.setdefault(run.label, {}).update(_skips(run))
            costs.setdefault(run.label, {}).update(_costs(run))
    return [Side(label, r, skipped.get(label, {}), costs.get(label, {})) for label, r in results.items()]


def reference_of(sides: Sequence[Side], name: str | None) -> int:
    """The index of the side ``name`` names: its label, a prefix of it (``cpython-3.11``, ``3.11`` after the dash) or
    one of its files; None: the first.  One that names none, or more than one, is a ConfigError naming the labels."""
    if name is None:
        return 0
    exact = [
        i for i, s in enumerate(sides) if name == s.label or any(name in (str(p), p.name, p.stem) for p in s.paths)
    ]
    if len(exact) == 1:
        return exact[0]
    near = [i for i, s in enumerate(sides) if s.label.startswith(name) or s.label.split("-", 1)[-1].startswith(name)]
    if len(near) == 1 and not exact:
        return near[0]
    labels = ", ".join(s.label for s in sides)
    said = "names several sides" if len(exact) > 1 or len(near) > 1 else "names no side"
    raise ConfigError(f"--reference {name!r} {said}; give one of: {labels} (or one of the files given)")


def figures(side: Side, stored: Stored) -> dict[str, float | None]:
    """The five figures of one stored result, None where the record does not have one."""
    r = stored.result
    good = r.load.good_requests
    return {
        "rps": r.rps,
        "p99_ms": r.load.latency_ms.get("p99"),
        "cpu_us": None if r.server_cpu_s is None or not good else r.server_cpu_s / good * 1e6,
        "instructions": side.instructions.get((r.variant, r.app, r.workload)),
        "pss_mb": r.server_pss_mb,
    }


def _ratio(value: float | None, reference: float | None) -> float | None:
    return value / reference if value is not None and reference else None


def rows(sides: Sequence[Side], reference: int = 0) -> list[Row]:
    """One row per cell key (the reference side's order first, then each other side's new keys), one entry per
    side in the order given, each figure with its ratio to the reference side's."""
    keys = list(dict.fromkeys(k for s in (sides[reference], *sides) for k in s.results))
    out = []
    for key in keys:
        measured = {s.label: (s.results.get(key), s) for s in sides}
        ref_stored, ref_side = measured[sides[reference].label]
        ref = figures(ref_side, ref_stored) if ref_stored is not None else {}
        some = next(st for st, _ in measured.values() if st is not None).result
        cell = f"{some.variant}/{some.app}" if some.app else some.variant
        entries = []
        for side in sides:
            stored = side.results.get(key)
            if stored is None:
                why = side.skipped.get((cell, some.workload), "")
                entries.append(Entry(side.label, None, dict.fromkeys(m.name for m in METRICS), {}, why or "-"))
                continue
            values = figures(side, stored)
            entries.append(Entry(side.label, stored, values, {m: _ratio(v, ref.get(m)) for m, v in values.items()}))
        out.append(Row(key, some.workload, tuple(entries)))
    return out
