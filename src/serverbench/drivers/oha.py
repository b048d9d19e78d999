"""oha as the open-model driver: a constant request rate held whatever the answers do, latency
measured from each request's intended send time (``--latency-correction``: no coordinated omission).

Why oha: it is on crates.io (reachable here; ``cargo install oha``), it paces by a target rate
(``-q``), corrects latency to the intended send time, runs for a duration (``-z``) and prints a
machine-readable JSON summary with percentiles, status codes and classified errors.  wrk2 is not
packaged in any registry reachable here; k6 would need its own binary download; locust paces by
user think time, not by a request rate.
"""

from __future__ import annotations

import heapq
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from ..catalog.contract import Request
from ..catalog.shapes import Capabilities, LoadShape
from ..catalog.timeouts import DEFAULT_TIMEOUT_S, cell_timeout_s
from ..catalog.windows import cell_trail_s, warm_lead_s
from ..errors import GeneratorError, MissingBinaryError
from ..processes.executors import run_generator
from ..processes.places import spread
from ..records.schema import ERROR_KEYS, LoadReport
from .base import CellLoad
from .rank import nearest_rank

OHA_CAPABILITIES = Capabilities("oha", ("open", "closed"), requests_per_connection=False, ramp=False)
# A closed-model run's lead-in: load runs this long before the measured window opens, in the same run, so the window
# starts in steady state (connections open, caches and pools warm, a pool's queue full, not drained).  It is the
# trial's warm-up too (measure.trials.trial: no separate warm-up run, its rate per slice recorded as the warm-up's); the perf
# suite sets it to --perf-warmup, longer on a cell with a designed queue (catalog.windows).  Requests sent in it are
# not counted.
LEAD_S = 1.0
# A closed-model run's trail: load runs this long after the window, in the same run, so the window's last requests are
# answered under the load they were sent into; stopped at once, a server serving its connections unevenly answers
# them sooner than it would have (catalog.windows, measured on gunicorn-gevent-w2 /json).  Its requests are not counted.
TRAIL_S = 0.25
# The oha ./run builds (it reads this line) and this driver is tested with; MIN_VERSION is the oldest whose flags
# it passes: --output-format (1.9.0), --db-url and -w (1.4.6).
VERSION = "1.16.0"
MIN_VERSION = "1.9.0"
INSTALL = (
    f"cargo install oha --version {VERSION} --locked --no-default-features --features native-tls"
    "  (./run does it; needs Rust, pkg-config and libssl-dev)"
)


def _classify(message: str) -> str:
    """The error class of one of oha's messages, as wrk counts them: a connection the server reset or closed after
    accepting it (oha: "connection error", "Connection reset by peer (os error 104)", "connection closed before
    message completed", measured against a server that resets or closes) is a read error, not a connect error;
    "connect" as a word ("tcp connect error"), a refusal or a DNS failure is."""
    text = message.lower()
    if "timeout" in text or "timed out" in text:
        return "timeout"
    if "refused" in text or re.search(r"\bconnect\b", text) or "dns" in text:
        return "connect"
    if "broken pipe" in text or "write" in text:
        return "write"
    return "read"


def _stdev_ms(histogram: Mapping[str, int]) -> float:
    total = sum(histogram.values())
    if not total:
        return 0.0
    mean = sum(float(k) * n for k, n in histogram.items()) / total
    var = sum(n * (float(k) - mean) ** 2 for k, n in histogram.items()) / total
    return var**0.5 * 1000.0


