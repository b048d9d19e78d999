"""wrk as a driver: closed-model load, keep-alive connections, a JSON line from a Lua reporter."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from urllib.parse import urlsplit

from ..catalog.contract import Request
from ..catalog.shapes import Capabilities, LoadShape
from ..catalog.timeouts import DEFAULT_TIMEOUT_S, cell_timeout_s
from ..errors import GeneratorError
from ..processes.executors import require_binary, run_generator
from ..processes.places import spread
from ..records.schema import ERROR_KEYS, LATENCY_KEYS, LoadReport
from . import histogram
from .base import CellLoad

REPORTER = Path(__file__).with_name("wrk_report.lua")
MARKER = "SERVERBENCH-WRK "
HIST_MARKER = "SERVERBENCH-WRK-HIST "


def parse_report(stdout: str) -> LoadReport:
    """The LoadReport in wrk's output, or a GeneratorError saying what was printed instead."""
    lines = [line for line in stdout.splitlines() if line.startswith(MARKER)]
    if len(lines) != 1:
        raise GeneratorError(f"wrk printed {len(lines)} report lines, expected 1; its output was:\n{stdout[-800:]}")
    try:
        data = json.loads(lines[0][len(MARKER) :])
        latency_ms = {k: float(data["latency_us"][k]) / 1000.0 for k in LATENCY_KEYS}
        errors = {k: int(data["errors"][k]) for k in ERROR_KEYS}
        removed = int(data["synthetic_removed"])
    except (ValueError, KeyError, TypeError) as exc:
        raise GeneratorError(f"wrk's report line is malformed ({exc!r}): {lines[0][:300]}") from None
    if removed < 0:
        raise GeneratorError(
            "wrk's latency histogram is not laid out as wrk 4.x's, so serverbench cannot remove the "
            "samples wrk adds for coordinated omission (wrk_report.lua); install wrk 4.x or measure "
            "with --perf-closed-driver oha"
        )
    return LoadReport(
        driver="wrk",
        requests=int(data["requests"]),
        duration_s=int(data["duration_us"]) / 1e6,
        bytes=int(data["bytes"]),
        latency_ms=latency_ms,
        errors=errors,
    )


def split_threads(threads: int, connections: int) -> int:
    """wrk's -t for ``connections``: it opens connections // threads on each thread (64 on 3 threads: 63), so the
    most threads up to ``threads`` that divide the connections evenly, and every connection asked for is opened."""
    return next(t for t in range(max(1, min(threads, connections)), 0, -1) if connections % t == 0)


def reporter_script(connections: int, timeout_s: int, requests: str = "", dump: bool = False) -> str:
    """The script wrk runs: what the reporter needs to undo wrk's coordinated-omission samples (its -c and
    --timeout, wrk_report.lua), the request script if any (``mix_script``), then the reporter; ``dump``: it also
    prints every latency's count (a run on one of several load hosts, merged exactly: docs/hosts.md)."""
    flag = "local dump_histogram = true\n" if dump else ""
    return (
        f"local connections, timeout_us = {connections}, {timeout_s * 1_000_000}\n"
        + flag
        + requests
        + REPORTER.read_text()
    )


def parse_histogram(stdout: str) -> dict[int, int]:
    """The latency histogram (microseconds -> count) wrk printed with ``histogram``; a GeneratorError without one."""
    lines = [line for line in stdout.splitlines() if line.startswith(HIST_MARKER)]
    if len(lines) != 1:
        raise GeneratorError(f"wrk printed {len(lines)} histogram lines, expected 1; its output was:\n{stdout[-800:]}")
    try:
        return {int(us): int(n) for us, n in json.loads(lines[0][len(HIST_MARKER) :]).items()}
    except (ValueError, AttributeError) as exc:
        raise GeneratorError(f"wrk's histogram line is malformed ({exc!r}): {lines[0][:300]}") from None


def merged(reports: Sequence[LoadReport], histograms: Sequence[Mapping[int, int]]) -> LoadReport:
    """One report of several wrk runs at once (their connections split across load hosts): requests, bytes and
    errors summed, the latencies those of every request together (drivers.histogram), never percentiles averaged."""
    return LoadReport(
        driver="wrk",
        requests=sum(r.requests for r in reports),
        duration_s=max(r.duration_s for r in reports),
        bytes=sum(r.bytes for r in reports),
        latency_ms=histogram.latency_ms(histogram.merged(histograms)),
        errors={k: sum(r.errors[k] for r in reports) for k in ERROR_KEYS},
    )


WRK_CAPABILITIES = Capabilities("wrk", ("closed",), requests_per_connection=True, ramp=False)


