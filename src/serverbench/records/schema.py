"""The record schema: immutable measurement records, and their JSON form (versioned).

A :class:`LoadReport` is what a driver measured; a :class:`Result` is one whole trial with its
context (machine, interpreter, variant, workload, load shape, server and generator usage).
Judgement is not here: a verdict is attached only when the record is written.

``Result.to_record`` writes schema 2 (the load shape as structured fields); ``Result.from_record``
reads schema 2 and schema 1 (the shape as a label such as ``c64`` or ``r200-rpc1``, parsed back).
Slow clients (a shape such as ``c16+idle16``) add their own fields to the shape and a ``slow_clients``
object to the record; records without them (every older one) read as shapes without slow clients.
Memory beyond peak RSS (the tree's PSS in ``server``, per-process figures and samples in ``memory``) is
optional too: older records read with None and an empty mapping.  So is the GIL's state during the window
(``gil``, free-threaded builds only) and the interpreter's build and GIL in ``python`` (records before them name
the implementation, version and executable only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable

from ..catalog.shapes import LoadShape

SCHEMA = 2
LATENCY_KEYS = ("p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev")
ERROR_KEYS = ("connect", "read", "write", "timeout", "status")
# Drivers whose "timeout" counts requests that may still be answered (and then counted as requests too): wrk counts a
# connection still waiting past --timeout at each of its 2 s checks, and keeps waiting.  Every other driver (oha,
# locust) gives a request up at its timeout: a timeout is then an attempt that got no answer, like a connect error.
TIMEOUTS_ALSO_ANSWERED = ("wrk",)
SATURATION_BUSY_PCT = 90.0


def interpreter_label(python: Mapping[str, Any], full: bool = False) -> str:
    """A record's interpreter (``Result.python``, measure.host.interpreter) as ``cpython-3.13``: ``cpython-3.13t`` for a
    free-threaded build, ``pypy-3.9``; ``full``: the whole version (``cpython-3.13.0``); ``""`` when the mapping names
    none."""
    impl, version = python.get("implementation"), python.get("version")
    if not impl or not version:
        return ""
    shown = str(version) if full else ".".join(str(version).split(".")[:2])
    return f"{impl}-{shown}{'t' if python.get('free_threaded') else ''}"


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class LoadReport:
    """One measured run of a load generator."""

    driver: str
    requests: int
    duration_s: float
    bytes: int
    latency_ms: Mapping[str, float]
    errors: Mapping[str, int]
    # What the latencies are of: "run", the requests answered during a run of its own (wrk, locust: it starts
    # after the warm-up's load stopped and drops what is in flight at its end); "steady", the requests sent
    # inside a window of one continuous run, each timed to its answer (oha's closed model, docs/trial.md).
    window: str = "run"
    # A locust user's designed wait between an answer and its next request (its locustfile's wait_time), in ms:
    # Little's law is users = rps x (mean latency + this).  None: not known (a locustfile serverbench did not write).
    think_ms: float | None = 0.0
    # How ``errors`` were attributed to the window when the driver counts them over a longer run (oha's closed model
    # keeps no send time for a failed request): "" when they were counted in the window itself; else the rule, with
    # ``run_errors``, the run's own counts they were taken from (drivers.oha.window_errors, docs/records.md).
    error_attribution: str = ""
    run_errors: Mapping[str, int] | None = None
    # A steady window (oha): connections that sent no request in it, each waiting through it on a request sent before
    # it and answered after it (drivers.oha.window_report); None where the driver cannot tell.
    held_through: int | None = None
    # A window inside a longer run (oha's closed model): the run's answered requests, lead-in and window (the work
    # check's count with ops_span "run"); None where the report is the whole run.
    run_requests: int | None = None
    # A locust user's mean time from an answer to its next request (its think time, its own Python, its turn on
    # locust's event loop), in ms, measured by its users (locustfiles/gaps.py); None where the driver cannot tell.
    gap_ms: float | None = None
    # A steady window (oha): the connection-seconds of the window spent waiting on the run's first requests (one per
    # connection, sent as it began) or on requests never answered through it: a server that takes its connections in
    # turn leaves some waiting from the run's start (drivers.oha.window_report); None where the driver cannot tell.
    first_wait_s: float | None = None
    # A steady window (oha): the connection-seconds of the window spent on requests sent before it (carried in; the
    # run's first requests are first_wait_s), and after it on requests sent in it (carried out).  rps x mean latency /
    # connections is the share of the window the connections were busy, less the first waits and the wait carried
    # in, plus the wait carried out: in a steady state the edges cancel (drivers.oha.window_report,
    # catalog.windows.longer_window_s); None where the driver cannot tell.
    carried_in_s: float | None = None
    carried_out_s: float | None = None
    # A steady window (oha): how precisely it measured, from its requests cut by send time into slices (batch means):
    # {"slices": k, "rps": h, "latency_mean": h}, each h the 95% interval's half-width relative to the value, and the
    # precision the perf suite asked for ("asked"; catalog.windows); None where the driver cannot tell.
    precision: Mapping[str, Any] | None = None
    # A run with a lead-in (oha's closed model): its answers a second in each slice of the lead-in, which warmed the
    # server up (the record's warmup_rps when no separate warm-up ran).
    lead_rps: tuple[float, ...] = field(default=(), compare=False)
    # A steady window (oha): the lead-in before it in the same run, and when every connection's first request (sent
    # as the run began) had been answered; None where the driver cannot tell, or a first request was never answered.
    lead_s: float | None = None
    first_answered_s: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "latency_ms", _frozen(self.latency_ms))
        object.__setattr__(self, "errors", _frozen(self.errors))
        if self.run_errors is not None:
            object.__setattr__(self, "run_errors", _frozen(self.run_errors))
        if self.precision is not None:
            object.__setattr__(self, "precision", _frozen(self.precision))

    @property
    def good_requests(self) -> int:
        """Completed responses that were not HTTP errors (wrk counts status >= 400 as errors)."""
        return max(self.requests - self.errors["status"], 0)

    @property
    def rps(self) -> float:
        return self.good_requests / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def error_rate(self) -> float:
        return error_rate([self])


def unanswered(report: LoadReport) -> int:
    """Attempts that got no answer: failed connections, reads and writes, and the timeouts of a driver that gives a
    request up at its timeout (not wrk's: TIMEOUTS_ALSO_ANSWERED)."""
    e = report.errors
    return e["connect"] + e["read"] + e["write"] + (0 if report.driver in TIMEOUTS_ALSO_ANSWERED else e["timeout"])


def error_rate(reports: Sequence[LoadReport]) -> float:
    """Errors over attempts (completed responses plus attempts that got none), pooled.  At most 1 when each report's
    errors and requests count the same requests (an error status is of an answered one)."""
    errors = sum(sum(r.errors.values()) for r in reports)
    attempts = sum(r.requests + unanswered(r) for r in reports)
    return errors / attempts if attempts else (1.0 if errors else 0.0)


@dataclass(frozen=True)
class RunQueue:
    """A generator's scheduler time (processes.runqueue) over ``wall_s`` seconds: on a core, and runnable but waiting for one."""

    cpu_s: float
    wait_s: float
    wall_s: float

    def runnable_pct(self, cores: int) -> float:
        """Percent of the wall time the generator could have used on ``cores`` cores: on a core or waiting."""
        return 100.0 * (self.cpu_s + self.wait_s) / self.wall_s / max(1, cores) if self.wall_s > 0 else 0.0

    def to_record(self) -> dict[str, float]:
        return {"cpu_s": round(self.cpu_s, 4), "wait_s": round(self.wait_s, 4), "wall_s": round(self.wall_s, 4)}


@dataclass(frozen=True)
class HostLoad:
    """A load host's part of a trial's load (docs/hosts.md): where it ran, its share of the connections or users,
    the processes that generated it there and their CPU; its kernel and round trip to the server host."""

    name: str
    address: str
    cores: int
    processes: int
    cpu_s: float
    wall_s: float
    kernel: str | None = None
    rtt_ms: float | None = None
    share: int | None = None  # the connections (oha) or users (locust) it was given

    @property
    def busy_pct(self) -> float:
        """Percent of the cores its generators could use (at most one a process)."""
        if self.wall_s <= 0:
            return 0.0
        return 100.0 * self.cpu_s / self.wall_s / max(1, min(self.processes, self.cores))

    def to_record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "address": self.address,
            "cores": self.cores,
            "processes": self.processes,
            "cpu_s": round(self.cpu_s, 4),
            "wall_s": round(self.wall_s, 4),
            "busy_pct": round(self.busy_pct, 1),
            "kernel": self.kernel,
            "rtt_ms": None if self.rtt_ms is None else round(self.rtt_ms, 4),
            "share": self.share,
        }

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> HostLoad:
        return cls(
            str(rec["name"]),
            str(rec["address"]),
            int(rec["cores"]),
            int(rec["processes"]),
            float(rec["cpu_s"]),
            float(rec["wall_s"]),
            rec.get("kernel"),
            _number(rec.get("rtt_ms")),
            rec.get("share"),
        )


