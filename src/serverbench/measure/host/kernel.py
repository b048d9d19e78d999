"""The kernel's TCP listen-queue counters around a measured window.  Measurement only.

``/proc/net/netstat`` (TcpExt) counts, for the whole network namespace, the connections a
listening socket refused because its accept queue was full (ListenOverflows) and every SYN
or final ACK dropped at a listener (ListenDrops, which includes the overflows).  Read before
and after the window, the difference is what the window cost; the counters are not per
socket, so load must not run beside a trial (serverbench serialises load on the machine).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

NETSTAT = Path("/proc/net/netstat")
COUNTERS = {"ListenOverflows": "listen_overflows", "ListenDrops": "listen_drops"}


def parse_netstat(text: str) -> dict[str, int]:
    """The TcpExt listen counters of a ``/proc/net/netstat`` text (pairs of header and value lines)."""
    lines = text.splitlines()
    for header, values in zip(lines[0::2], lines[1::2]):
        names, numbers = header.split(), values.split()
        if names and names[0] == "TcpExt:" and numbers and numbers[0] == "TcpExt:":
            row = dict(zip(names[1:], numbers[1:]))
            return {key: int(row[name]) for name, key in COUNTERS.items() if name in row}
    return {}


def listen_counters(path: Path = NETSTAT) -> dict[str, int]:
    """The counters now; empty where the kernel does not expose them (not Linux, no /proc)."""
    try:
        return parse_netstat(path.read_text())
    except OSError:
        return {}


def window(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """What the counters rose by between two readings (only counters present in both)."""
    return {key: after[key] - before[key] for key in before if key in after}
