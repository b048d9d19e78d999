"""A session in pytest-benchmark's JSON format (``--perf-benchmark-json``), for ``pytest-benchmark compare``
and the services that ingest that format.

What a round is here: one measured window of a cell (``--perf-replicates`` windows are that many
rounds).  A round's time is the window's seconds per good response, the inverse of its throughput,
so ``ops`` (rounds / total time) is the cell's throughput in requests per second (the harmonic mean
over replicates) and lower times are better, as pytest-benchmark expects.  ``iterations`` is the
number of good responses in the judged window: each round's time is their average.  Per-request
latency cannot fill pytest-benchmark's statistics (the load generators report percentiles, not every
request), so the percentiles, error counts, CPU and the verdict go into ``extra_info``.

The statistics are computed by pytest-benchmark's own ``Stats`` class, so min, q1, iqr, outliers
and the rest mean exactly what they mean there.
"""

from __future__ import annotations

import datetime as dt
import platform
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from ..records.schema import Result

INSTALL = "pip install pytest-benchmark"


def _stats_class():
    try:
        from pytest_benchmark.stats import Stats
    except ImportError:
        raise ConfigError(
            f"--perf-benchmark-json writes pytest-benchmark's format with its own statistics: "
            f"install it (`{INSTALL}`, or the test extra: pip install -e '.[test]')"
        ) from None
    return Stats


def check_available() -> None:
    """Raise a ConfigError with the install command when pytest-benchmark is missing."""
    _stats_class()


def window_rps(result: Result) -> list[float]:
    """The throughput of every measured window of the cell (one per replicate)."""
    reps = result.extra.get("replicates")
    values = list(reps["rps"]) if reps else [result.rps]
    return [v for v in values if v > 0]


def stats(result: Result) -> dict[str, Any] | None:
    """pytest-benchmark's stats of the cell's windows (seconds per good response); None: no response at all."""
    rps = window_rps(result)
    if not rps:
        return None
    s = _stats_class()()
    for value in rps:
        s.update(1.0 / value)
    out = s.as_dict()
    out["data"] = list(s.data)
    out["iterations"] = max(result.load.good_requests, 1)
    return out


def benchmark(result: Result, verdict: Mapping[str, Any] | None) -> dict[str, Any] | None:
    measured = stats(result)
    if measured is None:
        return None
    name = result.nodeid.rsplit("::", 1)[-1]
    param = name[name.index("[") + 1 : -1] if "[" in name else None
    return {
        "group": f"{result.workload} {result.shape.label}",
        "name": name,
        "fullname": result.nodeid,
        "params": {
            "variant": result.variant,
            "app": result.app or None,
            "workload": result.workload,
            "shape": result.shape.label,
        },
        "param": param,
        "extra_info": {
            "key": result.key,
            "rps": round(result.rps, 1),
            "latency_ms": dict(result.load.latency_ms),
            "errors": dict(result.load.errors),
            "error_rate": result.error_rate,
            "server_cpu_s": result.server_cpu_s,
            "server_rss_mb": result.server_rss_mb,
            "server_pss_mb": result.server_pss_mb,
            "generator": result.generator.to_record(),
            "python": dict(result.python),
            "verdict": None if verdict is None else verdict.get("status"),
        },
        "options": {
            "duration_s": result.shape.duration,
            "warmup_s": result.warmup_s,
            "driver": result.generator.name,
            "timer": "serverbench window",
        },
        "stats": measured,
    }


def machine_info(machine: Mapping[str, Any], python: Mapping[str, Any]) -> dict[str, Any]:
    """pytest-benchmark's machine_info keys, filled from the session's machine record and this platform."""
    uname = platform.uname()
    return {
        "node": uname.node,
        "processor": uname.processor,
        "machine": str(machine.get("arch", uname.machine)),
        "python_compiler": platform.python_compiler(),
        "python_implementation": str(python.get("implementation", platform.python_implementation())),
        "python_implementation_version": str(python.get("version", platform.python_version())),
        "python_version": str(python.get("version", platform.python_version())),
        "python_build": list(platform.python_build()),
        "release": uname.release,
        "system": uname.system,
        "cpu": {"brand_raw": machine.get("cpu"), "count": machine.get("cores"), "arch": machine.get("arch")},
        "serverbench_machine_id": machine.get("id"),
    }


def document(
    results: Sequence[tuple[Result, Mapping[str, Any] | None]],
    machine: Mapping[str, Any],
    commit: Mapping[str, Any],
    version: str,
) -> dict[str, Any]:
    """The whole file: machine_info, commit_info, one benchmark per cell, datetime and version."""
    python = results[0][0].python if results else {}
    benches = [b for b in (benchmark(r, v) for r, v in results) if b is not None]
    return {
        "machine_info": machine_info(machine, python),
        "commit_info": dict(commit),
        "benchmarks": benches,
        "datetime": dt.datetime.now(dt.timezone.utc).isoformat(),
        "version": format_version(),
        "serverbench": version,
    }


def format_version() -> str:
    """The pytest-benchmark version whose format this is (the one installed)."""
    from pytest_benchmark import __version__

    return __version__


def commit_info() -> dict[str, Any]:
    """The checkout's commit as pytest-benchmark describes it (its own function: id, time, dirty, branch)."""
    try:
        from pytest_benchmark.utils import get_commit_info
    except ImportError:
        return {
            "id": "unknown",
            "time": None,
            "author_time": None,
            "dirty": False,
            "project": "serverbench",
            "branch": "(unknown)",
        }
    return get_commit_info()