@dataclass(frozen=True)
class Generator:
    name: str
    version: str
    threads: int
    cpu_s: float
    wall_s: float
    cores: int
    # Its per-request timeout (s): a closed model's is sized to the cell (catalog.timeouts); None when the driver has
    # none of its own or the record predates the field.
    timeout_s: float | None = None
    # Its threads' time on a core and waiting for one over the load (the users' window for locust), from the
    # kernel's schedstat; None when not measured (no schedstat, or a record that predates the field).
    run_queue: RunQueue | None = None
    # The load hosts it ran on (docs/hosts.md), each with its share and CPU; () on this machine alone.
    hosts: tuple[HostLoad, ...] = ()

    @property
    def cpu_pct(self) -> float:
        """CPU used as percent of one core (can exceed 100 with several threads)."""
        return 100.0 * self.cpu_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def busy_pct(self) -> float:
        """Percent of the CPU the generator could use (its threads, at most the cores); across load hosts, the
        busiest host's."""
        if self.hosts:
            return max(h.busy_pct for h in self.hosts)
        return self.cpu_pct / max(1, min(self.threads, self.cores))

    @property
    def runnable_pct(self) -> float | None:
        """Percent of the cores it could use that it was on or waiting for (run_queue); None when not measured."""
        return None if self.run_queue is None else self.run_queue.runnable_pct(min(self.threads, self.cores))

    @property
    def saturated(self) -> bool:
        """Busy at the limit, or runnable at it: a generator kept off its core by the machine's other work is as
        short of CPU as one that uses it all."""
        return max(self.busy_pct, self.runnable_pct or 0.0) >= SATURATION_BUSY_PCT

    def to_record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "threads": self.threads,
            "cpu_s": round(self.cpu_s, 4),
            "wall_s": round(self.wall_s, 4),
            "cores": self.cores,
            "cpu_pct": round(self.cpu_pct, 1),
            "busy_pct": round(self.busy_pct, 1),
            "saturated": self.saturated,
            **({} if self.timeout_s is None else {"timeout_s": self.timeout_s}),
            **(
                {}
                if self.run_queue is None
                else {"run_queue": self.run_queue.to_record(), "runnable_pct": round(self.runnable_pct, 1)}
            ),
            **({"hosts": [h.to_record() for h in self.hosts]} if self.hosts else {}),
        }

    @classmethod
    def from_record(cls, rec: Mapping[str, Any], duration_s: float) -> Generator:
        """Schema 1 kept only the percentages: CPU seconds and cores are derived from them."""
        if "cpu_s" in rec:
            return cls(
                rec["name"],
                rec["version"],
                int(rec["threads"]),
                float(rec["cpu_s"]),
                float(rec["wall_s"]),
                int(rec["cores"]),
                _number(rec.get("timeout_s")),
                _run_queue(rec.get("run_queue")),
                tuple(HostLoad.from_record(h) for h in rec.get("hosts") or ()),
            )
        cpu_pct, busy = float(rec["cpu_pct"]), float(rec["busy_pct"])
        cores = max(1, round(cpu_pct / busy)) if busy else int(rec["threads"])
        return cls(rec["name"], rec["version"], int(rec["threads"]), cpu_pct / 100 * duration_s, duration_s, cores)