@dataclass(frozen=True)
class WrkDriver:
    """Runs ``wrk`` with the serverbench reporter; ``timeout_s`` is wrk's per-request timeout."""

    threads: int = 2
    timeout_s: int = DEFAULT_TIMEOUT_S
    name: str = "wrk"
    capabilities: Capabilities = WRK_CAPABILITIES
    # Load hosts (hosts.places.HostPlace; docs/hosts.md): one wrk each, the connections split, their histograms
    # merged.  Empty: this machine.
    places: tuple = ()

    @cached_property
    def binary(self) -> str:
        return require_binary("wrk", "wrk")

    @cached_property
    def version(self) -> str:
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True).stdout
        match = re.search(r"wrk\s+(\S+)", out)
        return match.group(1) if match else "unknown"

    def argv(self, url: str, connections: int, duration: int, script: Path) -> list[str]:
        return [
            self.binary,
            f"-t{split_threads(self.threads, connections)}",
            f"-c{connections}",
            f"-d{duration}s",
            f"--timeout={self.timeout_s}s",
            "-s",
            str(script),
            url,
        ]

    def check(self) -> None:
        self.binary  # noqa: B018 - a missing wrk is a usage error before any server starts

    def sized(self, load: CellLoad) -> WrkDriver:
        """wrk with its per-request timeout sized to the cell over the shape's duration, wrk's whole run (no lead-in,
        no trail; catalog.timeouts); itself when that is the timeout it has."""
        timeout = cell_timeout_s(load.variant, load.workload, load.shape.connections, load.shape.duration)
        return self if timeout == self.timeout_s else replace(self, timeout_s=timeout)

    def run(
        self,
        url: str,
        shape: LoadShape,
        *,
        cpus: Sequence[int] | None = None,
        mix: Sequence[tuple[str, int]] = (),
        request: Request | None = None,
    ):
        """Drive ``url`` for the shape's duration (optionally pinned to ``cpus``); returns (LoadReport, GeneratorRun).

        ``mix``: weighted paths (siege's URL file): each request picks one by weight, so the
        path part of ``url`` is ignored.  The shape's ``requests_per_connection``: close each
        connection after that many requests on average (None: keep-alive).  ``request``: the
        method, headers and body of every request (a user's endpoint; default a plain GET).
        """
        rpc = shape.requests_per_connection
        requests = ""
        if mix or rpc is not None or request is not None:
            paths = mix or ((urlsplit(url).path + (f"?{urlsplit(url).query}" if urlsplit(url).query else ""), 1),)
            requests = mix_script(paths, rpc, request)
        if self.places:
            return self._across(url, shape, requests)
        with tempfile.TemporaryDirectory(prefix="serverbench-wrk-") as tmp:
            script = Path(tmp) / "serverbench.lua"
            script.write_text(reporter_script(shape.connections, self.timeout_s, requests))
            run = run_generator(
                self.argv(url, shape.connections, shape.duration, script),
                timeout=shape.duration + self.timeout_s + 30,
                cpus=cpus,
            )
        if run.returncode != 0:
            raise GeneratorError(f"wrk exited with code {run.returncode}: {(run.stderr or run.stdout)[-500:]}")
        return parse_report(run.stdout), run

    def _across(self, url: str, shape: LoadShape, requests: str):
        """One wrk on every load host at once, the connections split between them; each prints its latency
        histogram, and the report is of all their requests together."""

        def one(place, connections: int):
            with place.folder("serverbench-wrk-") as folder:
                script = f"{folder}/serverbench.lua"
                place.write(script, reporter_script(connections, self.timeout_s, requests, dump=True).encode())
                run = place.run(
                    self.argv(url, connections, shape.duration, Path(script)), shape.duration + self.timeout_s + 30
                )
            if run.returncode != 0:
                raise GeneratorError(
                    f"wrk on {place.name} exited with code {run.returncode}: {(run.stderr or run.stdout)[-500:]}"
                )
            return run, (parse_report(run.stdout), parse_histogram(run.stdout))

        parts, run = spread(self.places, shape.connections, one)
        return merged([r for r, _ in parts], [h for _, h in parts]), run


def lua_string(data: str | bytes) -> str:
    """A Lua string literal holding exactly ``data`` (bytes outside printable ASCII as decimal escapes)."""
    raw = data.encode() if isinstance(data, str) else data
    return '"' + "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:03d}" for b in raw) + '"'


def mix_script(
    mix: Sequence[tuple[str, int]], requests_per_connection: int | None = None, request: Request | None = None
) -> str:
    """Lua that makes wrk request the paths in proportion to their weights (requests pre-formatted per
    thread), and with ``requests_per_connection`` N sends every Nth request of a thread with
    ``Connection: close``: each connection then carries N requests on average (exactly 1 when N = 1).
    wrk reconnects after a close without counting an error.  ``request``: every request's method,
    headers and body (wrk.format's arguments; it adds Content-Length for a body)."""
    if not mix or any(w < 1 or not p.startswith("/") for p, w in mix):
        raise ValueError(f"a mix is (path starting with '/', weight >= 1) pairs, got {list(mix)!r}")
    if requests_per_connection is not None and requests_per_connection < 1:
        raise ValueError(f"requests per connection must be >= 1, got {requests_per_connection!r}")
    expanded = [p for p, w in mix for _ in range(w)]
    paths = ", ".join(json.dumps(p) for p in expanded)
    n = requests_per_connection or 0
    request = request or Request()
    headers = "".join(f"[{lua_string(k)}] = {lua_string(v)}, " for k, v in request.headers)
    body = lua_string(request.body) if request.body else "nil"
    return (
        "-- serverbench request script (weighted paths, requests per connection, method/headers/body)\n"
        f"local paths = {{{paths}}}\n"
        f"local per_connection = {n}\n"
        f"local method, body = {lua_string(request.method)}, {body}\n"
        "local reqs, closing, count = {}, {}, 0\n"
        "init = function(args)\n"
        "  for i, p in ipairs(paths) do\n"
        f"    reqs[i] = wrk.format(method, p, {{{headers}}}, body)\n"
        f"    closing[i] = wrk.format(method, p, {{{headers}['Connection'] = 'close'}}, body)\n"
        "  end\n"
        "end\n"
        "request = function()\n"
        "  local i = #reqs == 1 and 1 or math.random(#reqs)\n"
        "  count = count + 1\n"
        "  if per_connection > 0 and count % per_connection == 0 then return closing[i] end\n"
        "  return reqs[i]\n"
        "end\n"
    )