def parse_report(stdout: str, duration_s: float) -> LoadReport:
    """The LoadReport of ``oha -j`` output; requests aborted by the run's deadline are not errors."""
    try:
        start = stdout.index("{")
        data = json.loads(stdout[start:])
        summary, pct = data["summary"], data["latencyPercentiles"]
        statuses = {int(k): int(v) for k, v in data["statusCodeDistribution"].items()}
        errors = {k: 0 for k in ERROR_KEYS}
        for message, count in data["errorDistribution"].items():
            if "deadline" in message.lower():
                continue  # in flight when -z ran out: neither an answer nor an error
            errors[_classify(message)] += int(count)
        errors["status"] = sum(n for code, n in statuses.items() if code >= 400)

        def ms(v: Any) -> float:
            return 0.0 if v is None else float(v) * 1000.0

        latency = {
            "p50": ms(pct["p50"]),
            "p75": ms(pct["p75"]),
            "p90": ms(pct["p90"]),
            "p99": ms(pct["p99"]),
            "p999": ms(pct["p99.9"]),
            "max": ms(summary["slowest"]),
            "mean": ms(summary["average"]),
            "stdev": _stdev_ms(data.get("responseTimeHistogram") or {}),
        }
        return LoadReport(
            driver="oha",
            requests=sum(statuses.values()),
            duration_s=float(summary["total"]) or duration_s,
            bytes=int(summary.get("totalData") or 0),
            latency_ms=latency,
            errors=errors,
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise GeneratorError(f"oha's JSON report is malformed ({exc!r}): {stdout[:300]!r}") from None


def _percentile(ordered: Sequence[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0-100) of ascending values: the value at rank ceil(q% of n), as locust's."""
    return ordered[min(len(ordered), nearest_rank(q, len(ordered))) - 1]


def _in_flight(rows: Sequence[tuple[float, float, int, int]], t: float) -> int:
    """Answered requests in flight at ``t`` (sent at or before it, answered after it)."""
    return sum(1 for start, end, _, _ in rows if start <= t < end)


def most_in_flight(rows: Sequence[tuple[float, float, int, int]], start_s: float, end_s: float) -> int:
    """The most answered requests in flight at once in [start_s, end_s): the connections never found without one
    there (connections less this) held a request no answer covers through the whole of it."""
    n = most = _in_flight(rows, start_s)
    # An answer and the next send at one instant: the answer first (one connection, never two requests).
    for _, step in sorted(
        [(s, 1) for s, _, _, _ in rows if start_s < s < end_s] + [(e, -1) for _, e, _, _ in rows if start_s < e < end_s]
    ):
        n += step
        most = max(most, n)
    return most


# How far the connections' uncovered time may miss the run's timeout count (a share of it, at least 1) and still be read
# as the failures' send times (window_errors).
ATTRIBUTION_SLACK = 0.02


def failed_sent_by(rows: Sequence[tuple[float, float, int, int]], t: float, connections: int, timeout_s: float) -> int:
    """How many requests that timed out were sent by ``t``, from the connections' time no answered request covers.

    In oha's closed model each of the connections always has one request in flight (a timed-out one is given up
    and the next sent at once, on a new connection), so the connections not holding an answered request at a time
    u are holding one that fails; one that times out is held exactly ``timeout_s`` from its send.  Those held at u
    were sent in (u - timeout, u], so the sends up to t are u(t) + u(t - timeout) + u(t - 2 timeout) + ...
    """
    total, u = 0, t
    while u >= 0:
        total += max(connections - _in_flight(rows, u), 0)
        if timeout_s <= 0:
            break  # no timeout: a failure holds its connection for no known time
        u -= timeout_s
    return total


def window_errors(
    rows: Sequence[tuple[float, float, int, int]],
    start_s: float,
    duration_s: float,
    run_errors: Mapping[str, int],
    connections: int,
    timeout_s: float,
    trail_s: float = 0.0,
) -> tuple[dict[str, int], str]:
    """The errors of the requests sent in [start_s, start_s + duration_s), and the rule that attributed them ("" when
    the run had none): oha counts a failed request with no time (its JSON's errorDistribution; its --db-url table
    holds answers only), over the whole run, lead-in and the ``trail_s`` after the window included.

    Timeouts: the run's count times the share of them sent in the window, read from the connections' time no
    answer covers (``failed_sent_by``: exact for requests that each fail at the timeout).  Connect, read and write
    errors (failures that hold a connection for no time the rows show): the run's count times the window's share
    of the run's time.  A status error is an answered request: counted from the window's own rows.  So the window's
    errors are at most the run's, and its error rate (errors / attempts) at most 1.
    """
    errors = {k: 0 for k in ERROR_KEYS}
    failed = {k: n for k, n in run_errors.items() if k != "status" and n}
    if not failed:
        return errors, ""
    run_s = start_s + duration_s + trail_s
    time_share = duration_s / run_s if run_s > 0 else 1.0
    by_end = failed_sent_by(rows, run_s - 1e-6, connections, timeout_s)  # the last send is before the deadline
    by_close = failed_sent_by(rows, start_s + duration_s - 1e-6, connections, timeout_s)  # by_end with no trail
    sent = by_close - failed_sent_by(rows, start_s - 1e-6, connections, timeout_s)
    run_timeouts = run_errors.get("timeout", 0)
    # The reading holds where every connection not holding an answer holds a request that fails: then it finds the
    # run's own count, and no fewer failures sent by the window's end than by its start.  A connection still trying
    # to connect (its SYNs dropped by a full backlog) holds no answer and may yet be answered: the reading is off, and
    # the window's share of the run's time is used instead.
    holds = by_end and 0 <= sent <= by_end and abs(by_end - run_timeouts) <= max(1, ATTRIBUTION_SLACK * run_timeouts)
    timeout_share = sent / by_end if holds else time_share
    for key, n in failed.items():
        errors[key] = round(n * (timeout_share if key == "timeout" else time_share))
    rules = []
    if run_timeouts:
        if holds:
            why = (
                f"the share sent in the window: {sent} of {by_end} requests given up, from the connections' time no "
                "answer covers"
            )
        elif by_end:
            why = (
                f"the window's share of the run's time: the connections' time no answer covers finds {by_end} "
                f"failures sent by the deadline and {sent} in the window, not the run's {run_timeouts} (connections "
                "waiting to connect hold no answer either)"
            )
        else:
            why = "no connection time uncovered by answers: the window's share of the run's time"
        rules.append(f"timeouts x {timeout_share:.3f} ({why})")
    if any(k != "timeout" for k in failed):
        rules.append(
            f"connect, read, write x {time_share:.3f} (the window's share of the run's time, "
            f"{duration_s:g} of {run_s:g} s)"
        )
    return errors, "; ".join(rules)


def latency_of(ms: Sequence[float]) -> dict[str, float]:
    """A LoadReport's latency fields of ascending latencies in ms (nearest-rank percentiles); zeros for none."""
    if not ms:
        return {k: 0.0 for k in ("p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev")}
    mean = sum(ms) / len(ms)
    return {
        "p50": _percentile(ms, 50),
        "p75": _percentile(ms, 75),
        "p90": _percentile(ms, 90),
        "p99": _percentile(ms, 99),
        "p999": _percentile(ms, 99.9),
        "max": ms[-1],
        "mean": mean,
        "stdev": (sum((x - mean) ** 2 for x in ms) / len(ms)) ** 0.5,
    }


def window_report(
    rows: Sequence[tuple[float, float, int, int]],
    start_s: float,
    duration_s: float,
    errors: Mapping[str, int],
    connections: int,
    timeout_s: float,
    trail_s: float = 0.0,
) -> LoadReport:
    """The steady-state window of a closed-model run from oha's per-request rows (start s, end s, status,
    bytes; times from the run's start): the requests *sent* in [start_s, start_s + duration_s), each with
    its whole latency even when it ended after the window (answered in the ``trail_s`` of load after it, or oha -w
    waited for it).  In a steady state they are the window's throughput, and their latencies sum to the connections'
    time in the window.  ``errors``: the whole run's (oha's JSON), attributed to the window by ``window_errors``."""
    sent = [(end - start, status, size) for start, end, status, size in rows if start_s <= start < start_s + duration_s]
    ms = sorted(d * 1000.0 for d, _, _ in sent)
    latency = latency_of(ms)
    window, rule = window_errors(rows, start_s, duration_s, errors, connections, timeout_s, trail_s)
    window["status"] = sum(1 for _, st, _ in sent if st >= 400)
    # A connection holds one request at a time: one answered after the window on a request sent before it sent none
    # in it; nor did one whose request was never answered through it (at most as many as the run gave up).
    end_s = start_s + duration_s
    held = sum(1 for start, end, _, _ in rows if start < start_s and end >= end_s)
    timeouts = errors.get("timeout", 0)  # most_in_flight sorts every answer's instants: only when it can matter
    unanswered = min(timeouts, connections - most_in_flight(rows, start_s, end_s)) if timeouts else 0
    # The run's first requests, one per connection, sent as it began: the window's time still spent waiting on them.
    first = heapq.nsmallest(connections, rows)
    first_wait = sum(max(0.0, min(end, end_s) - start_s) for start, end, _, _ in first if start < start_s)
    # The window's edges: its time on the requests in flight as it opened (but the run's first, counted above), and
    # the time its own requests took after it closed.
    firsts = set(first)
    carried_in = sum(
        min(end, end_s) - start_s
        for start, end, status, size in rows
        if start < start_s < end and (start, end, status, size) not in firsts
    )
    carried_out = sum(end - end_s for start, end, _, _ in rows if start_s <= start < end_s < end)
    return LoadReport(
        driver="oha",
        requests=len(sent),
        duration_s=duration_s,
        bytes=sum(b for _, _, b in sent),
        latency_ms=latency,
        errors=window,
        window="steady",
        error_attribution=rule,
        run_errors=dict(errors) if rule else None,
        held_through=held + unanswered,
        run_requests=len(rows),
        first_wait_s=first_wait + unanswered * duration_s,
        carried_in_s=carried_in,
        carried_out_s=carried_out,
        precision=window_precision(
            [row for row in rows if start_s <= row[0] < end_s], start_s, duration_s, cycle_slices(duration_s, ms)
        ),
        lead_s=start_s,
        first_answered_s=max((end for _, end, _, _ in first), default=None) if len(first) == connections else None,
        lead_rps=answer_rates(rows, 0.0, start_s, LEAD_SLICES),
    )


# A window's precision: its requests cut by send time into this many equal slices (batch means; fewer, down to
# MIN_SLICES, when a slice would be shorter than the mean latency: cycle_slices); the lead-in's rate in this many
# slices (the warm-up's rounds, from the same run).
SLICES = 10
MIN_SLICES = 3
LEAD_SLICES = 4
# Student's t, 97.5% quantile, by degrees of freedom (a 95% interval from 2 to 10 slices).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def cycle_slices(duration_s: float, latencies_ms: Sequence[float]) -> int:
    """How many slices a window is cut into for its precision: SLICES, or fewer so that each lasts at least one cycle of
    the closed loop (the mean latency: each connection sends once per answer).  A slice shorter than that is not an
    independent batch: a server that answers its connections together (bjoern on /upstream answered 63 of 64 at once
    every 6.5 s) leaves 2 s slices of a 20 s window holding 0 or 63 requests, a half-width of 115% where the window
    held three whole cycles of 64.  At least MIN_SLICES: a window of fewer cycles (a 4 s window at 1.65 s of queue)
    cut into two would be judged with Student's t at 1 degree of freedom (12.7), and measured again for nothing (four
    16 s windows in a default run).  SLICES for a window with no answer."""
    if not latencies_ms:
        return SLICES
    cycle_s = sum(latencies_ms) / len(latencies_ms) / 1000.0
    return max(MIN_SLICES, min(SLICES, int(duration_s / cycle_s))) if cycle_s > 0 else SLICES


def half_width(values: Sequence[float]) -> float | None:
    """The 95% interval's half-width of the mean of ``values`` (independent batch values), relative to the mean;
    None for fewer than two values or a mean of 0."""
    n = len(values)
    if n < 2 or n - 1 not in T975:
        return None
    mean = sum(values) / n
    if mean <= 0:
        return None
    sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
    return T975[n - 1] * sd / n**0.5 / mean


def window_precision(
    rows: Sequence[tuple[float, float, int, int]], start_s: float, duration_s: float, slices: int = SLICES
) -> dict[str, float | None]:
    """How precisely a window measured its throughput and mean latency: its answered requests (status < 400) cut by
    send time into ``slices`` equal slices, each slice's rate and mean latency a batch value, and each half-width of
    the 95% interval of their mean, relative to it (``rps``, ``latency_mean``).  A slice with no request gives no
    latency value; a window of no time gives None for both."""
    if duration_s <= 0 or slices < 2:
        return {"slices": slices, "rps": None, "latency_mean": None}
    width = duration_s / slices
    counts, waits = [0] * slices, [0.0] * slices
    for start, end, status, _ in rows:
        if start_s <= start < start_s + duration_s and status < 400:
            k = min(slices - 1, int((start - start_s) / width))
            counts[k] += 1
            waits[k] += end - start
    means = [w / c for w, c in zip(waits, counts) if c]
    return {"slices": slices, "rps": half_width([c / width for c in counts]), "latency_mean": half_width(means)}


def answer_rates(
    rows: Sequence[tuple[float, float, int, int]], start_s: float, end_s: float, slices: int
) -> tuple[float, ...]:
    """Answers a second in each of ``slices`` equal slices of [start_s, end_s) by answer time (the lead-in's rate as
    it warmed the server up); () for a span of no time."""
    if end_s <= start_s or slices < 1:
        return ()
    width = (end_s - start_s) / slices
    counts = [0] * slices
    for _, end, _, _ in rows:
        if start_s <= end < end_s:
            counts[min(slices - 1, int((end - start_s) / width))] += 1
    return tuple(c / width for c in counts)


def read_latencies(db: Path) -> list[tuple[float, int, int]]:
    """oha's --db-url table as an open model reads it: each answered request's latency from its intended send time
    (``start_latency_correction``, written with --latency-correction; its start where absent), status and bytes."""
    with sqlite3.connect(db) as conn:
        return [
            (float(d), int(c), int(b))
            for d, c, b in conn.execute(
                "SELECT end - COALESCE(start_latency_correction, start), status, len_bytes FROM oha"
            )
        ]


def merged_report(reports: Sequence[LoadReport], latencies: Sequence[tuple[float, int, int]]) -> LoadReport:
    """One open-model report of several oha runs at once (their rates split): requests, bytes and errors summed,
    the latencies those of every answered request together (``latencies``: seconds, status, bytes), never the runs'
    percentiles averaged."""
    latency = latency_of(sorted(d * 1000.0 for d, _, _ in latencies))
    return LoadReport(
        driver="oha",
        requests=sum(r.requests for r in reports),
        duration_s=max(r.duration_s for r in reports),
        bytes=sum(r.bytes for r in reports),
        latency_ms=latency,
        errors={k: sum(r.errors.get(k, 0) for r in reports) for k in ERROR_KEYS},
    )


def read_rows(db: Path) -> list[tuple[float, float, int, int]]:
    """oha's --db-url table: one row per answered request (start, end, status, bytes)."""
    with sqlite3.connect(db) as conn:
        return [
            (float(a), float(b), int(c), int(d))
            for a, b, c, d in conn.execute("SELECT start, end, status, len_bytes FROM oha")
        ]


def too_old(version: str) -> bool:
    """Whether oha ``version`` ("1.4.6"; "unknown" when it could not be read) is older than MIN_VERSION."""
    try:
        return Version(version) < Version(MIN_VERSION)
    except InvalidVersion:
        return False


@dataclass(frozen=True)
class OhaDriver:
    """Runs ``oha`` at a constant rate for a duration; ``timeout_s`` is its per-request timeout."""

    timeout_s: int = DEFAULT_TIMEOUT_S
    name: str = "oha"
    threads: int = 1
    capabilities: Capabilities = OHA_CAPABILITIES
    lead_s: float = LEAD_S  # closed model: load before the window, in the same run (trial.measure waits it out)
    trail_s: float = TRAIL_S  # closed model: load after the window, in the same run, its requests not counted
    # The load hosts (hosts.places.HostPlace) the closed model's connections are split across, one oha each, started
    # together; their requests' rows merged into one window.  Empty: this machine alone.
    places: tuple = ()

    @cached_property
    def binary(self) -> str:
        found = shutil.which("oha") or next((str(p) for p in (Path.home() / ".cargo/bin/oha",) if p.exists()), None)
        if found is None:
            raise MissingBinaryError(
                "oha (the open-model load generator)", fix=f"not found on PATH or in ~/.cargo/bin: {INSTALL}"
            )
        return found

    @cached_property
    def version(self) -> str:
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True).stdout
        match = re.search(r"(\d+\.\d+\.\d+)", out)
        return match.group(1) if match else "unknown"

    def argv(
        self,
        url: str,
        connections: int,
        duration: int,
        rate: float,
        request: Request | None = None,
        body_path: Path | None = None,
    ) -> list[str]:
        """oha's command; ``request``: its method (-m) and headers (-H), the body from ``body_path`` (-D)."""
        sends = (
            []
            if request is None
            else ["-m", request.method] + [a for name, value in request.headers for a in ("-H", f"{name}: {value}")]
        )
        sends += ["-D", str(body_path)] if body_path is not None else []
        return [
            self.binary,
            "-z",
            f"{duration}s",
            "-c",
            str(connections),
            "-q",
            f"{rate:g}",
            "--latency-correction",
            "--no-tui",
            "--output-format",
            "json",
            "-t",
            f"{self.timeout_s}s",
            *sends,
            url,
        ]

    def closed_argv(self, url: str, connections: int, duration: int, db: Path) -> list[str]:
        """oha as a closed model (no -q: each connection sends its next request when the answer is in) for the
        lead-in, the window and the trail in one run, every answer's times written to ``db``, in-flight requests waited
        for (-w)."""
        return [
            self.binary,
            "-z",
            f"{round(1000 * (self.lead_s + duration + self.trail_s))}ms",
            "-c",
            str(connections),
            "-w",
            "--db-url",
            str(db),
            "--no-tui",
            "--output-format",
            "json",
            "-t",
            f"{self.timeout_s}s",
            url,
        ]

    def check(self) -> None:
        """A missing oha, or one too old for the flags this driver passes, is a usage error with the install,
        before any server starts (an oha whose version cannot be read is tried)."""
        if too_old(self.version):
            raise MissingBinaryError(
                f"oha {self.version} ({self.binary})",
                fix=f"serverbench needs oha {MIN_VERSION} or newer (its --output-format flag): {INSTALL}",
            )

    def sized(self, load: CellLoad) -> OhaDriver:
        """oha for one cell's closed-model run: its lead-in (the warm-up: ``load.warmup_s``, shorter on a warm server,
        at least ``load.min_lead_s``) and trail sized to the cell's queue (catalog.windows), then its timeout to the
        whole run (catalog.timeouts).  No lead-in (--perf-warmup 0): the run is the window, with no trail either, so
        the requests and the backends' operations counted after it are the window's alone (the work check).  With no
        ``warmup_s`` its own lead-in and trail stay.  An open model's run (a rate) keeps its timeout: itself, as when
        nothing changes."""
        if load.shape.rate is not None:
            return self
        lead_s, trail_s = self.lead_s, self.trail_s
        cell = (load.variant, load.workload, load.shape.connections)
        if load.warmup_s is not None:
            lead_s = max(warm_lead_s(*cell, load.warm, load.warmup_s), load.min_lead_s)
            trail_s = cell_trail_s(*cell, self.trail_s) if lead_s else 0.0
        timeout_s = cell_timeout_s(*cell, lead_s + load.shape.duration + trail_s)
        if (lead_s, trail_s, timeout_s) == (self.lead_s, self.trail_s, self.timeout_s):
            return self
        return replace(self, lead_s=lead_s, trail_s=trail_s, timeout_s=timeout_s)

    def run(
        self,
        url: str,
        shape: LoadShape,
        *,
        cpus: Sequence[int] | None = None,
        mix: Sequence[tuple[str, int]] = (),
        request: Request | None = None,
    ):
        """Hold the shape's rate on ``url`` for its duration (every request as ``request`` says, when
        given); returns (LoadReport, GeneratorRun)."""
        if mix or shape.requests_per_connection is not None:
            raise GeneratorError(f"oha runs one URL; it cannot run {'a URL mix' if mix else shape.label}")
        env = {**os.environ, "NO_COLOR": "1"}
        if shape.rate is None:
            if request is not None:
                raise GeneratorError("oha's closed model here sends plain GETs; a user's endpoint runs on wrk")
            if self.places:
                return self._closed_across(url, shape, env)
            return self._closed(url, shape, cpus, env)
        if self.places:
            return self._rate_across(url, shape, request, env)
        with tempfile.TemporaryDirectory(prefix="serverbench-oha-") as tmp:
            body_path = None
            if request is not None and request.body:
                body_path = Path(tmp) / "body"
                body_path.write_bytes(request.body)
            run = run_generator(
                self.argv(url, shape.connections, shape.duration, shape.rate, request, body_path),
                timeout=shape.duration + self.timeout_s + 30,
                cpus=cpus,
                env=env,
            )
        if run.returncode != 0:
            raise GeneratorError(f"oha exited with code {run.returncode}: {(run.stderr or run.stdout)[-500:]}")
        return parse_report(run.stdout, shape.duration), run

    def _closed(self, url: str, shape: LoadShape, cpus: Sequence[int] | None, env: dict[str, str]):
        """One run of lead-in + window + trail; the window's report from the requests sent inside it."""
        with tempfile.TemporaryDirectory(prefix="serverbench-oha-") as tmp:
            db = Path(tmp) / "requests.db"
            run = run_generator(
                self.closed_argv(url, shape.connections, shape.duration, db),
                timeout=self.lead_s + shape.duration + self.trail_s + 2 * self.timeout_s + 30,
                cpus=cpus,
                env=env,
            )
            if run.returncode != 0:
                raise GeneratorError(f"oha exited with code {run.returncode}: {(run.stderr or run.stdout)[-500:]}")
            whole = parse_report(run.stdout, self.lead_s + shape.duration + self.trail_s)
            rows = read_rows(db) if db.exists() else []
        return window_report(
            rows,
            float(self.lead_s),
            float(shape.duration),
            whole.errors,
            shape.connections,
            float(self.timeout_s),
            float(self.trail_s),
        ), run

    def _rate_across(self, url: str, shape: LoadShape, request: Request | None, env: dict[str, str]):
        """The open model on every load host at once, the rate and the connections split between them, each oha
        writing every answer's times: the latencies (from each request's intended send time) merged exactly."""
        rate = shape.rate / min(len(self.places), shape.connections)

        def one(place, connections: int):
            with place.folder() as folder:
                db, body = f"{folder}/requests.db", None
                if request is not None and request.body:
                    body = f"{folder}/body"
                    place.write(body, request.body)
                argv = self.argv(url, connections, shape.duration, rate, request, Path(body) if body else None)
                argv[1:1] = ["--db-url", db]
                run = self._ran(place, place.run(argv, shape.duration + self.timeout_s + 30, env=env))
                latencies = _rows_of(place.read(db), read_latencies)
            return run, (latencies, parse_report(run.stdout, shape.duration))

        parts, run = spread(self.places, shape.connections, one)
        return merged_report([whole for _, whole in parts], [x for rows, _ in parts for x in rows]), run

    def _closed_across(self, url: str, shape: LoadShape, env: dict[str, str]):
        """The closed model on every load host at once, the connections split between them (docs/hosts.md): each
        oha's rows (times from its own start) are one window's, merged: its requests, latencies and errors are the
        union of the hosts', so its percentiles are those of all the requests together."""
        timeout = self.lead_s + shape.duration + self.trail_s + 2 * self.timeout_s + 30

        def one(place, connections: int):
            with place.folder() as folder:
                db = f"{folder}/requests.db"
                run = self._ran(
                    place, place.run(self.closed_argv(url, connections, shape.duration, Path(db)), timeout, env=env)
                )
                rows = _rows_of(place.read(db), read_rows)
            return run, (rows, parse_report(run.stdout, self.lead_s + shape.duration + self.trail_s))

        parts, run = spread(self.places, shape.connections, one)
        errors = {k: sum(whole.errors.get(k, 0) for _, whole in parts) for k in ERROR_KEYS}
        rows = [row for host_rows, _ in parts for row in host_rows]
        report = window_report(
            rows,
            float(self.lead_s),
            float(shape.duration),
            errors,
            shape.connections,
            float(self.timeout_s),
            float(self.trail_s),
        )
        return report, run

    @staticmethod
    def _ran(place, run):
        """``run`` when oha on ``place`` exited 0; else a GeneratorError naming the host and what oha said."""
        if run.returncode != 0:
            raise GeneratorError(
                f"oha on {place.name} exited with code {run.returncode}: {(run.stderr or run.stdout)[-500:]}"
            )
        return run


def _rows_of(data: bytes, reader):
    """``reader`` (read_rows, read_latencies) applied to an oha database read back from a load host."""
    with tempfile.TemporaryDirectory(prefix="serverbench-oha-") as tmp:
        local = Path(tmp) / "requests.db"
        local.write_bytes(data)
        return reader(local)
