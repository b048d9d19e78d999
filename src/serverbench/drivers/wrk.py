"""wrk as a driver: closed-model load, keep-alive connections, a JSON line from a Lua reporter."""
from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Sequence

from ..errors import GeneratorError
from ..executors import require_binary, run_generator
from ..results import ERROR_KEYS, LATENCY_KEYS, LoadReport

REPORTER = Path(__file__).with_name("wrk_report.lua")
MARKER = "SERVERBENCH-WRK "


def parse_report(stdout: str) -> LoadReport:
    """The LoadReport in wrk's output, or a GeneratorError saying what was printed instead."""
    lines = [line for line in stdout.splitlines() if line.startswith(MARKER)]
    if len(lines) != 1:
        raise GeneratorError(f"wrk printed {len(lines)} report lines, expected 1; its output was:\n{stdout[-800:]}")
    try:
        data = json.loads(lines[0][len(MARKER):])
        latency_ms = {k: float(data["latency_us"][k]) / 1000.0 for k in LATENCY_KEYS}
        errors = {k: int(data["errors"][k]) for k in ERROR_KEYS}
        return LoadReport(driver="wrk", requests=int(data["requests"]), duration_s=int(data["duration_us"]) / 1e6,
                          bytes=int(data["bytes"]), latency_ms=latency_ms, errors=errors)
    except (ValueError, KeyError, TypeError) as exc:
        raise GeneratorError(f"wrk's report line is malformed ({exc!r}): {lines[0][:300]}") from None


@dataclass(frozen=True)
class WrkDriver:
    """Runs ``wrk`` with the serverbench reporter; ``timeout_s`` is wrk's per-request timeout."""

    threads: int = 2
    timeout_s: int = 5
    name: str = "wrk"

    @cached_property
    def binary(self) -> str:
        return require_binary("wrk", "wrk")

    @cached_property
    def version(self) -> str:
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True).stdout
        match = re.search(r"wrk\s+(\S+)", out)
        return match.group(1) if match else "unknown"

    def argv(self, url: str, connections: int, duration: int, script: Path = REPORTER) -> list[str]:
        threads = max(1, min(self.threads, connections))
        return [self.binary, f"-t{threads}", f"-c{connections}", f"-d{duration}s",
                f"--timeout={self.timeout_s}s", "-s", str(script), url]

    def run(self, url: str, connections: int, duration: int, cpus: Sequence[int] | None = None,
            mix: Sequence[tuple[str, int]] = ()):
        """Drive ``url`` for ``duration`` seconds (optionally pinned to ``cpus``); returns (LoadReport, GeneratorRun).

        ``mix``: weighted paths (siege's URL file): each request picks one by weight, so the
        path part of ``url`` is ignored.
        """
        with tempfile.TemporaryDirectory(prefix="serverbench-wrk-") as tmp:
            script = REPORTER
            if mix:
                script = Path(tmp) / "mix.lua"
                script.write_text(mix_script(mix) + REPORTER.read_text())
            run = run_generator(self.argv(url, connections, duration, script),
                                timeout=duration + self.timeout_s + 30, cpus=cpus)
        if run.returncode != 0:
            raise GeneratorError(f"wrk exited with code {run.returncode}: {(run.stderr or run.stdout)[-500:]}")
        return parse_report(run.stdout), run


def mix_script(mix: Sequence[tuple[str, int]]) -> str:
    """Lua that makes wrk request the paths in proportion to their weights (requests pre-formatted per thread)."""
    if not mix or any(w < 1 or not p.startswith("/") for p, w in mix):
        raise ValueError(f"a mix is (path starting with '/', weight >= 1) pairs, got {list(mix)!r}")
    expanded = [p for p, w in mix for _ in range(w)]
    paths = ", ".join(json.dumps(p) for p in expanded)
    return ("-- serverbench weighted URL mix\n"
            f"local paths = {{{paths}}}\n"
            "local reqs = {}\n"
            "init = function(args)\n"
            "  for i, p in ipairs(paths) do reqs[i] = wrk.format('GET', p) end\n"
            "end\n"
            "request = function()\n"
            "  return reqs[math.random(#reqs)]\n"
            "end\n")