def _run_queue(rec: Any) -> RunQueue | None:
    if not isinstance(rec, Mapping):
        return None
    return RunQueue(float(rec["cpu_s"]), float(rec["wait_s"]), float(rec["wall_s"]))


@dataclass(frozen=True)
class BackendUsage:
    """A backing service during the measured window: its CPU and the operations it counted."""

    name: str
    kind: str
    cpu_s: float | None
    wall_s: float
    cores: int
    ops: int | None
    # Over what the operations were counted: "window", the measured window's wall time (a run of its own, drained
    # before it: wrk, locust); "answers", from the window's opening until every request sent in it was answered or
    # given up (oha's closed model: its window's requests are those sent in it, answered up to a timeout later).
    ops_span: str = "window"
    window_ops: int | None = None  # with ops_span "answers": the operations counted over the window's wall time alone
    # oha's closed model: the operations counted over its whole run, from before its lead-in until it had every answer
    # (the work check compares them with the run's answered requests, LoadReport.run_requests: no clock to align).
    run_ops: int | None = None

    @property
    def cpu_pct(self) -> float | None:
        return None if self.cpu_s is None or self.wall_s <= 0 else 100.0 * self.cpu_s / self.wall_s

    @property
    def bound(self) -> bool:
        """The backend, not the server under test, was saturated (>= 90% of the cores it can use)."""
        pct = self.cpu_pct
        return pct is not None and pct / max(1, self.cores) >= SATURATION_BUSY_PCT

    def per_request(self, requests: int, run_requests: int | None = None) -> float | None:
        """Operations per answered request: over the whole run where its counts are kept (oha's closed model, whose
        "answers" span also holds the requests its trail sent after the window), else over the window."""
        if self.run_ops is not None and run_requests:
            return self.run_ops / run_requests
        return None if self.ops is None or not requests else self.ops / requests

    def to_record(self, requests: int, run_requests: int | None = None) -> dict[str, Any]:
        pct = self.cpu_pct
        per_request = self.per_request(requests, run_requests)
        return {
            "name": self.name,
            "kind": self.kind,
            "cpu_s": self.cpu_s,
            "wall_s": round(self.wall_s, 4),
            "cpu_pct": None if pct is None else round(pct, 1),
            "cores": self.cores,
            "bound": self.bound,
            "ops": self.ops,
            "ops_per_request": None if per_request is None else round(per_request, 4),
            **({} if self.ops_span == "window" else {"ops_span": self.ops_span, "window_ops": self.window_ops}),
            **({} if self.run_ops is None else {"run_ops": self.run_ops}),
        }

    @classmethod
    def from_record(cls, rec: Mapping[str, Any], duration_s: float) -> BackendUsage:
        return cls(
            rec["name"],
            rec["kind"],
            _number(rec["cpu_s"]),
            float(rec.get("wall_s", duration_s)),
            int(rec["cores"]),
            None if rec["ops"] is None else int(rec["ops"]),
            str(rec.get("ops_span") or "window"),
            None if rec.get("window_ops") is None else int(rec["window_ops"]),
            None if rec.get("run_ops") is None else int(rec["run_ops"]),
        )


