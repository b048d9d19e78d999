"""Bisection files (``serverbench bisect --json``): the range, the cell, every commit tried with its count or
the reason it was skipped, the steps found with the functions each came from, and the timed gate's verdict
on each regression.  ``serverbench bisect --confirm FILE`` reads one back to run the gate on its steps; the
docs render their worked example from one (:mod:`serverbench.report.bisect`).

A file is plain JSON written atomically; :func:`read` checks its kind and schema and names the fix.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from . import jsonfile

if TYPE_CHECKING:  # records write what measurement and judgement produced; they import neither at run time
    from ..bisect.plan import BisectPlan
    from ..judge.bisect import Bisection
    from ..measure.bisect import Attempt

KIND, SCHEMA = "bisect", 1


def to_record(
    plan: BisectPlan,
    attempts: Mapping[int, Attempt],
    result: Bisection,
    seconds: float,
    version: str,
    steps: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The whole bisection as a JSON-ready mapping; ``steps``: per step of ``result``, what was added to it
    (``attribution``: the functions it came from; ``gate``: the timed gate's verdict), in the same order."""
    good = attempts[0].record
    rows = []
    for i, commit in enumerate(plan.commits):
        tried = attempts.get(i)
        rows.append(
            {
                "sha": commit.sha,
                "subject": commit.subject,
                "lock": commit.lock,
                "per_request": None if tried is None or tried.record is None else round(tried.per_request, 1),
                "tried": tried is not None,
                "skipped": None if tried is None or tried.record is not None else tried.reason,
                "seconds": None if tried is None else round(tried.seconds, 2),
                "python": None if tried is None else tried.python,
            }
        )
    extra = list(steps) + [{}] * (len(result.steps) - len(steps))
    return {
        "kind": KIND,
        "schema": SCHEMA,
        "serverbench": version,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "repo": str(plan.repo),
        "project": plan.project,
        "user": plan.user,
        "cell": plan.name,
        "variant": plan.cell.variant.name,
        "app": plan.cell.app.name,
        "workload": plan.workload.name,
        "endpoint": f"{plan.workload.spec.request.method} {plan.workload.path}",
        "threshold": plan.threshold,
        "requests": plan.requests,
        "lock_path": plan.lock_path,
        "environment": dict(good.environment) if good is not None else {},
        "commits": rows,
        "order": list(attempts),  # the order the commits were tried in
        "steps": [{**s.to_record(), **dict(e)} for s, e in zip(result.steps, extra)],
        "change": round(result.change, 6),
        "verdict": result.verdict,
        "exit_status": result.exit_status,
        "counted": len(result.counted),
        "skipped": len(result.skipped),
        "seconds": round(seconds, 1),
    }


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
