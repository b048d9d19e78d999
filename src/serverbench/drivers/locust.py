"""locust as a driver: a Python load generator running a locustfile (by default the book site's visitor).

locust is run as a program (``python -m locust``), never imported here: importing it
monkey-patches the whole interpreter with gevent.  Its results come from the CSV files it
writes (``--csv PREFIX``), whose columns are those of the installed locust's
``locust/stats.py`` (``StatsCSV.requests_csv_columns`` and ``StatsCSV.failures_columns``;
the percentile columns are ``get_readable_percentiles(PERCENTILES_TO_REPORT)``: "50%", "66%",
"75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%").

One locust process drives with one core at most (gevent: one OS thread runs Python), so a
single process saturates at ~100% of a core; ``workers=N`` runs a master and N worker
processes, the master only aggregating.  A run returns a :class:`LocustRun` whose ``cpu_s`` is
the CPU of every process and ``processes`` the number of processes that send load, so
``cpu_s / wall_s / processes`` is each one's busy share.

Caveat of the format: locust rewrites ``_stats.csv`` once a second from a greenlet
(``StatsCSVFileWriter.stats_writer``, CSV_STATS_INTERVAL_SEC) and ``close_files()`` writes no
final pass, so the file can miss up to the last second of requests (measured: 2,797 of 3,745 at 64
users on one saturated process).  The counts, latencies and window therefore come from the final
statistics locust prints with ``--json`` as it stops (``stats.print_stats_json``: every entry's
requests, failures, summed response time, response-time buckets, bytes, first and last answer), and
the CSV files give the failures by class and the locustfile's exceptions.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..catalog.shapes import Capabilities, LoadShape
from ..errors import ConfigError, GeneratorError, MissingBinaryError
from ..processes.executors import LOOPBACK, Reaped, free_port
from ..processes.places import LOCAL, Background, Place, host_load, together
from ..processes.ports import is_loopback
from ..processes.runqueue import between, combined
from ..records.schema import ERROR_KEYS, HostLoad, LoadReport, RunQueue
from . import histogram
from .base import CellLoad
from .rank import nearest_rank

BOOKSHOP = Path(__file__).resolve().parent.parent / "locustfiles" / "bookshop.py"
WAIT_ENV = "SERVERBENCH_LOCUST_WAIT"  # the bookshop visitor's think time in seconds (locustfiles/bookshop.py)
# Loaded beside every locustfile: each user's time from an answer to its next request (locustfiles/gaps.py, which
# this module must not import: importing locust monkey-patches the interpreter), written to the folder GAPS_ENV names.
GAPS = BOOKSHOP.parent / "gaps.py"
GAPS_ENV = "SERVERBENCH_LOCUST_GAPS"

# Columns read from <prefix>_stats.csv: LoadReport latency key -> locust's column (milliseconds).
# "stdev" is not in locust's CSV (only mean, min, max, median and percentiles are): it is 0.0.
STATS_COLUMNS = {
    "p50": "50%",
    "p75": "75%",
    "p90": "90%",
    "p99": "99%",
    "p999": "99.9%",
    "max": "Max Response Time",
    "mean": "Average Response Time",
}
COUNT_COLUMNS = ("Request Count", "Failure Count")
SIZE_COLUMN = "Average Content Size"
FAILURE_COLUMNS = ("Method", "Name", "Error", "Occurrences")
EXCEPTION_COLUMNS = ("Count", "Message")
AGGREGATED = "Aggregated"

# locust's exit codes: 0, or --exit-code-on-error (default 1) when there were failures or
# exceptions; both still write the CSV files.  2 is an unhandled greenlet exception.
_OK_EXIT_CODES = (0, 1)

# How an "Error" text of the failures CSV is classified (the repr of the exception, e.g.
# "ConnectionRefusedError(111, 'Connection refused')", "LocustBadStatusCode(code=500)",
# "CatchResponseError('...')", "<Timeout at 0x.... seconds=5.0>").  First match wins, so a
# wrong answer is "status" even when its message names a connection, and a reset or a closed
# connection is a read error (as wrk counts it) although ConnectionResetError is an OSError
# like a refused connect.
_CLASSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("status", ("catchresponseerror", "badstatuscode", "http status", "httperror", "status code")),
    ("timeout", ("timeout", "timed out")),
    (
        "read",
        (
            "connectionreseterror",
            "connection reset",
            "connectionabortederror",
            "connection aborted",
            "httpconnectionclosed",
            "connection closed",
            "remotedisconnected",
            "incompleteread",
            "httpparseerror",
            "chunkedencodingerror",
            "protocolerror",
            "emptyresponse",
        ),
    ),
    ("write", ("brokenpipeerror", "broken pipe")),
    (
        "connect",
        (
            "connectionrefusederror",
            "connection refused",
            "connectionerror",
            "newconnectionerror",
            "gaierror",
            "name or service not known",
            "no route to host",
            "network is unreachable",
            "cannot assign requested address",
            "retriesexceeded",
        ),
    ),
)


def classify_error(error: str) -> str:
    """The LoadReport error class (one of ERROR_KEYS) of a locust failure's Error text; unknown ones are read errors."""
    text = error.lower()
    for key, needles in _CLASSES:
        if any(n in text for n in needles):
            return key
    return "read"