@dataclass(frozen=True)
class SlowClientReport:
    """The slow clients held beside a measured window (measure.trials.slowclients): how many opened, which the
    server dropped and after how long each had been open, and what it sent before dropping them."""

    kind: str
    asked: int
    opened: int
    dropped_s: tuple[float, ...]  # each dropped connection's life, open to the server's close, ascending
    window_s: float  # how long the clients were out
    answers: Mapping[str, int] = field(default_factory=dict)  # status lines sent before a drop: {"408": 3}

    def __post_init__(self) -> None:
        object.__setattr__(self, "dropped_s", tuple(sorted(float(x) for x in self.dropped_s)))
        object.__setattr__(self, "answers", _frozen(self.answers))

    @property
    def refused(self) -> int:
        """Connections that could not be opened at all."""
        return self.asked - self.opened

    @property
    def held(self) -> int:
        """Connections still open when the window ended."""
        return self.opened - len(self.dropped_s)

    def to_record(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "asked": self.asked,
            "opened": self.opened,
            "held": self.held,
            "dropped": len(self.dropped_s),
            "refused": self.refused,
            "dropped_s": [round(x, 3) for x in self.dropped_s],
            "window_s": round(self.window_s, 3),
            "answers": dict(self.answers),
        }

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> SlowClientReport:
        return cls(
            str(rec["kind"]),
            int(rec["asked"]),
            int(rec["opened"]),
            tuple(float(x) for x in rec["dropped_s"]),
            float(rec["window_s"]),
            {str(k): int(v) for k, v in _mapping(rec, "answers").items()},
        )


