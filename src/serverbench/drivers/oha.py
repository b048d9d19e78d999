"""oha as the open-model driver: a constant request rate held whatever the answers do, latency
measured from each request's intended send time (``--latency-correction``: no coordinated omission).

Why oha: it is on crates.io (reachable here; ``cargo install oha``), it paces by a target rate
(``-q``), corrects latency to the intended send time, runs for a duration (``-z``) and prints a
machine-readable JSON summary with percentiles, status codes and classified errors.  wrk2 is not
packaged in any registry reachable here; k6 would need its own binary download; locust paces by
user think time, not by a request rate.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import GeneratorError, MissingBinaryError
from ..measure.executors import run_generator
from ..records.schema import ERROR_KEYS, LoadReport
from ..catalog.contract import Request
from ..catalog.shapes import Capabilities, LoadShape

OHA_CAPABILITIES = Capabilities("oha", ("open",), requests_per_connection=False, ramp=False)
INSTALL = "cargo install oha --locked  (./run does it; needs Rust, make and cmake)"


def _classify(message: str) -> str:
    text = message.lower()
    if "timeout" in text or "timed out" in text:
        return "timeout"
    if "refused" in text or "connect" in text or "dns" in text:
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
    return var ** 0.5 * 1000.0


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

        latency = {"p50": ms(pct["p50"]), "p75": ms(pct["p75"]), "p90": ms(pct["p90"]), "p99": ms(pct["p99"]),
                   "p999": ms(pct["p99.9"]), "max": ms(summary["slowest"]), "mean": ms(summary["average"]),
                   "stdev": _stdev_ms(data.get("responseTimeHistogram") or {})}
        return LoadReport(driver="oha", requests=sum(statuses.values()), duration_s=float(summary["total"]) or duration_s,
                          bytes=int(summary.get("totalData") or 0), latency_ms=latency, errors=errors)
    except (ValueError, KeyError, TypeError) as exc:
        raise GeneratorError(f"oha's JSON report is malformed ({exc!r}): {stdout[:300]!r}") from None


@dataclass(frozen=True)
class OhaDriver:
    """Runs ``oha`` at a constant rate for a duration; ``timeout_s`` is its per-request timeout."""

    timeout_s: int = 5
    name: str = "oha"
    threads: int = 1
    capabilities: Capabilities = OHA_CAPABILITIES

    @cached_property
    def binary(self) -> str:
        found = shutil.which("oha") or next((str(p) for p in (Path.home() / ".cargo/bin/oha",) if p.exists()), None)
        if found is None:
            raise MissingBinaryError("oha (the open-model load generator)",
                                     fix=f"not found on PATH or in ~/.cargo/bin: {INSTALL}")
        return found

    @cached_property
    def version(self) -> str:
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True).stdout
        match = re.search(r"(\d+\.\d+\.\d+)", out)
        return match.group(1) if match else "unknown"

    def argv(self, url: str, connections: int, duration: int, rate: float, request: Request | None = None,
             body_path: Path | None = None) -> list[str]:
        """oha's command; ``request``: its method (-m) and headers (-H), the body from ``body_path`` (-D)."""
        sends = [] if request is None else ["-m", request.method] + [
            a for name, value in request.headers for a in ("-H", f"{name}: {value}")]
        sends += ["-D", str(body_path)] if body_path is not None else []
        return [self.binary, "-z", f"{duration}s", "-c", str(connections), "-q", f"{rate:g}", "--latency-correction",
                "--no-tui", "--output-format", "json", "-t", f"{self.timeout_s}s", *sends, url]

    def check(self) -> None:
        self.binary  # noqa: B018 - a missing oha is a usage error with the install, before any server starts

    def run(self, url: str, shape: LoadShape, *, cpus: Sequence[int] | None = None,
            mix: Sequence[tuple[str, int]] = (), request: Request | None = None):
        """Hold the shape's rate on ``url`` for its duration (every request as ``request`` says, when
        given); returns (LoadReport, GeneratorRun)."""
        if shape.rate is None:
            raise GeneratorError("oha is serverbench's open-model driver: it needs a rate (--perf-rates)")
        if mix or shape.requests_per_connection is not None:
            raise GeneratorError(f"oha runs one URL at a rate; it cannot run {'a URL mix' if mix else shape.label}")
        env = {**os.environ, "NO_COLOR": "1"}
        with tempfile.TemporaryDirectory(prefix="serverbench-oha-") as tmp:
            body_path = None
            if request is not None and request.body:
                body_path = Path(tmp) / "body"
                body_path.write_bytes(request.body)
            run = run_generator(self.argv(url, shape.connections, shape.duration, shape.rate, request, body_path),
                                timeout=shape.duration + self.timeout_s + 30, cpus=cpus, env=env)
        if run.returncode != 0:
            raise GeneratorError(f"oha exited with code {run.returncode}: {(run.stderr or run.stdout)[-500:]}")
        return parse_report(run.stdout, shape.duration), run
