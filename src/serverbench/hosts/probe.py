"""What a host is, told by the host itself: ``python -m serverbench.hosts.probe [--rtt ADDRESS:PORT]`` prints one JSON
object (run over SSH by ``serverbench hosts check``, and here for this machine).

It says: serverbench's version and a digest of its source; a digest of the environment's installed packages (the
lock this environment realises: equal digests, equal packages); the cores, memory and kernel; the tools each role
needs, with their paths; the host's clock; and, with ``--rtt``, the round-trip time of a TCP connect to another host.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import socket
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path

# What each role runs: a load host the generators, a server host the servers (the packages of the variants: the
# environment's digest covers them), a backends host the services.
TOOLS = {
    "load": ("oha", "wrk"),
    "backends": ("redis-server", "nginx"),
}
MODULES = {"load": ("locust",), "backends": ("secantusdb",), "server": ()}


def source_digest() -> str:
    """A digest of serverbench's own source files (an editable install's changes show in it)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def packages_digest() -> str:
    """A digest of the environment's installed distributions and versions (serverbench's own left out: its source
    digest says more)."""
    names = sorted(
        f"{(d.metadata['Name'] or '').lower()}=={d.version}"
        for d in metadata.distributions()
        if (d.metadata["Name"] or "").lower() != "serverbench"
    )
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]


def tool_path(name: str) -> str | None:
    """Where ``name`` is: on PATH, or in ~/.cargo/bin (where ``cargo install`` puts oha)."""
    found = shutil.which(name)
    if found:
        return found
    cargo = Path.home() / ".cargo" / "bin" / name
    return str(cargo) if os.access(cargo, os.X_OK) else None


def memory_mb() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def connect_rtt_ms(address: str, port: int, tries: int = 5) -> float | None:
    """The median time of a TCP connect to ``address:port`` (one round trip: SYN, SYN-ACK), in ms; None when none
    connected."""
    times = []
    for _ in range(tries):
        started = time.perf_counter()
        try:
            with socket.create_connection((address, port), timeout=2.0):
                times.append((time.perf_counter() - started) * 1000.0)
        except OSError:
            continue
    return statistics.median(times) if times else None


def facts() -> dict:
    """This host's facts (the JSON the probe prints)."""
    try:
        version = metadata.version("serverbench")
    except metadata.PackageNotFoundError:
        version = "unknown"
    modules = {}
    for names in MODULES.values():
        for name in names:
            try:
                modules[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                modules[name] = None
    return {
        "version": version,
        "source": source_digest(),
        "packages": packages_digest(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "cores": len(os.sched_getaffinity(0)),
        "memory_mb": memory_mb(),
        "kernel": platform.release(),
        "hostname": socket.gethostname(),
        "tools": {name: tool_path(name) for names in TOOLS.values() for name in names},
        "modules": modules,
        "package": str(Path(__file__).resolve().parent.parent),
        "time": time.time(),
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["--rtt"] and len(argv) == 2:
        address, _, port = argv[1].rpartition(":")
        print(json.dumps({"rtt_ms": connect_rtt_ms(address, int(port))}))
        return 0
    if argv:
        print("usage: python -m serverbench.hosts.probe [--rtt ADDRESS:PORT]", file=sys.stderr)
        return 2
    print(json.dumps(facts()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
