"""Whether the hosts of an inventory can run the suite: reached over SSH, the same serverbench and packages as here,
the tools their roles need, their cores, memory and clock, and each load host's round trip to the server host.

:func:`check` asks each host (hosts.probe over SSH) and :func:`problems` judges the answers (pure): a host that cannot
be reached, differs from this environment or lacks a tool its role needs is a problem, with its fix, and a run
with problems stops before any server starts.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import HostError
from .inventory import Host, Inventory
from .probe import facts
from .ssh import Connections, end, remote_command

SAME = (
    ("version", "serverbench version"),
    ("source", "serverbench source"),
    ("packages", "installed packages (the lock)"),
)
FIX_ENV = (
    "make its environment this one's: check out the same commit there and run `./run perf --collect-only` "
    "(it installs exactly uv.lock), or point its env at an environment that is"
)


@dataclass(frozen=True)
class HostCheck:
    """What one host answered; ``facts`` is None when it was not reached (``error`` says why)."""

    host: Host
    facts: Mapping | None = None
    error: str | None = None
    clock_offset_ms: float | None = None  # the host's clock minus this one's, at the midpoint of the ask
    clock_uncertainty_ms: float | None = None  # half the ask's round trip: the offset is known to within this
    rtt_ms: float | None = None  # a load host's TCP connect round trip to the server host
    problems: tuple[str, ...] = field(default=())

    def as_json(self) -> dict:
        return {
            "name": self.host.name,
            "role": self.host.role,
            "destination": f"{self.host.destination}:{self.host.port}",
            "reached": self.facts is not None,
            "error": self.error,
            "facts": dict(self.facts) if self.facts is not None else None,
            "clock_offset_ms": self.clock_offset_ms,
            "clock_uncertainty_ms": self.clock_uncertainty_ms,
            "rtt_to_server_ms": self.rtt_ms,
            "problems": list(self.problems),
        }


def problems(host: Host, got: Mapping | None, here: Mapping, error: str | None = None) -> tuple[str, ...]:
    """What keeps ``host`` (which answered ``got``) from a run controlled from here (``here``: this machine's facts)."""
    if got is None:
        return (error or f"{host.name} was not reached",)
    found = []
    for key, label in SAME:
        if got.get(key) != here.get(key):
            found.append(f"its {label} is {got.get(key)}, here {here.get(key)}: {FIX_ENV}")
    tools, modules = got.get("tools") or {}, got.get("modules") or {}
    if host.role == "load":
        if not (tools.get("oha") or tools.get("wrk")):
            found.append("it has neither oha nor wrk: run ./run there (it builds oha), or apt-get install wrk")
        if not modules.get("locust"):
            found.append("its environment has no locust: run ./run there (the test extra installs it)")
    if host.role == "backends" and not tools.get("redis-server"):
        found.append("it has no redis-server: apt-get install redis-server there")
    return tuple(found)


def _ask(connections: Connections, host: Host) -> tuple[dict, float, float]:
    """The host's facts, and its clock offset with the offset's uncertainty (ms)."""
    out = connections.python(host, "import json, serverbench.hosts.probe as p; print(json.dumps(p.facts()))")
    got = json.loads(out.strip().splitlines()[-1])
    offset, uncertainty = clock_offset(connections, host)
    return got, offset, uncertainty


ECHO_TIME = "import sys, time\nfor _ in sys.stdin:\n    print(repr(time.time()), flush=True)"


def clock_offset(connections: Connections, host: Host, exchanges: int = 7) -> tuple[float | None, float | None]:
    """The host's clock minus this one's, in ms, and half the round trip of the exchange it was read in: asked over
    one open SSH channel (a line sent, the host's time read back), the narrowest of ``exchanges``, as NTP does.  The
    channel is open before the first ask, so no connection or interpreter start sits on one side of the round trip."""
    process = subprocess.Popen(
        connections.argv(host, remote_command([host.python, "-c", ECHO_TIME])),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    best: tuple[float, float] | None = None
    try:
        for _ in range(exchanges + 1):  # the first answer waits for the interpreter: not counted
            sent = time.time()
            process.stdin.write("t\n")
            process.stdin.flush()
            line = process.stdout.readline()
            back = time.time()
            if not line:
                break
            if _ == 0:
                continue
            sample = ((float(line) - (sent + back) / 2) * 1000.0, (back - sent) * 500.0)
            best = sample if best is None or sample[1] < best[1] else best
    except (OSError, ValueError):
        pass
    finally:
        process.stdin.close()  # the host's interpreter reads end-of-file and exits
        end(process, 10.0)
        process.stdout.close()
    return best if best is not None else (None, None)


def rtt(connections: Connections, load: Host, server: Host) -> float | None:
    """A load host's TCP connect round trip to the server host's SSH port, measured on the load host."""
    done = connections.run(
        load, remote_command([load.python, "-m", "serverbench.hosts.probe", "--rtt", f"{server.address}:{server.port}"])
    )
    try:
        return json.loads(done.stdout.decode().strip().splitlines()[-1])["rtt_ms"]
    except (ValueError, KeyError, IndexError):
        return None


def check(inventory: Inventory, connections: Connections, here: Mapping | None = None) -> list[HostCheck]:
    """Every host of ``inventory`` asked and judged against this machine's facts."""
    here = here if here is not None else facts()
    results = []
    for host in inventory.hosts:
        try:
            got, offset, uncertainty = _ask(connections, host)
        except HostError as exc:
            results.append(HostCheck(host, error=str(exc), problems=problems(host, None, here, str(exc))))
            continue
        trip = None
        if host.role == "load":
            try:
                trip = rtt(connections, host, inventory.server)
            except HostError:
                trip = None
        results.append(HostCheck(host, got, None, offset, uncertainty, trip, problems(host, got, here)))
    return results


def refusal(results: Sequence[HostCheck]) -> str | None:
    """One message for every host with a problem (None when there is none): a run stops on it before it starts."""
    lines = [f"{r.host.describe()}: {p}" for r in results for p in r.problems]
    return "the hosts are not ready: " + "; ".join(lines) if lines else None
