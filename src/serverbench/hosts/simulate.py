"""Hosts on this machine: a network namespace per host, joined by veth links on a bridge, each with its own sshd.

``serverbench hosts simulate --load N [--backends] -- COMMAND`` makes one namespace for the server host, N for load
hosts and optionally one for a backends host; gives each an address in 198.18.0.0/15 (RFC 2544's range for
benchmarking: it routes nowhere); starts Debian's sshd in each, pinned to cores of its own (what sshd starts inherits
them); writes the inventory; and runs COMMAND with ``SERVERBENCH_HOSTS`` set in the first load host's namespace, on the
load hosts' cores: the session runs apart from the server host, whose core runs the server and its sampler's round
trips only (a perf session starts the server there over SSH: measure.serving.remote).  ``--apart`` runs COMMAND here
instead, outside the namespaces (a controller on a machine of its own, on every core); ``--on-server`` in the server's
namespace, on its cores (a script of one's own that starts a server where it runs).  Everything is removed afterwards,
when COMMAND fails or is interrupted too, and the exit status is COMMAND's.

The namespaces share this machine's cores and its kernel: they show that the suite runs across hosts, and move the
generators off the server's core; they do not add a network's round trip (this kernel has no netem).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError, HostError
from ..processes.executors import guarded
from .inventory import ENV_VAR, Host, Inventory, render

SUBNET_PREFIX = "198.18"  # RFC 2544: reserved for benchmarking networks
FIRST_HOST = 10  # the hosts' last octet counts up from here; the bridge is .1
SSHD = "/usr/sbin/sshd"
READY_TIMEOUT_S = 10.0
# Where COMMAND runs: the first load host's namespace (the default: the session apart from the server host), the
# server host's, or here outside the namespaces.
LOAD, SERVER, HERE = "load", "server", "here"
WITHOUT = (
    "or run without simulated hosts: the suite on this machine alone (no --perf-hosts), or on real hosts with an "
    "inventory of your own (docs/hosts.md)"
)


@dataclass(frozen=True)
class Planned:
    """One simulated host: its namespace, link, address and cores."""

    name: str
    role: str
    namespace: str
    veth: str
    address: str
    cores: tuple[int, ...]


def preflight() -> None:
    """Refuse at once, with the fix, where namespaces cannot be made: not root, no ip, no sshd."""
    problems = []
    if os.geteuid() != 0:
        problems.append("it must run as root (it creates network namespaces): run it with sudo")
    if shutil.which("ip") is None:
        problems.append("`ip` (iproute2) is not installed: apt-get install iproute2")
    if not os.access(SSHD, os.X_OK):
        problems.append(f"{SSHD} is not installed: apt-get install openssh-server (./run installs it where it may)")
    for tool in ("ssh", "ssh-keygen"):
        if shutil.which(tool) is None:
            problems.append(f"{tool} is not installed: apt-get install openssh-client")
    if problems:
        raise ConfigError(
            "serverbench hosts simulate cannot create hosts here: " + "; ".join(problems) + f"; {WITHOUT}"
        )


def split_cores(cores: Sequence[int], load: int, backends: bool) -> dict[str, tuple[int, ...]]:
    """Cores per role: the server the first half, the load hosts and the backends the rest (shared among them), so
    the server's cores run the server alone, as a lab's server machine does (on the server's cores, MongoDB's share of
    a /mongo-small cell raised the neighbours flag on 34 cells of the default run); with one core everything shares
    it."""
    cores = tuple(sorted(cores))
    if len(cores) < 2:
        plan = {"server": cores, "load": cores}
    else:
        half = len(cores) // 2
        plan = {"server": cores[:half], "load": cores[half:]}
    if backends:
        plan["backends"] = plan["load"]
    return plan


def plan(load: int, backends: bool, tag: str, subnet: int, cores: Sequence[int]) -> tuple[Planned, ...]:
    """The hosts of a simulation: names, namespaces (``sb<tag>-<name>``), links, addresses and cores."""
    if load < 1:
        raise ConfigError(f"--load {load}: a simulation needs at least one load host (--load 1)")
    if load > 200:
        raise ConfigError(f"--load {load}: at most 200 load hosts fit one simulated subnet")
    split = split_cores(cores, load, backends)
    roles = [("server", "server")] + [(f"load{i + 1}", "load") for i in range(load)]
    roles += [("backends", "backends")] if backends else []
    return tuple(
        Planned(
            name=name,
            role=role,
            namespace=f"sb{tag}-{name}",
            veth=f"sb{tag}v{i}",
            address=f"{SUBNET_PREFIX}.{subnet}.{FIRST_HOST + i}",
            cores=split[role],
        )
        for i, (name, role) in enumerate(roles)
    )


def free_subnet(taken: str) -> int:
    """A third octet for 198.18.X.0/24 that no address of ``taken`` (``ip -4 -o addr`` output) uses."""
    used = {int(part.split(".")[2]) for part in taken.split() if part.startswith(f"{SUBNET_PREFIX}.")}
    for candidate in range(100, 256):
        if candidate not in used:
            return candidate
    raise ConfigError(f"every {SUBNET_PREFIX}.X.0/24 subnet is in use here; remove the old simulations' bridges")


def sshd_config(host: Planned, folder: Path) -> str:
    """An sshd that takes only the simulation's key, on the host's address."""
    return "\n".join(
        [
            f"ListenAddress {host.address}",
            "Port 22",
            f"HostKey {folder / ('hostkey-' + host.name)}",
            f"PidFile {folder / ('sshd-' + host.name + '.pid')}",
            f"AuthorizedKeysFile {folder / 'authorized_keys'}",
            "StrictModes no",
            "UsePAM no",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            "PubkeyAuthentication yes",
            "ClientAliveInterval 1",  # a lost controller ends its sessions here within seconds, and so the tethers'
            "ClientAliveCountMax 3",
            "MaxSessions 200",
            "MaxStartups 200",
            "PrintMotd no",
            "LogLevel ERROR",
            "",
        ]
    )


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise HostError(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}; {WITHOUT}")


@dataclass
class Simulation:
    """The namespaces, links, daemons and files of one simulation; :meth:`remove` takes them all away."""

    load: int
    backends: bool = False
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="sb-hosts-")))
    tag: str = field(default_factory=lambda: secrets.token_hex(2))
    hosts: tuple[Planned, ...] = ()
    bridge: str = ""
    _daemons: list[subprocess.Popen] = field(default_factory=list)
    _made: list[tuple[str, ...]] = field(default_factory=list)  # what remove() undoes, newest first

    @property
    def inventory_path(self) -> Path:
        return self.folder / "hosts.toml"

    def create(self) -> Inventory:
        """Make the hosts and their sshds; the inventory written to ``inventory_path``."""
        preflight()
        taken = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True).stdout
        subnet = free_subnet(taken.replace("/", " "))
        self.hosts = plan(self.load, self.backends, self.tag, subnet, sorted(os.sched_getaffinity(0)))
        self.bridge = f"sb{self.tag}br"
        _ip("link", "add", self.bridge, "type", "bridge")
        self._made.append(("link", "del", self.bridge))
        _ip("addr", "add", f"{SUBNET_PREFIX}.{subnet}.1/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for host in self.hosts:
            _ip("netns", "add", host.namespace)
            self._made.append(("netns", "del", host.namespace))
            peer = f"{host.veth}p"
            _ip("link", "add", host.veth, "type", "veth", "peer", "name", peer)
            self._made.append(("link", "del", host.veth))
            _ip("link", "set", host.veth, "master", self.bridge)
            _ip("link", "set", host.veth, "up")
            _ip("link", "set", peer, "netns", host.namespace)
            _ip("-n", host.namespace, "link", "set", peer, "name", "eth0")
            _ip("-n", host.namespace, "addr", "add", f"{host.address}/24", "dev", "eth0")
            _ip("-n", host.namespace, "link", "set", "eth0", "up")
            _ip("-n", host.namespace, "link", "set", "lo", "up")
        self._keys()
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # sshd's privilege separation folder
        for host in self.hosts:
            config = self.folder / f"sshd-{host.name}.conf"
            config.write_text(sshd_config(host, self.folder))
            daemon = subprocess.Popen(
                guarded(["ip", "netns", "exec", host.namespace, SSHD, "-D", "-e", "-f", str(config)], host.cores),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=open(self.folder / f"sshd-{host.name}.log", "wb"),
                start_new_session=True,
            )
            self._daemons.append(daemon)
        for host, daemon in zip(self.hosts, self._daemons):
            self._wait_listening(host, daemon)
        inventory = Inventory(
            tuple(
                Host(
                    name=h.name,
                    role=h.role,
                    address=h.address,
                    env=sys.prefix,
                    user="root",
                    identity=str(self.folder / "client"),
                    known_hosts=str(self.folder / "known_hosts"),
                    cores=h.cores,
                )
                for h in self.hosts
            ),
            str(self.inventory_path),
        )
        self.inventory_path.write_text(render(inventory))
        return inventory

    def _keys(self) -> None:
        def keygen(path: Path) -> str:
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "serverbench-simulate", "-f", str(path)],
                check=True,
                stdin=subprocess.DEVNULL,
            )
            return path.with_suffix(".pub").read_text().split()[:2]

        kind, key = keygen(self.folder / "client")
        (self.folder / "authorized_keys").write_text(f"{kind} {key}\n")
        known = []
        for host in self.hosts:
            kind, key = keygen(self.folder / f"hostkey-{host.name}")
            known.append(f"{host.address} {kind} {key}")
        (self.folder / "known_hosts").write_text("\n".join(known) + "\n")

    def _wait_listening(self, host: Planned, daemon: subprocess.Popen) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            try:
                with socket.create_connection((host.address, 22), timeout=0.5):
                    return
            except OSError:
                pass
            if daemon.poll() is not None or time.monotonic() > deadline:
                log = (self.folder / f"sshd-{host.name}.log").read_text(errors="replace")[-500:]
                raise HostError(
                    f"the sshd of simulated host {host.name} ({host.namespace}) did not listen on {host.address}:22 "
                    f"within {READY_TIMEOUT_S:g} s: {log.strip() or 'no output'}; {WITHOUT}"
                )
            time.sleep(0.05)

    def command(self, argv: Sequence[str], where: str = LOAD) -> list[str]:
        """``argv`` as run ``where``: on the first load host (:data:`LOAD`) or the server host (:data:`SERVER`), in its
        namespace, on its cores; here (:data:`HERE`) as it is."""
        if where == HERE:
            return list(argv)
        host = next(h for h in self.hosts if h.role == where)
        return ["ip", "netns", "exec", host.namespace, "taskset", "-c", ",".join(map(str, host.cores)), *argv]

    def remove(self) -> None:
        """Stop every process in the namespaces (each started through them), the sshds (by pid), then the links,
        namespaces and files; what is already gone is skipped."""
        for host in self.hosts:
            pids = subprocess.run(["ip", "netns", "pids", host.namespace], capture_output=True, text=True).stdout
            for pid in pids.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
        for daemon in self._daemons:
            if daemon.poll() is None:
                daemon.kill()
            daemon.wait()
        for undo in reversed(self._made):
            subprocess.run(["ip", *undo], capture_output=True)
        self._made.clear()
        shutil.rmtree(self.folder, ignore_errors=True)


def run(load: int, backends: bool, argv: Sequence[str], out=sys.stderr, where: str = LOAD) -> int:
    """Create the hosts, run ``argv`` ``where`` (:meth:`Simulation.command`) with ``SERVERBENCH_HOSTS`` set, remove the
    hosts; COMMAND's exit status (128 + the signal when a signal stopped it or us).  Run on a load host or here, it is
    apart from the server host: a perf session starts its servers there over SSH; a counted session and the gate
    hand themselves over to it (hosts.handover)."""
    if not argv:
        raise ConfigError("serverbench hosts simulate needs a command after --, e.g. -- ./run perf")
    simulation = Simulation(load, backends)
    received: list[int] = []

    def forward(signum, _frame) -> None:
        received.append(signum)
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    child: subprocess.Popen | None = None
    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        inventory = simulation.create()
        hosts = ", ".join(f"{h.name} {h.address} cores {','.join(map(str, h.cores))}" for h in simulation.hosts)
        shown = {LOAD: "on load1", SERVER: "on the server host", HERE: "here, outside the namespaces"}[where]
        print(f"serverbench hosts simulate: {hosts}; inventory {inventory.path}; the command runs {shown}", file=out)
        if received:
            return 128 + received[0]
        command = simulation.command(argv, where)
        child = subprocess.Popen(command, env={**os.environ, ENV_VAR: str(simulation.inventory_path)})
        while True:
            try:
                code = child.wait()
                break
            except KeyboardInterrupt:  # pragma: no cover - the handler above takes SIGINT
                continue
        return code if code >= 0 else 128 - code
    finally:
        simulation.remove()
        for s, handler in previous.items():
            signal.signal(s, handler)
