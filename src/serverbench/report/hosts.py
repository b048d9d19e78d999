"""What ``serverbench hosts check`` prints: a line per host (reached, same environment, tools, cores, memory, clock,
round trip to the server), then its problems with their fixes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _ms(value: Any, digits: int = 2) -> str:
    return "not measured" if value is None else f"{value:.{digits}f} ms"


def check_text(results: Sequence[Any]) -> str:
    """The check's text: ``results`` are hosts.check.HostCheck."""
    lines = []
    for r in results:
        head = f"{r.host.name} ({r.host.role}, {r.host.destination}:{r.host.port})"
        if r.facts is None:
            lines.append(f"{head}: NOT REACHED")
        else:
            f = r.facts
            tools = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in (f.get("tools") or {}).items())
            modules = ", ".join(f"{k} {v or 'no'}" for k, v in (f.get("modules") or {}).items())
            clock = (
                "not measured"
                if r.clock_offset_ms is None
                else f"{r.clock_offset_ms:+.1f} ms (± {r.clock_uncertainty_ms:.1f})"
            )
            lines.append(
                f"{head}: reached; serverbench {f.get('version')} source {f.get('source')} packages "
                f"{f.get('packages')}; {f.get('cores')} cores, {f.get('memory_mb')} MB, kernel {f.get('kernel')}; "
                f"tools: {tools}; modules: {modules}; clock offset {clock}"
                + (f"; round trip to the server {_ms(r.rtt_ms, 3)}" if r.host.role == "load" else "")
            )
        lines += [f"  problem: {p}" for p in r.problems]
    bad = sum(1 for r in results if r.problems)
    lines.append(f"{len(results) - bad} of {len(results)} hosts ready" + (f"; {bad} with problems" if bad else ""))
    return "\n".join(lines)
