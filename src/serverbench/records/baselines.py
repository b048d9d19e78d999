"""Stored baselines: one JSON file per machine id under a committed folder.

A baseline is a coarse guard, taken at another time: on a shared machine the same sweep moved
a median 6.5% in 20 minutes.  The tight verdict compares arms within one session instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..errors import BaselineError
from . import jsonfile
from .results import Result

SCHEMA = 1
SAVE_COMMAND = "pytest -m perf --perf-save-baseline"
T = TypeVar("T")


def read_entries(
    path: Path, schema: int, entry: Callable[[str, Mapping[str, Any]], T], kind: str, save_command: str
) -> dict[str, T]:
    """The entries of a baseline file (``entry`` builds each from its key and stored fields): a missing file
    is empty, a corrupt one a BaselineError that names the fix.  Timed and cost baselines share this."""
    if not path.exists():
        return {}
    try:
        data = jsonfile.read(path)
        if data.get("schema") != schema:
            raise ValueError(f"schema {data.get('schema')!r}, expected {schema}")
        return {key: entry(key, e) for key, e in data["entries"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, OverflowError, json.JSONDecodeError) as exc:
        raise BaselineError(
            f"{kind} {path} cannot be read: {exc}. Nothing was overwritten. Restore it "
            f"(`git checkout -- {path.name}` in {path.parent}) or delete it and re-save with `{save_command}`."
        ) from None


@dataclass(frozen=True)
class Baseline:
    """The stored figures of one cell (variant/workload/connections)."""

    key: str
    rps: float
    error_rate: float
    p50_ms: float
    p99_ms: float
    recorded_at: str


def _baseline(key: str, e: Mapping[str, Any]) -> Baseline:
    return Baseline(
        key=key,
        rps=float(e["rps"]),
        error_rate=float(e["error_rate"]),
        p50_ms=float(e["p50_ms"]),
        p99_ms=float(e["p99_ms"]),
        recorded_at=str(e["recorded_at"]),
    )


class BaselineStore:
    """The baseline file of one machine id."""

    def __init__(self, folder: Path, machine: Mapping[str, Any]):
        self.folder = Path(folder)
        self.machine = dict(machine)
        self.path = self.folder / f"{machine['id']}.json"

    def load(self) -> dict[str, Baseline]:
        """All stored cells; a missing file is empty, a corrupt one a BaselineError that names the fix."""
        return read_entries(self.path, SCHEMA, _baseline, "baseline file", SAVE_COMMAND)

    def save(self, results: Iterable[Result]) -> list[str]:
        """Merge these results over the stored ones and write atomically, under the file's lock (another
        session saving at the same time keeps its entries too); returns the keys written."""
        fresh = {
            r.key: {
                "rps": round(r.rps, 1),
                "error_rate": round(r.error_rate, 6),
                "p50_ms": r.load.latency_ms["p50"],
                "p99_ms": r.load.latency_ms["p99"],
                "recorded_at": r.timestamp,
            }
            for r in results
        }
        with jsonfile.locked(self.path):
            current = self.load()  # a corrupt file stops here, before anything is written
            entries = {
                key: {
                    "rps": b.rps,
                    "error_rate": b.error_rate,
                    "p50_ms": b.p50_ms,
                    "p99_ms": b.p99_ms,
                    "recorded_at": b.recorded_at,
                }
                for key, b in current.items()
            }
            entries.update(fresh)
            jsonfile.write_atomic(self.path, {"schema": SCHEMA, "machine": self.machine, "entries": entries})
        return list(fresh)