@dataclass(frozen=True)
class Result:
    """One trial: a variant serving a workload at a number of connections."""

    nodeid: str
    test: str
    variant: str
    workload: str
    shape: LoadShape
    warmup_s: float  # seconds of load before the window: warm-up rounds, or a closed run's lead-in
    url: str
    load: LoadReport
    generator: Generator
    server_cpu_s: float | None
    server_rss_mb: float | None
    machine: Mapping[str, Any]
    python: Mapping[str, Any]
    timestamp: str
    app: str = ""
    warmup_rps: tuple[float, ...] = ()
    warmup_settled: bool | None = None
    backends: tuple[BackendUsage, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    kernel: Mapping[str, int] = field(default_factory=dict)  # listen-queue counters' rise (measure.host.kernel)
    slow_clients: SlowClientReport | None = None  # held beside the load when the shape asks (c16+idle16)
    host_cpu_s: float | None = None  # every process's CPU on the machine during the window (measure.host.hostcpu)
    host_steal_s: float | None = None  # CPU the hypervisor gave other guests during the window
    server_pss_mb: float | None = None  # the server tree's peak PSS (measure.host.sampling); None in older records
    server_pss_end_mb: float | None = None  # its PSS at the window's end
    memory: Mapping[str, Any] = field(default_factory=dict)  # per process at the end, and the samples over time
    # The wall time the host's counters covered (measure.host.hostcpu): the window, or for a driver without a lead-in the
    # generator's whole run (locust's users answer for less: it imports and spawns first).  None in older records.
    host_wall_s: float | None = None
    # A free-threaded build's GIL during the window, as the probe in each server process saw it
    # (measure.host.gil): {"enabled": bool, "enabled_by": [modules that turned it on], "processes": n}; None where not
    # probed (a GIL build, older records).
    gil: Mapping[str, Any] | None = None

    @property
    def key(self) -> str:
        """Identity across runs, what a baseline is stored under: the test function and its cell."""
        cell = f"{self.variant}/{self.app}" if self.app else self.variant
        return f"{self.test}::{cell}/{self.workload}/{self.shape.label}"

    @property
    def connections(self) -> int:
        return self.shape.connections

    @property
    def requests(self) -> int:
        return self.load.requests

    @property
    def rps(self) -> float:
        return self.load.rps

    @property
    def error_rate(self) -> float:
        return self.load.error_rate

    def to_record(
        self, verdict: Mapping[str, Any] | None = None, flags: Sequence[Mapping[str, str]] | None = None
    ) -> dict[str, Any]:
        """The JSON record (schema 2, docs/records.md); ``flags``: the consistency checks' findings (judge.checks)."""
        load = self.load
        return {
            "nodeid": self.nodeid,
            "key": self.key,
            "test": self.test,
            "variant": self.variant,
            "app": self.app or None,
            "workload": self.workload,
            "shape": shape_record(self.shape),
            "duration_s": round(load.duration_s, 3),
            "warmup_s": round(self.warmup_s, 3),
            "warmup_rps": [round(x, 1) for x in self.warmup_rps],
            "warmup_settled": self.warmup_settled,
            "backends": [b.to_record(load.requests, load.run_requests) for b in self.backends],
            "url": self.url,
            "requests": load.requests,
            "bytes": load.bytes,
            "rps": round(load.rps, 1),
            "latency_ms": {k: round(load.latency_ms[k], 3) for k in LATENCY_KEYS},
            "errors": {k: load.errors[k] for k in ERROR_KEYS},
            "error_rate": round(load.error_rate, 6),
            "window": load.window,
            **_optional_load_fields(load),
            "server": self._server_record(),
            "generator": self.generator.to_record(),
            "machine": dict(self.machine),
            "python": dict(self.python),
            "timestamp": self.timestamp,
            "verdict": dict(verdict) if verdict is not None else None,
            "kernel": dict(self.kernel),
            **self._host_fields(),
            **({"flags": [dict(f) for f in flags]} if flags is not None else {}),
            **({"slow_clients": self.slow_clients.to_record()} if self.slow_clients is not None else {}),
            **({"extra": dict(self.extra)} if self.extra else {}),
            **({"memory": dict(self.memory)} if self.memory else {}),
            **({"gil": dict(self.gil)} if self.gil is not None else {}),
        }

    def _server_record(self) -> dict[str, Any]:
        """The server's CPU, memory and CPU per answered request (its PSS where measured)."""
        good = self.load.good_requests
        per_request = self.server_cpu_s / good * 1e6 if self.server_cpu_s is not None and good else None
        return {
            "cpu_s": self.server_cpu_s,
            "rss_mb": self.server_rss_mb,
            "cpu_us_per_request": None if per_request is None else round(per_request, 2),
            **(
                {"pss_mb": self.server_pss_mb, "pss_end_mb": self.server_pss_end_mb}
                if self.server_pss_mb is not None
                else {}
            ),
        }

    def _host_fields(self) -> dict[str, Any]:
        """``host``: the machine's CPU, stolen time and the wall time its counters covered, where measured."""
        if self.host_cpu_s is None:
            return {}
        wall = {} if self.host_wall_s is None else {"wall_s": self.host_wall_s}
        return {"host": {"cpu_s": self.host_cpu_s, "steal_s": self.host_steal_s, **wall}}

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> Result:
        """A Result from its JSON record, schema 2 or 1; a malformed one raises KeyError, TypeError or ValueError."""
        duration = float(rec["duration_s"])
        load = LoadReport(
            rec["generator"]["name"],
            int(rec["requests"]),
            duration,
            int(rec.get("bytes") or 0),
            {k: float(rec["latency_ms"][k]) for k in LATENCY_KEYS},
            {k: int(rec["errors"][k]) for k in ERROR_KEYS},
            str(rec.get("window") or "run"),
            None if rec.get("think_ms", 0) is None else float(rec.get("think_ms", 0)),
            str(rec.get("error_attribution") or ""),
            {k: int(rec["run_errors"][k]) for k in ERROR_KEYS} if rec.get("run_errors") else None,
            None if rec.get("held_through") is None else int(rec["held_through"]),
            None if rec.get("run_requests") is None else int(rec["run_requests"]),
            None if rec.get("gap_ms") is None else float(rec["gap_ms"]),
            None if rec.get("first_wait_s") is None else float(rec["first_wait_s"]),
            None if rec.get("carried_in_s") is None else float(rec["carried_in_s"]),
            None if rec.get("carried_out_s") is None else float(rec["carried_out_s"]),
            _precision(rec.get("precision")),
            lead_s=None if rec.get("lead_s") is None else float(rec["lead_s"]),
            first_answered_s=None if rec.get("first_answered_s") is None else float(rec["first_answered_s"]),
        )
        server = _mapping(rec, "server")
        return cls(
            nodeid=rec["nodeid"],
            test=rec["test"],
            variant=rec["variant"],
            workload=rec["workload"],
            shape=shape_from_record(rec),
            warmup_s=float(rec.get("warmup_s") or 0),
            url=rec["url"],
            load=load,
            generator=Generator.from_record(rec["generator"], duration),
            server_cpu_s=_number(server.get("cpu_s")),
            server_rss_mb=_number(server.get("rss_mb")),
            machine=_mapping(rec, "machine"),
            python=_mapping(rec, "python"),
            timestamp=rec["timestamp"],
            app=rec.get("app") or "",
            warmup_rps=tuple(float(x) for x in rec.get("warmup_rps") or ()),
            warmup_settled=rec.get("warmup_settled"),
            backends=tuple(BackendUsage.from_record(b, duration) for b in rec.get("backends") or ()),
            extra=rec.get("extra") or {},
            kernel=rec.get("kernel") or {},
            slow_clients=SlowClientReport.from_record(rec["slow_clients"]) if rec.get("slow_clients") else None,
            host_cpu_s=_number(_mapping(rec, "host").get("cpu_s")),
            host_steal_s=_number(_mapping(rec, "host").get("steal_s")),
            host_wall_s=_number(_mapping(rec, "host").get("wall_s")),
            server_pss_mb=_number(server.get("pss_mb")),
            server_pss_end_mb=_number(server.get("pss_end_mb")),
            memory=_mapping(rec, "memory"),
            gil=_mapping(rec, "gil") if rec.get("gil") is not None else None,
        )


def _rounded(precision: Mapping[str, Any]) -> dict[str, Any]:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in precision.items()}


