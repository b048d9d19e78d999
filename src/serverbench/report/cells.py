"""How the report names results and groups them: one entry per stored result, labelled with its source."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Callable

from ..records.results import Stored
from ..records.schema import Result, interpreter_label
from .inputs import Inputs


@dataclass(frozen=True)
class Entry:
    source: str  # the results file it came from (short name)
    stored: Stored

    @property
    def result(self) -> Result:
        return self.stored.result


def entries(inputs: Inputs) -> list[Entry]:
    """Every stored result of every results file, oldest file first."""
    return [Entry(name, s) for name, run in inputs.sources.items() for s in run.results]


def cell(result: Result) -> str:
    """variant/app (the variant alone for a --perf-target run)."""
    return f"{result.variant}/{result.app}" if result.app else result.variant


def interpreter(result: Result) -> str:
    """``cpython-3.11.7`` (``t`` after a free-threaded build's version); ``?-?`` for a record that names none."""
    return interpreter_label(result.python, True) or "?-?"


def name(entry: Entry, *parts: str, sources: bool) -> str:
    """A series name: the parts given, plus the source file when the report holds several."""
    text = " ".join(p for p in parts if p)
    return f"{text} ({entry.source})" if sources else text


def group(items: Iterable[Entry], key: Callable[[Entry], Hashable | None]) -> dict[Hashable, list[Entry]]:
    """Entries by ``key`` (None: left out), in first-seen order."""
    out: dict[Hashable, list[Entry]] = {}
    for item in items:
        k = key(item)
        if k is not None:
            out.setdefault(k, []).append(item)
    return out


def latest_by(items: Iterable[Entry], x: Callable[[Result], float]) -> list[Entry]:
    """One entry per x value (the last seen: a re-run of the same shape replaces the earlier one), x order."""
    out: dict[float, Entry] = {}
    for item in items:
        out[x(item.result)] = item
    return [out[k] for k in sorted(out)]


def several_sources(inputs: Inputs) -> bool:
    return len(inputs.results) > 1


def closed_keepalive(result: Result) -> bool:
    """A closed-model wrk/oha run that keeps connections alive (no rate, no locust workers)."""
    s = result.shape
    return s.rate is None and s.workers is None and s.requests_per_connection is None


def cpu_us_per_request(result: Result) -> float | None:
    good = result.load.good_requests
    return None if result.server_cpu_s is None or not good else result.server_cpu_s / good * 1e6


def error_classes(errors: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in errors.items() if v)
