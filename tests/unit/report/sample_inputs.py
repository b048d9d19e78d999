"""Report inputs for the tests of the report's sections (pure data, no server): results files of sample results, a
gate decision's record, and the section the report builds from them."""

import dataclasses
from pathlib import Path

from serverbench.catalog.shapes import LoadShape
from serverbench.records.results import ResultsFile, Stored
from serverbench.report.inputs import Inputs
from serverbench.report.sections import select
from tests.unit.sample_records import result

KEY = "test_throughput::{}/flask/json/c64"


def shaped(variant: str, rps: float, shape: LoadShape, p99: float = 10.0, impl: str = "cpython", warm=()):
    """A sample result of ``variant`` with the given shape, throughput and p99."""
    base = result(KEY.format(variant), rps, impl=impl, warm=warm, p99=p99)
    return dataclasses.replace(base, shape=shape)


def run(name: str, results, created: str = "2026-11-10T00:00:00+00:00", machine: str = "m1", failures=()):
    """A results file called ``name`` holding ``results``."""
    return ResultsFile(
        Path(f"{name}.json"), 2, created, {"id": machine}, tuple(Stored(r, None) for r in results), tuple(failures)
    )


def ids(inputs: Inputs) -> list[str]:
    return [s.id for s in select(inputs)]


def section(inputs: Inputs, sid: str):
    return next(s for s in select(inputs) if s.id == sid)


def gate_record(verdict: str = "pass") -> dict:
    pairs = {
        "throughput": {"base": [100.0, 200.0, 400.0], "candidate": [110.0, 180.0, 400.0]},
        "rss": {"base": [40.0, 40.0, 40.0], "candidate": [40.0, 40.0, 40.4]},
    }
    decision = {
        "verdict": verdict,
        "delta": 0.01,
        "ci": [-0.05, 0.07],
        "p": 0.4,
        "n": 3,
        "dispersion": 0.1,
        "borderline": False,
        "reason": "-",
    }
    return {
        "cell": "aiohttp/aiohttp json c32",
        "verdict": verdict,
        "mode": "simultaneous",
        "rate": 4000,
        "decisions": {"rss": decision, "throughput": decision},
        "pairs": pairs,
        "windows": [],
    }
