"""Bisection files (``serverbench bisect --json``): the range, the cell, every commit tried with its count or
the reason it was skipped, the steps found with the functions each came from, and the timed gate's verdict
on each regression.  ``serverbench bisect --confirm FILE`` reads one back to run the gate on its steps; the
docs render their worked example from one (:mod:`serverbench.report.bisect`).

A file is plain JSON written atomically; :func:`read` checks its kind and schema and names the fix.  Its fields are
made from the bisection's run by :func:`serverbench.bisect.search.to_record` (records import neither measurement
nor judgement).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from . import jsonfile

KIND, SCHEMA = "bisect", 1


def write(path: Path, record: Mapping[str, Any]) -> None:
    jsonfile.write_atomic(Path(path), dict(record))


def read(path: Path) -> dict[str, Any]:
    """A bisection file; anything else is a ConfigError naming the file and the fix."""
    try:
        data = jsonfile.read(Path(path))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; write one with `serverbench bisect ... --json {path}`") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path}: not a readable bisection file ({exc}); pass a `serverbench bisect --json` file"
        ) from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise ConfigError(
            f'{path}: not a bisection file (no "kind": "bisect"); pass a `serverbench bisect --json` file'
        )
    if data.get("schema") != SCHEMA:
        raise ConfigError(
            f"{path}: bisection file schema {data.get('schema')!r}, this serverbench reads {SCHEMA}; "
            "bisect again with this version"
        )
    missing = [k for k in ("commits", "steps", "variant", "app", "workload", "threshold", "repo") if k not in data]
    if missing:
        raise ConfigError(f"{path}: a bisection file without {', '.join(missing)}; bisect again to write a whole one")
    return data