def _as_is(value: Any) -> Any:
    return value


def _ms(value: float) -> float:
    return round(value, 3)


# A load's optional fields in the record's order: each written only when known (not None), as this makes it.
_OPTIONAL_LOAD: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("held_through", _as_is),
    ("first_wait_s", _ms),
    ("carried_in_s", _ms),
    ("carried_out_s", _ms),
    ("run_requests", _as_is),
    ("gap_ms", _ms),
    ("precision", _rounded),
    ("lead_s", _ms),
    ("first_answered_s", _ms),
)


def _optional_load_fields(load: LoadReport) -> dict[str, Any]:
    """What a load's record holds beyond its counts: the errors' attribution and the run's errors where the driver
    attributes them, a think time other than 0, and each of _OPTIONAL_LOAD that is known."""
    out: dict[str, Any] = {}
    if load.error_attribution:
        out["error_attribution"] = load.error_attribution
        out["run_errors"] = {k: load.run_errors[k] for k in ERROR_KEYS}
    if load.think_ms != 0:
        out["think_ms"] = load.think_ms
    for name, made in _OPTIONAL_LOAD:
        value = getattr(load, name)
        if value is not None:
            out[name] = made(value)
    return out


def _precision(value: Any) -> Mapping[str, Any] | None:
    """A record's precision object (None when absent); anything but an object is a TypeError."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"'precision' must be an object, found {value!r}")
    return {str(k): (None if v is None else int(v) if k == "slices" else float(v)) for k, v in value.items()}


def _mapping(rec: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """An optional object of a record; anything else there is a TypeError (the readers name the file)."""
    value = rec.get(name) or {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{name!r} must be an object, found {value!r}")
    return value


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


SHAPE_FIELDS = (
    "connections",
    "duration",
    "rate",
    "requests_per_connection",
    "ramp",
    "workers",
    "slow_clients",
    "slow_kind",
)


def shape_record(shape: LoadShape) -> dict[str, Any]:
    """The load shape as structured fields (its label too, for people reading the file)."""
    return {"model": shape.model, **{k: getattr(shape, k) for k in SHAPE_FIELDS}, "label": shape.label}


def shape_from_record(rec: Mapping[str, Any]) -> LoadShape:
    """Schema 2: the structured fields.  Schema 1: a label (c64, r200, c64-rpc1, u50-w2) and ``connections``."""
    shape = rec.get("shape")
    if isinstance(shape, Mapping):
        return _checked(LoadShape(**{k: shape[k] for k in SHAPE_FIELDS if k in shape}))
    label = shape or f"c{rec['connections']}"
    fields: dict[str, Any] = {
        "connections": int(rec["connections"]),
        "duration": max(1, round(float(rec["duration_s"]))),
    }
    for part in label.split("-"):
        if part.startswith("rpc"):
            fields["requests_per_connection"] = int(part[3:])
        elif part.startswith("ramp"):
            fields["ramp"] = float(part[4:])
        elif part.startswith("r"):
            fields["rate"] = float(part[1:])
        elif part.startswith("w"):
            fields["workers"] = int(part[1:])
    return _checked(LoadShape(**fields))


def _checked(shape: LoadShape) -> LoadShape:
    """A stored shape that a trial could have run, else a ValueError saying why (the readers name the file)."""
    problems = shape.problems()
    if problems:
        raise ValueError(f"load shape: {'; '.join(problems)}")
    if not shape.label:  # the label formats every field: a number too large (1e400) fails here, not in a report
        raise ValueError("load shape without a label")
    return shape


def replicated(runs: Sequence[Result]) -> Result:
    """The median-rps run of N replicates, carrying every replicate's rps, their median and dispersion
    (MAD / median) in ``extra['replicates']``.  One run is returned unchanged."""
    import dataclasses
    import statistics

    if len(runs) == 1:
        return runs[0]
    ordered = sorted(runs, key=lambda r: r.rps)
    chosen = ordered[(len(ordered) - 1) // 2]
    rps = [r.rps for r in runs]
    median = statistics.median(rps)
    mad = statistics.median(abs(x - median) for x in rps)
    summary = {
        "n": len(runs),
        "rps": [round(x, 1) for x in rps],
        "rps_median": round(median, 1),
        "dispersion": round(mad / median, 4) if median else None,
        "p99_ms": [round(r.load.latency_ms["p99"], 3) for r in runs],
    }
    return dataclasses.replace(chosen, extra={**chosen.extra, "replicates": summary})