def _rows(text: str, name: str, required: Sequence[str]) -> list[dict[str, str]]:
    if not text.strip():
        raise GeneratorError(f"locust's {name} is empty (no header row): locust did not write its statistics")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in required if c not in (reader.fieldnames or ())]
    if missing:
        raise GeneratorError(
            f"locust's {name} is malformed: no column {', '.join(map(repr, missing))}; "
            f"its header is {reader.fieldnames!r}"
        )
    try:
        return list(reader)
    except csv.Error as exc:
        raise GeneratorError(f"locust's {name} is malformed: {exc}") from None


def _number(row: Mapping[str, str], column: str, name: str, count: int) -> float:
    raw = (row.get(column) or "").strip()
    if raw == "N/A" and count == 0:  # locust writes N/A for the percentiles of an empty run
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        raise GeneratorError(
            f"locust's {name} is malformed: {column!r} of the {AGGREGATED} row is {raw!r}, not a number"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise GeneratorError(f"locust's {name} is malformed: {column!r} of the {AGGREGATED} row is {raw!r}")
    return value


def parse_failures(failures_csv_text: str, name: str = "failures CSV") -> dict[str, int]:
    """Occurrences of locust's failures per LoadReport error class."""
    errors = dict.fromkeys(ERROR_KEYS, 0)
    for row in _rows(failures_csv_text, name, FAILURE_COLUMNS):
        try:
            occurrences = int(row["Occurrences"])
        except (TypeError, ValueError):
            raise GeneratorError(
                f"locust's {name} is malformed: Occurrences {row['Occurrences']!r} for {row.get('Error')!r}"
            ) from None
        errors[classify_error(row["Error"] or "")] += occurrences
    return errors


def parse_stats(
    stats_csv_text: str,
    failures_csv_text: str,
    duration_s: float,
    *,
    stats_name: str = "stats CSV",
    failures_name: str = "failures CSV",
) -> LoadReport:
    """The LoadReport in locust's ``<prefix>_stats.csv`` (its Aggregated row) and ``<prefix>_failures.csv``.

    ``requests`` counts the completed responses, as wrk does: locust's Request Count (which
    includes every failure) less the failures that got no answer (connect, read, write,
    timeout); a wrong answer (``status``) is a completed response and an error, so
    ``LoadReport.good_requests`` and ``rps`` count right answers only.  Failures of the
    Aggregated row that the failures CSV does not list are read errors.  ``bytes`` is
    locust's average content size times Request Count (the CSV has no total).  Latencies are
    locust's, in milliseconds; locust rounds response times above 100 ms to 2 significant
    digits in its percentile buckets (stats.py, ``StatsEntry._log_response_time``).
    """
    rows = _rows(stats_csv_text, stats_name, ("Type", "Name", *COUNT_COLUMNS, SIZE_COLUMN, *STATS_COLUMNS.values()))
    total = [r for r in rows if r["Name"] == AGGREGATED and not (r["Type"] or "").strip()]
    if len(total) != 1:
        raise GeneratorError(f"locust's {stats_name} is malformed: {len(total)} {AGGREGATED} rows, expected 1")
    row = total[0]
    try:
        count, failed = (int(row[c]) for c in COUNT_COLUMNS)
    except (TypeError, ValueError):
        raise GeneratorError(
            f"locust's {stats_name} is malformed: counts {[row[c] for c in COUNT_COLUMNS]!r} in the {AGGREGATED} row"
        ) from None
    latency_ms = {key: _number(row, column, stats_name, count) for key, column in STATS_COLUMNS.items()}
    latency_ms["stdev"] = 0.0  # locust's CSV has no standard deviation
    errors = parse_failures(failures_csv_text, failures_name)
    listed = sum(errors.values())
    if listed < failed:
        errors["read"] += failed - listed
    unanswered = errors["connect"] + errors["read"] + errors["write"] + errors["timeout"]
    size = _number(row, SIZE_COLUMN, stats_name, count)
    return LoadReport(
        driver="locust",
        requests=max(count - unanswered, 0),
        duration_s=float(duration_s),
        bytes=int(round(size * count)),
        latency_ms=latency_ms,
        errors=errors,
    )


def parse_final(output: str) -> dict | None:
    """The entries of the JSON array locust prints with ``--json`` as it stops, or None when it printed none
    (it comes first in the output, an indented array of objects with a "num_requests" key)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"^\[", output, re.MULTILINE):
        try:
            entries, _ = decoder.raw_decode(output, match.start())
        except ValueError:
            continue
        if isinstance(entries, list) and all(isinstance(e, dict) and "num_requests" in e for e in entries):
            return {"entries": entries}
    return None


def _bucket_percentile(buckets: Sequence[tuple[float, int]], total: int, q: float) -> float:
    """The value at percentile ``q`` of sorted (value, count) buckets (nearest rank, as locust's own)."""
    rank, seen = nearest_rank(q, total), 0
    for value, count in buckets:
        seen += count
        if seen >= rank:
            return value
    return buckets[-1][0] if buckets else 0.0


def with_final(report: LoadReport, final: Mapping[str, Any]) -> LoadReport:
    """The report with locust's final statistics (``parse_final``): every request's count, mean, response-time
    percentiles (locust's buckets: 2 significant digits above 100 ms), bytes, and the window from the first
    answer to the last.  Not the run's -t: the users spawn over the first second, and locust starts the clock
    before it has imported the locustfile's dependencies, so the users answered for less than -t (4.07 of 5 s
    measured).  The errors stay the CSV's (by class)."""
    entries = final["entries"]
    count = sum(int(e["num_requests"]) for e in entries)
    if not count:
        return report
    buckets: dict[float, int] = {}
    for e in entries:
        for value, n in (e.get("response_times") or {}).items():
            buckets[float(value)] = buckets.get(float(value), 0) + int(n)
    ordered = sorted(buckets.items())
    total = sum(n for _, n in ordered)
    latency = {
        key: _bucket_percentile(ordered, total, q)
        for key, q in (("p50", 50), ("p75", 75), ("p90", 90), ("p99", 99), ("p999", 99.9))
    }
    mean = sum(float(e["total_response_time"]) for e in entries) / count
    latency.update(
        max=max(float(e["max_response_time"]) for e in entries),
        mean=mean,
        stdev=(sum(n * (v - mean) ** 2 for v, n in ordered) / total) ** 0.5 if total else 0.0,
    )
    window = answer_window(final)
    span = window[1] - window[0] if window else 0.0
    unanswered = sum(report.errors[k] for k in ("connect", "read", "write", "timeout"))
    return dataclasses.replace(
        report,
        requests=max(count - unanswered, 0),
        latency_ms=latency,
        bytes=sum(int(e.get("total_content_length") or 0) for e in entries),
        duration_s=span if span > 0 else report.duration_s,
    )


def with_exact_latency(report: LoadReport, files: Iterable[Path]) -> LoadReport:
    """The report with its latencies from the processes' own histograms (locustfiles/gaps.py), added up: exact, where
    locust's master merges its workers' statistics at two significant digits.  As it was when no file has one."""
    found = []
    for path in files:
        try:
            found.append(json.loads(path.read_text())["latency_us"])
        except (OSError, ValueError, KeyError, TypeError):
            return report
    merged = histogram.merged(found)
    if not merged:
        return report
    return dataclasses.replace(report, latency_ms=histogram.latency_ms(merged))


def answered_users(files: Iterable[Path]) -> int | None:
    """How many users had any request answered, over the gap files locust's processes wrote (their ``users``); None
    when none was written or a file predates the count."""
    counts = []
    for path in files:
        try:
            counts.append(int(json.loads(path.read_text())["users"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None
    return sum(counts) if counts else None


def mean_gap_ms(files: Iterable[Path]) -> float | None:
    """A user's mean time from an answer to its next request, in ms, over the gap files locust's processes wrote
    (locustfiles/gaps.py: ``{"pairs": N, "gap_s": S}`` each); None when none was written."""
    pairs = gap_s = 0.0
    for path in files:
        try:
            got = json.loads(path.read_text())
            pairs, gap_s = pairs + int(got["pairs"]), gap_s + float(got["gap_s"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise GeneratorError(
                f"{path.name}: locust's gap file is unreadable ({exc}); it is written by "
                f"{GAPS}, loaded beside the locustfile"
            ) from None
    return gap_s / pairs * 1000.0 if pairs else None


def answer_window(final: Mapping[str, Any]) -> tuple[float, float] | None:
    """The users' window in wall-clock time: from the first entry's start to the last answer (``parse_final``);
    None when nothing was answered."""
    answered = [e for e in final["entries"] if e.get("last_request_timestamp")]
    if not answered:
        return None
    return (min(float(e["start_time"]) for e in answered), max(float(e["last_request_timestamp"]) for e in answered))


ERROR_REPORT = "Error report"
_ERROR_ROW = re.compile(r"^\s*(\d+)\s+(\S.*?)\s*$")


def parse_error_report(output: str) -> dict[str, int]:
    """Occurrences per LoadReport error class in the "Error report" table locust prints as it stops
    (``stats.get_error_report_summary``: a header, a separator, ``"%-18i %-100s"`` rows, a separator).
    It is final, where the CSV files can miss the last second; all zero when the output has none."""
    errors = dict.fromkeys(ERROR_KEYS, 0)
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().endswith(ERROR_REPORT)]
    if not starts:
        return errors
    separators = 0
    for line in lines[starts[-1] + 1 :]:
        if set(line.strip()) == {"-", "|"}:
            separators += 1
            if separators == 2:
                break
        elif separators == 1 and (row := _ERROR_ROW.match(line)):
            errors[classify_error(row.group(2))] += int(row.group(1))
    return errors


def with_printed_errors(report: LoadReport, errors: Mapping[str, int]) -> LoadReport:
    """The report with the errors locust printed, when its CSV files (written once a second) missed them:
    those requests are missing from the CSV's counts too, so ``requests`` stays."""
    return dataclasses.replace(report, errors=dict(errors))


def check_exceptions(exceptions_csv_text: str, name: str = "exceptions CSV") -> None:
    """A GeneratorError if the locustfile's own code raised (a bug there, not the server's failure)."""
    rows = _rows(exceptions_csv_text, name, EXCEPTION_COLUMNS)
    if rows:
        count = sum(int(r["Count"]) if (r["Count"] or "").isdigit() else 1 for r in rows)
        raise GeneratorError(
            f"the locustfile raised {count} exception(s) during the run "
            f"(locust's {name}); the first: {rows[0]['Message']}"
        )


def read_report(prefix: str | os.PathLike, duration_s: float) -> LoadReport:
    """Read ``<prefix>_stats.csv``, ``<prefix>_failures.csv`` (and ``_exceptions.csv``, if written)."""
    texts = {}
    for kind in ("stats", "failures", "exceptions"):
        path = Path(f"{os.fspath(prefix)}_{kind}.csv")
        try:
            texts[kind] = (path.name, path.read_text())
        except FileNotFoundError:
            if kind == "exceptions":
                continue
            raise GeneratorError(f"locust wrote no {path.name} (looked for {path})") from None
    if "exceptions" in texts:
        check_exceptions(texts["exceptions"][1], texts["exceptions"][0])
    return parse_stats(
        texts["stats"][1],
        texts["failures"][1],
        duration_s,
        stats_name=texts["stats"][0],
        failures_name=texts["failures"][0],
    )


@dataclass(frozen=True)
class LocustRun:
    """A locust run's processes: GeneratorRun's fields for the master, plus its workers.

    ``cpu_s`` is the master's CPU plus every worker's; ``wall_s`` the master's wall time;
    ``processes`` how many processes sent load (the workers, or 1 without workers).
    """

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    processes: int
    master_cpu_s: float
    worker_cpu_s: tuple[float, ...] = ()
    worker_returncodes: tuple[int, ...] = ()
    # The load-sending processes' time on a core and waiting for one over the users' window (processes.runqueue):
    # the workers', or the single process's.  None when not measured.
    run_queue: RunQueue | None = None
    hosts: tuple[HostLoad, ...] = ()  # across load hosts: each host's workers (docs/hosts.md)

    @property
    def busy_pct(self) -> float:
        """Percent of one core used per load-sending process (a process saturates near 100)."""
        return 100.0 * self.cpu_s / self.wall_s / max(1, self.processes) if self.wall_s > 0 else 0.0


@dataclass(frozen=True)
class LocustRunner:
    """Runs ``python -m locust`` headless with ``users`` users spawned at ``spawn_rate`` per second.

    ``workers=0`` runs one process; ``workers=N`` a master and N workers on a free port.
    ``connect_timeout_s``: how long the master waits for its workers (--expect-workers-max-wait).
    ``worker_linger_s``: how long a worker may outlive its master before it is terminated.
    """

    users: int = 64
    spawn_rate: int = 64
    workers: int = 0
    locustfile: Path = BOOKSHOP
    stop_timeout_s: int = 2
    connect_timeout_s: int = 30
    worker_linger_s: float = 10.0
    name: str = "locust"
    # Load hosts (hosts.places.HostPlace; docs/hosts.md): the master on the first, a worker a core on every one
    # (``workers`` is then unused).  Empty: this machine.
    places: tuple = ()

    def __post_init__(self) -> None:
        if self.users < 1 or self.spawn_rate < 1 or self.workers < 0:
            raise ConfigError(
                f"locust needs users >= 1, spawn_rate >= 1 and workers >= 0, got "
                f"users={self.users}, spawn_rate={self.spawn_rate}, workers={self.workers}"
            )

    @cached_property
    def version(self) -> str:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("locust")
        except PackageNotFoundError:
            return "unknown"

    @property
    def processes(self) -> int:
        """Processes that send load: the workers, or the one process."""
        return sum(count for _, count in self.placement()) or 1

    @property
    def threads(self) -> int:
        """For results.Generator: its busy_pct divides by this (one core per locust process)."""
        return self.processes

    def _common(self) -> list[str]:
        return [sys.executable, "-m", "locust", "-f", f"{self.locustfile},{GAPS}"]

    def argv_master(
        self,
        host_url: str,
        duration: int,
        csv_prefix: str | os.PathLike,
        master_port: int | None = None,
        bind: str = LOOPBACK,
    ) -> list[str]:
        """The single process (``workers=0``) or the master, which then needs ``master_port``."""
        argv = [
            *self._common(),
            "--headless",
            "-u",
            str(self.users),
            "-r",
            str(self.spawn_rate),
            "-t",
            f"{duration}s",
            "-H",
            host_url,
            "--csv",
            os.fspath(csv_prefix),
            "--only-summary",
            "--json",
            "--loglevel",
            "WARNING",
            "--stop-timeout",
            str(self.stop_timeout_s),
        ]
        if self.placement():
            if master_port is None:
                raise ValueError("a distributed run (workers > 0) needs the master's port")
            argv += [
                "--master",
                "--master-bind-host",
                bind,
                "--master-bind-port",
                str(master_port),
                "--expect-workers",
                str(self.processes),
                "--expect-workers-max-wait",
                str(self.connect_timeout_s),
            ]
        return argv

    def argv_worker(self, master_port: int, master_host: str = LOOPBACK) -> list[str]:
        return [
            *self._common(),
            "--worker",
            "--master-host",
            master_host,
            "--master-port",
            str(master_port),
            "--loglevel",
            "WARNING",
        ]

    def placement(self) -> list[tuple[Place, int]]:
        """Where the workers run, and how many on each: across load hosts one a core on every host (the master on
        the first); on this machine ``workers`` here."""
        if self.places:
            placed = [(place, max(1, place.cores)) for place in self.places]
            # One process in all (one load host of one core): that process alone, with no master to start and wait
            # for, as on this machine without workers.
            return placed if sum(count for _, count in placed) > 1 else []
        return [(LOCAL, self.workers)] if self.workers else []

    def run(self, url: str, duration: int, cpus: Sequence[int] | None = None) -> tuple[LoadReport, LocustRun]:
        """Drive the server at ``url`` (its scheme://host:port; the locustfile names the paths)
        for ``duration`` seconds, optionally pinned to ``cpus``.  Returns (LoadReport, LocustRun)."""
        host_url = self._host_url(url)
        placement = self.placement()
        master = self.places[0] if self.places else LOCAL
        port = free_port() if placement else None
        timeout = duration + self.stop_timeout_s + self.connect_timeout_s + 60
        used = list({id(p): p for p in [master, *(place for place, _ in placement)]}.values())
        with tempfile.TemporaryDirectory(prefix="serverbench-locust-") as tmp, contextlib.ExitStack() as stack:
            folders = {id(place): stack.enter_context(place.folder("serverbench-locust-")) for place in used}
            workers: list[Background] = []
            try:
                self._start_workers(workers, placement, folders, port, master.address, cpus)
                # The run queue of the main thread: every user runs on it (gevent)
                run = master.run(
                    self.argv_master(host_url, duration, f"{folders[id(master)]}/run", port, master.address),
                    timeout=timeout,
                    cpus=cpus,
                    env={**os.environ, GAPS_ENV: folders[id(master)]},
                    main_thread=True,
                )
            finally:
                reaped = [w.reap(self.worker_linger_s) for w in workers]
            _read_back(used, master, folders, Path(tmp))
            prefix = Path(tmp) / "run"
            if run.returncode not in _OK_EXIT_CODES:
                raise GeneratorError(
                    f"locust exited with code {run.returncode}: "
                    f"{(run.stderr or run.stdout)[-800:]}{_worker_tails(reaped)}"
                )
            try:
                report = read_report(prefix, duration)
            except GeneratorError as exc:
                raise GeneratorError(
                    f"{exc}\nlocust's output: {(run.stderr or run.stdout)[-800:]}{_worker_tails(reaped)}"
                ) from None
            printed = parse_error_report(f"{run.stdout}\n{run.stderr}")
            if run.returncode != 0 and not sum(report.errors.values()) and sum(printed.values()):
                report = with_printed_errors(report, printed)  # failures of the last second, after the CSV's last write
            final = parse_final(run.stdout)
            if final is not None:
                report = with_final(report, final)
            gaps = list(Path(tmp).glob("*gaps-*.json"))
            if self.places:  # across hosts: every process's own histogram, added up (exact), not the master's
                report = with_exact_latency(report, gaps)
            answered = answered_users(gaps)
            report = dataclasses.replace(
                report,
                gap_ms=mean_gap_ms(gaps),
                held_through=None if answered is None else max(0, self.users - answered),
            )
            if run.returncode != 0 and not sum(report.errors.values()):
                # e.g. "Gave up waiting for workers to connect": the CSV holds an empty run
                raise GeneratorError(
                    f"locust exited with code {run.returncode} but recorded no failure: "
                    f"{(run.stderr or run.stdout)[-800:]}{_worker_tails(reaped)}"
                )
        worker_cpu = tuple(r.cpu_s for r in reaped)
        hosts = self._host_loads(placement, master, run, worker_cpu)
        window = answer_window(final) if final is not None else None
        senders = [r.samples for r in reaped] if reaped else [run.samples]
        queue = combined([between(samples, *window) for samples in senders]) if window else None
        return report, LocustRun(
            argv=run.argv,
            returncode=run.returncode,
            stdout=run.stdout,
            stderr=run.stderr,
            wall_s=run.wall_s,
            cpu_s=run.cpu_s + sum(worker_cpu),
            processes=self.processes,
            master_cpu_s=run.cpu_s,
            worker_cpu_s=worker_cpu,
            worker_returncodes=tuple(r.returncode for r in reaped),
            run_queue=queue,
            hosts=hosts,
        )

    def _host_url(self, url: str) -> str:
        """The scheme://host:port locust is given: loopback on this machine, the server host's address across hosts."""
        parts = urlsplit(url)
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or not (self.places or is_loopback(parts.hostname))
        ):
            raise ConfigError(f"locust drives loopback http URLs only (http://127.0.0.1:PORT), got {url!r}")
        return f"{parts.scheme}://{parts.netloc}"

    def _start_workers(self, workers: list, placement, folders, port, master_address: str, cpus) -> None:
        """Start each place's workers (appended to ``workers`` as they start, so a failure still reaps those begun),
        each writing its gap file to its place's folder: first, as the master starts the clock once they connect."""
        for place, count in placement:
            folder = folders[id(place)]
            for _ in range(count):
                workers.append(
                    place.start(
                        self.argv_worker(port, master_address),
                        f"{folder}/worker{len(workers)}.log",
                        cpus,
                        {**os.environ, GAPS_ENV: folder},
                        main_thread=True,
                    )
                )

    def _host_loads(self, placement, master, run, worker_cpu: Sequence[float]) -> tuple[HostLoad, ...]:
        """Across load hosts, each host's part: its processes, their CPU (the master's counted on the first host),
        its share of the users; () on this machine."""
        hosts, first = [], 0
        sending = (placement or [(master, 1)]) if self.places else []  # one process alone: the master sends
        for i, (place, count) in enumerate(sending):
            cpu = sum(worker_cpu[first : first + count]) + (run.cpu_s if i == 0 else 0.0)
            hosts.append(host_load(place, count, cpu, run.wall_s, round(self.users * count / self.processes)))
            first += count
        return tuple(hosts)


def _read_back(used: Sequence[Place], master: Place, folders: Mapping[int, str], tmp: Path) -> None:
    """The master's CSV files and every process's gap file, from each place's folder into ``tmp``."""

    def collect(place: Place) -> dict[str, bytes]:
        return place.collect(folders[id(place)], ["gaps-*.json", "run_*.csv"] if place is master else ["gaps-*.json"])

    for place, files in zip(used, together([partial(collect, place) for place in used])):  # all at once
        for name, data in files.items():
            (tmp / (name if name.startswith("run_") else f"{place.name}-{name}")).write_bytes(data)


def _worker_tails(reaped: Sequence[Reaped]) -> str:
    return "".join(
        f"\nworker {i} (exit {r.returncode}): {r.output[-300:]}"
        for i, r in enumerate(reaped)
        if r.returncode != 0 or "Error" in r.output
    )


LOCUST_CAPABILITIES = Capabilities("locust", ("closed",), requests_per_connection=False, ramp=True)


# Seconds of a run locust spends before its users answer (it starts -t's clock, then imports gevent, locust and the
# locustfile, and spawns the users): measured 1.2-1.9 s of a 2 s -t on this 2-core machine (2026-11-27), whose users
# answered for 0.1-0.8 s.  The driver asks for the shape's duration plus this, so the users answer for about the
# shape's duration (the record's window is their first answer to their last, locust's final statistics).
START_S = 2


@dataclass(frozen=True)
class LocustDriver:
    """locust behind the driver interface: a shape's ``connections`` are users, spawned over its
    ``ramp`` seconds (at once when 0), in one process or ``workers`` worker processes."""

    workers: int = 0
    locustfile: Path = BOOKSHOP
    name: str = "locust"
    capabilities: Capabilities = LOCUST_CAPABILITIES
    places: tuple = ()  # load hosts (LocustRunner.places): a worker a core on each, the master on the first

    @property
    def version(self) -> str:
        return LocustRunner(locustfile=self.locustfile).version

    @property
    def threads(self) -> int:
        """Processes generating load: a Python generator saturates at one core per process."""
        if self.places:
            return sum(max(1, place.cores) for place in self.places)
        return max(1, self.workers)

    def check(self) -> None:
        import importlib.util

        if importlib.util.find_spec("locust") is None:
            raise MissingBinaryError(
                "locust", fix=f"not installed for {sys.executable}: `{sys.executable} -m pip install locust`"
            )

    def sized(self, load: CellLoad) -> LocustDriver:
        """Itself: a scenario's users run with no per-request timeout of ours, no lead-in and no trail."""
        return self

    def run(
        self, url: str, shape: LoadShape, *, cpus: Sequence[int] | None = None, mix: Sequence[tuple[str, int]] = ()
    ) -> tuple[LoadReport, LocustRun]:
        spawn = shape.connections if not shape.ramp else max(1, math.ceil(shape.connections / shape.ramp))
        runner = LocustRunner(
            users=shape.connections,
            spawn_rate=spawn,
            workers=self.workers,
            locustfile=self.locustfile,
            places=self.places,
        )
        report, run = runner.run(url, shape.duration + START_S, cpus)
        return dataclasses.replace(report, think_ms=think_ms(self.locustfile)), run


def think_ms(locustfile: Path, environ: Mapping[str, str] = os.environ) -> float | None:
    """A user's designed wait between an answer and its next request, in ms: the bookshop visitor's constant
    think time (WAIT_ENV, read as the locustfile reads it), None for another locustfile (its wait is its own)."""
    if Path(locustfile).resolve() != BOOKSHOP:
        return None
    try:
        return max(0.0, float(environ.get(WAIT_ENV, "").strip() or 0)) * 1000.0
    except ValueError:
        return None  # the locustfile refuses it and the run fails with its message
