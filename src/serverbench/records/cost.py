"""Cost records (instructions a server spends per request) and the cost-baseline store.

A cost record is one cell's count: the window's instructions in total and per process, and the
functions they were spent in.  Cost baselines live apart from the timed ones, one JSON file per
*counting environment* (interpreter version, instruction-set level valgrind reports, C library,
valgrind), not per CPU model: the same count is expected on any machine of that environment.
Each entry also carries the versions of the server's packages and the set of those whose code ran
in the counted window (``ran``, from the whole attribution: every C function of the window and, when
profiled, every Python function).  A baseline applies whatever moved; a move of a package that ran
is named in the verdict (judge/cost.py).
"""

from __future__ import annotations

import datetime as dt
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import ServerbenchError
from . import jsonfile
from .baselines import read_entries

SCHEMA = 1
SAVE_COMMAND = "pytest -m cost --perf-save-baseline"
STORED_FUNCTIONS = 60  # per level in a baseline: enough for a top-10 diff after shifts in the ranking
RECORDED_FUNCTIONS = 200  # per level in a --perf-json record
APP = "app"  # the role of the app's own functions: kept besides the largest, however small (judge/cost.py names them)


@dataclass(frozen=True)
class FunctionCost:
    """Where part of a window's work went: a C function (instructions) or a Python function (bytecodes)."""

    level: str  # "c" (callgrind, instructions) or "python" (the tracer, bytecodes)
    function: str
    module: str  # Python module, or the shared object's file name
    package: str
    role: str
    per_request: float

    def to_record(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "function": self.function,
            "module": self.module,
            "package": self.package,
            "role": self.role,
            "per_request": round(self.per_request, 1),
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> FunctionCost:
        return cls(
            str(data["level"]),
            str(data["function"]),
            str(data["module"]),
            str(data["package"]),
            str(data["role"]),
            float(data["per_request"]),
        )


CLIENTS = "clients"  # the peer of the listening socket and of every connection it accepted: the load's side
UNSEEN = "unseen"  # the peer of a socket opened and closed inside the window: never open when peers were read
NOT_RECORDED = "not recorded: counted before serverbench kept system calls and memory (re-count to add them)"


@dataclass(frozen=True)
class SystemCounts:
    """Per request in the counted window, from valgrind's system-call trace (measure/counting/systrace.py): system calls
    by name, bytes sent and received on sockets, connections opened (accept and connect); and the same per peer
    of the sockets they were made on (``clients``, ``redis``, ``127.0.0.1:8125``: measure/counting/peers.py), where the
    calls named are those whose first argument is the socket.  ``peers`` None: not followed (a record from before
    peers were kept); each peer's own ``peers`` is None."""

    calls: Mapping[str, float]
    sent: float
    received: float
    connections: float
    peers: Mapping[str, SystemCounts] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", MappingProxyType(dict(self.calls)))
        if self.peers is not None:
            object.__setattr__(self, "peers", MappingProxyType(dict(self.peers)))

    @property
    def total(self) -> float:
        return sum(self.calls.values())

    def to_record(self) -> dict[str, Any]:
        record = {
            "calls": {name: round(n, 3) for name, n in sorted(self.calls.items(), key=lambda kv: (-kv[1], kv[0]))},
            "sent": round(self.sent, 1),
            "received": round(self.received, 1),
            "connections": round(self.connections, 3),
        }
        if self.peers is not None:  # absent, not empty, where they were not followed (an older record)
            record["peers"] = {peer: counts.to_record() for peer, counts in sorted(self.peers.items())}
        return record

    @classmethod
    def from_record(cls, data: Mapping[str, Any] | None) -> SystemCounts | None:
        if data is None:
            return None
        peers = data.get("peers")
        return cls(
            {str(k): float(v) for k, v in data["calls"].items()},
            float(data["sent"]),
            float(data["received"]),
            float(data["connections"]),
            None if peers is None else {str(p): SystemCounts.from_record(c) for p, c in peers.items()},
        )


@dataclass(frozen=True)
class ProcessCount:
    """The window's instructions of one server process."""

    pid: int
    command: str
    instructions: int


@dataclass(frozen=True)
class CostRecord:
    """One cell's counted window, with the environment that decides the count."""

    nodeid: str
    variant: str
    app: str
    workload: str
    path: str
    requests: int
    instructions: int
    processes: tuple[ProcessCount, ...]
    functions: tuple[FunctionCost, ...]
    environment: Mapping[str, Any]
    wall_s: float
    timestamp: str = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    python_functions: tuple[FunctionCost, ...] = ()
    # As read from a record file (whose functions are cut to the largest); None: derived from the functions.
    ran: frozenset[str] | None = field(default=None, compare=False)
    # What the window asked of the kernel, per request; None with the reason in ``system_absent`` (never zero).
    system: SystemCounts | None = None
    system_absent: str = ""
    # Bytes the program's memory grew by per request across the window (measure/counting/clientmemory.py); None: ``kept_absent``.
    kept_per_request: float | None = None
    kept_absent: str = ""
    # This count is the median of several, counted to write a baseline: how far they fell apart (None: one count).
    spread: CountSpread | None = None
    # The requests memory kept was read over (0: the window's), and whether they were served without valgrind
    # (measure/counting/keptmemory.py: the A/B gate's counts are too short to judge it).
    kept_requests: int = 0
    kept_uninstrumented: bool = False
    # Why the server did not see the stage path every count shares (measure/counting/stagemount.py); empty: it did.
    stage_note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "environment", MappingProxyType(dict(self.environment)))

    @property
    def packages_ran(self) -> frozenset[str]:
        """The server's packages whose code ran in the window: of every function counted (and profiled)."""
        if self.ran is not None:
            return self.ran
        return ran_packages(self.packages, self.functions, self.python_functions)

    @property
    def key(self) -> str:
        return cell_key(self.variant, self.app, self.workload, self.requests)

    @property
    def kept_over(self) -> int:
        """How many requests memory kept was read over."""
        return self.kept_requests or self.requests

    @property
    def per_request(self) -> float:
        return self.instructions / self.requests

    @property
    def python_per_request(self) -> float:
        """Bytecodes per request over every Python function profiled (0 without a Python profile)."""
        return sum(f.per_request for f in self.python_functions)

    @property
    def packages(self) -> Mapping[str, str]:
        return self.environment.get("packages", {})

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> CostRecord:
        return cls(
            str(data["nodeid"]),
            str(data["variant"]),
            str(data["app"]),
            str(data["workload"]),
            str(data["path"]),
            int(data["requests"]),
            int(data["instructions"]),
            tuple(ProcessCount(int(p["pid"]), str(p["command"]), int(p["instructions"])) for p in data["processes"]),
            tuple(FunctionCost.from_record(f) for f in data["functions"]),
            dict(data["environment"]),
            float(data["wall_s"]),
            str(data["timestamp"]),
            tuple(FunctionCost.from_record(f) for f in data.get("python_functions", ())),
            frozenset(data["ran"]) if data.get("ran") is not None else None,
            SystemCounts.from_record(data.get("system")),
            str(data.get("system_absent", "" if "system" in data else NOT_RECORDED)),
            None if data.get("kept_per_request") is None else float(data["kept_per_request"]),
            str(data.get("kept_absent", "" if "kept_per_request" in data else NOT_RECORDED)),
            CountSpread.from_record(data.get("spread")),
            0
            if int(data.get("kept_requests", data["requests"])) == int(data["requests"])
            else int(data["kept_requests"]),
            bool(data.get("kept_uninstrumented", False)),
            str(data.get("stage_note", "")),
        )

    def to_record(self, verdict: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {
            "kind": "cost",
            "key": self.key,
            "nodeid": self.nodeid,
            "variant": self.variant,
            "app": self.app,
            "workload": self.workload,
            "path": self.path,
            "requests": self.requests,
            "instructions": self.instructions,
            "instructions_per_request": round(self.per_request, 1),
            "processes": [
                {
                    "pid": p.pid,
                    "command": p.command,
                    "instructions": p.instructions,
                    "per_request": round(p.instructions / self.requests, 1),
                }
                for p in self.processes
            ],
            "functions": [f.to_record() for f in _largest(self.functions, RECORDED_FUNCTIONS)],
            "python_functions": [f.to_record() for f in _largest(self.python_functions, RECORDED_FUNCTIONS)],
            "python_bytecodes_per_request": round(self.python_per_request, 1),
            "ran": sorted(self.packages_ran),
            "system": None if self.system is None else self.system.to_record(),
            "system_absent": self.system_absent,
            "kept_per_request": None if self.kept_per_request is None else round(self.kept_per_request, 1),
            "kept_absent": self.kept_absent,
            "spread": None if self.spread is None else self.spread.to_record(),
            "kept_requests": self.kept_over,
            "kept_uninstrumented": self.kept_uninstrumented,
            "stage_note": self.stage_note,
            "environment": dict(self.environment),
            "wall_s": round(self.wall_s, 2),
            "timestamp": self.timestamp,
            "verdict": dict(verdict) if verdict is not None else None,
        }


@dataclass(frozen=True)
class CountSpread:
    """How far fresh counts of one cell fell apart when its baseline was written: highest less lowest of each figure
    over ``counts`` counts.  Instructions as a share of their median; system calls (a name a count lacks reads 0
    there), connections and memory kept per request; None where a count did not read the figure."""

    counts: int
    instructions: float
    calls: Mapping[str, float] | None = None
    connections: float | None = None
    kept: float | None = None

    def __post_init__(self) -> None:
        if self.calls is not None:
            object.__setattr__(self, "calls", MappingProxyType(dict(self.calls)))

    @classmethod
    def of(cls, records: Sequence[CostRecord]) -> CountSpread:
        """The spread of these counts of one cell (two or more)."""
        if len(records) < 2:
            raise ValueError(f"a spread needs two counts or more, got {len(records)}")
        per_request = [r.per_request for r in records]
        median = statistics.median(per_request)
        systems = [r.system for r in records]
        calls = connections = kept = None
        if all(s is not None for s in systems):
            names = sorted({n for s in systems for n in s.calls})  # type: ignore[union-attr]
            calls = {n: _range([s.calls.get(n, 0.0) for s in systems]) for n in names}  # type: ignore[union-attr]
            connections = _range([s.connections for s in systems])  # type: ignore[union-attr]
        if all(r.kept_per_request is not None for r in records):
            kept = _range([r.kept_per_request for r in records])  # type: ignore[misc]
        return cls(len(records), _range(per_request) / median if median else 0.0, calls, connections, kept)

    def to_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {"counts": self.counts, "instructions": round(self.instructions, 6)}
        if self.calls is not None:
            record["calls"] = {n: round(v, 3) for n, v in sorted(self.calls.items()) if round(v, 3)}
            record["connections"] = round(self.connections or 0.0, 3)
        if self.kept is not None:
            record["kept"] = round(self.kept, 1)
        return record

    @classmethod
    def from_record(cls, data: Mapping[str, Any] | None) -> CountSpread | None:
        """None for an entry stored before spreads were kept (judged with the constant tolerance)."""
        if data is None:
            return None
        calls = data.get("calls")
        return cls(
            int(data["counts"]),
            float(data["instructions"]),
            None if calls is None else {str(k): float(v) for k, v in calls.items()},
            None if data.get("connections") is None else float(data["connections"]),
            None if data.get("kept") is None else float(data["kept"]),
        )


def written_from(records: Sequence[CostRecord]) -> CostRecord:
    """The count a baseline keeps of several fresh counts of one cell: the median one by instructions (the upper of
    the two middle ones for an even number: a count that was made, with its own functions and system calls),
    carrying the spread of all of them; one count is kept as it is, with no spread."""
    if not records:
        raise ValueError("a baseline needs one count or more")
    if len(records) == 1:
        return records[0]
    middle = sorted(records, key=lambda r: r.per_request)[len(records) // 2]
    return replace(middle, spread=CountSpread.of(records))


def _range(values: Sequence[float]) -> float:
    return max(values) - min(values)


def cell_key(variant: str, app: str, workload: str, requests: int) -> str:
    return f"{variant}/{app}/{workload}/n{requests}"


def ran_packages(packages: Mapping[str, str], *functions: Iterable[FunctionCost]) -> frozenset[str]:
    """The packages (names of ``packages``) that own at least one of these functions.  A pure-Python
    package shows only at the Python level: without a Python profile only compiled ones are seen."""
    return frozenset(f.package for rows in functions for f in rows if f.package in packages)


def environment_id(environment: Mapping[str, Any]) -> str:
    """A filename-safe id such as ``cpython-3.11.7-x86-64-v3-glibc-2.36-valgrind-3.19.0``."""
    parts = [environment["interpreter"], environment["isa"], environment["libc"], f"valgrind-{environment['valgrind']}"]
    return re.sub(r"[^a-z0-9.]+", "-", "-".join(map(str, parts)).lower()).strip("-")


@dataclass(frozen=True)
class CostBaseline:
    """The stored count of one cell and the package versions it was counted with."""

    key: str
    per_request: float
    packages: Mapping[str, str]
    functions: tuple[FunctionCost, ...]
    python_functions: tuple[FunctionCost, ...]
    recorded_at: str
    python_per_request: float = 0.0  # bytecodes per request of the whole Python profile
    # The packages whose code ran in the counted window; None when unknown (a pure-Python package may
    # have run unseen: an entry stored without a Python profile).
    ran: frozenset[str] | None = None
    ran_derived: bool = False  # ``ran`` was derived from the stored top functions (an older entry), not stored
    system: SystemCounts | None = None  # None: stored before system calls were kept, or not traced
    kept_per_request: float | None = None
    # How far the counts it was written from fell apart; None: stored before spreads were kept, or from one count
    # (judged with the constant tolerance, judge/cost.py).
    spread: CountSpread | None = None

    @classmethod
    def of(cls, record: CostRecord, spread: CountSpread | None = None) -> CostBaseline:
        """A fresh count as the baseline another count is judged against (an A/A's first count, a planted change's
        unplanted base): its instructions, profiles, system calls and memory kept, and the spread of the counts it
        stands for (the record's own when not given); ``ran`` unknown."""
        return cls(
            record.key,
            record.per_request,
            record.packages,
            record.functions,
            record.python_functions,
            record.timestamp,
            record.python_per_request,
            system=record.system,
            kept_per_request=record.kept_per_request,
            spread=spread if spread is not None else record.spread,
        )


def _baseline(key: str, e: Mapping[str, Any]) -> CostBaseline:
    functions = tuple(FunctionCost.from_record(f) for f in e.get("functions", ()))
    python_functions = tuple(FunctionCost.from_record(f) for f in e.get("python_functions", ()))
    packages = dict(e["packages"])
    if "ran" in e:
        ran: frozenset[str] | None = frozenset(e["ran"])
    elif python_functions:
        # Entries stored before the ran-set was kept: derived from their stored functions (the largest 60
        # per level), so a package whose every function fell below that cut is missed.  Re-saving stores
        # the set taken from the whole window.
        ran = ran_packages(packages, functions, python_functions)
    else:
        ran = None  # no Python profile stored: which pure-Python packages ran is unknown
    return CostBaseline(
        key,
        float(e["per_request"]),
        packages,
        functions,
        python_functions,
        str(e["recorded_at"]),
        float(e.get("python_per_request", 0.0)),
        ran,
        "ran" not in e,
        SystemCounts.from_record(e.get("system")),
        None if e.get("kept_per_request") is None else float(e["kept_per_request"]),
        CountSpread.from_record(e.get("spread")),
    )


class CostBaselineStore:
    """The cost-baseline file of one counting environment."""

    def __init__(self, folder: Path, environment: Mapping[str, Any]):
        self.folder = Path(folder)
        self.environment = dict(environment)
        self.path = self.folder / f"{environment_id(environment)}.json"

    def load(self) -> dict[str, CostBaseline]:
        """All stored cells; a missing file is empty, a corrupt one a BaselineError that names the fix."""
        return read_entries(self.path, SCHEMA, _baseline, "cost baseline file", SAVE_COMMAND)

    def save(self, records: Iterable[CostRecord]) -> list[str]:
        """Merge these records over the stored entries and write atomically, under the file's lock (another
        session saving at the same time keeps its entries too); returns the keys written."""
        fresh = {
            r.key: _entry(
                r.per_request,
                r.packages,
                r.functions,
                r.python_functions,
                r.timestamp,
                r.python_per_request,
                r.packages_ran if r.python_functions else None,
                r.system,
                r.kept_per_request,
                r.spread,
            )
            for r in records
        }
        with jsonfile.locked(self.path):
            current = self.load()  # a corrupt file stops here, before anything is written
            entries = {
                key: _entry(
                    b.per_request,
                    b.packages,
                    b.functions,
                    b.python_functions,
                    b.recorded_at,
                    b.python_per_request,
                    None if b.ran_derived else b.ran,
                    b.system,
                    b.kept_per_request,
                    b.spread,
                )
                for key, b in current.items()
            }
            entries.update(fresh)
            jsonfile.write_atomic(
                self.path,
                {
                    "schema": SCHEMA,
                    "environment": {k: v for k, v in self.environment.items() if k != "packages"},
                    "entries": entries,
                },
            )
        return list(fresh)


def _largest(rows: Iterable[FunctionCost], count: int) -> list[FunctionCost]:
    """The ``count`` largest functions, then every one of the app's own below them.  A view is small beside its
    framework (a Django view's few dozen bytecodes fall below the 60th of the cell), yet the diff names a
    function only if both sides have it: cut from the base, the view's rise was lost below the floor."""
    ranked = sorted(rows, key=lambda f: -f.per_request)
    return ranked[:count] + [f for f in ranked[count:] if f.role == APP]


def _entry(
    per_request: float,
    packages: Mapping[str, str],
    functions: Iterable[FunctionCost],
    python_functions: Iterable[FunctionCost],
    recorded_at: str,
    python_per_request: float,
    ran: frozenset[str] | None,
    system: SystemCounts | None = None,
    kept_per_request: float | None = None,
    spread: CountSpread | None = None,
) -> dict[str, Any]:
    def top(rows: Iterable[FunctionCost]) -> list[dict[str, Any]]:
        return [f.to_record() for f in _largest(rows, STORED_FUNCTIONS)]

    entry = {
        "per_request": round(per_request, 1),
        "packages": dict(packages),
        "functions": top(functions),
        "python_functions": top(python_functions),
        "python_per_request": round(python_per_request, 1),
        "recorded_at": recorded_at,
    }
    if ran is not None:  # kept only when known (taken with a Python profile): absent means derive or unknown
        entry["ran"] = sorted(ran)
    if system is not None:  # absent, not zero, where it was not traced (an older entry reads as None)
        entry["system"] = system.to_record()
    if kept_per_request is not None:
        entry["kept_per_request"] = round(kept_per_request, 1)
    if spread is not None:  # absent in an entry written from one count, or before spreads were kept
        entry["spread"] = spread.to_record()
    return entry


def add_to_results_file(
    path: Path, records: Iterable[Mapping[str, Any]], machine: Mapping[str, Any], version: str
) -> None:
    """Put cost records under ``"cost"`` in a --perf-json file, keeping whatever the timed tests wrote there."""
    path = Path(path)
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = jsonfile.read(path)
        except (OSError, ValueError) as exc:
            raise ServerbenchError(
                f"{path} cannot be read to add the cost records ({exc}); remove it or give --perf-json another path"
            ) from None
        if not isinstance(data, dict) or not isinstance(data.get("cost", []), list):
            raise ServerbenchError(
                f"{path} is not a --perf-json results file (no object with a 'cost' list) to add "
                "the cost records to; remove it or give --perf-json another path"
            )
    data.setdefault("schema", 2)
    data.setdefault("serverbench", version)
    data.setdefault("created", dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    data.setdefault("machine", dict(machine))
    data.setdefault("results", [])
    data.setdefault("failures", [])
    data["cost"] = list(data.get("cost", [])) + [dict(r) for r in records]
    jsonfile.write_atomic(path, data)
