"""A server on the server host, started from a session apart: over SSH, on a tether, ended by its pid.

When the inventory's server host is not the machine the session runs on (docs/hosts.md), the variant's command is
filled in for that host (its environment's interpreter, its serverbench package, the project's ``checkout`` there) and
started there on a tether (hosts.ssh.start), pinned to the server host's cores: the tether leads a process group of its
own, which the server and every worker it forks are in.  It is ready when its ready path answers 2xx from here (the
same readiness watch as the local executors', processes.readiness), which is what the load hosts reach too.  It is
ended by that group's pid (SIGTERM, SIGKILL after a grace: hosts.ssh.stop); and when this session's SSH link to the
host ends (the session killed, the link lost) the tether ends the group itself.  Its tree is sampled there
(measure.host.remotetree).  The same contract as processes.executors.ManagedProcess: ``pid``, ``url``, ``alive()``,
``returncode``, ``log_tail()``, ``stop()``, ``kill()``.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from http.client import HTTPConnection, HTTPException
from pathlib import Path

from ...errors import HostError, ServerStartError
from ...hosts import procstat, ssh
from ...hosts.channel import StatChannel
from ...hosts.connected import ConnectedHosts
from ...hosts.places import PACKAGE
from ...processes.readiness import ReadinessWatch
from ..host.remotetree import RemoteTreeSampler

POLL_S = 0.05
# Asked of the server host's interpreter: a port free on its address there (this machine's ports say nothing of it).
FREE_PORT = "import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])"


def there(path: str, package: str | None, root: str | None, checkout: str | None) -> str:
    """``path`` as the server host names it: this serverbench package's folder as its own (``package``), and this
    project's folder (``root``) as its ``checkout``; any other path the same (a shared filesystem, or alike hosts)."""
    if package and path.startswith(PACKAGE):
        return package + path[len(PACKAGE) :]
    if root and checkout and (path == root or path.startswith(root.rstrip("/") + "/")):
        return checkout.rstrip("/") + path[len(root.rstrip("/")) :]
    return path


def free_port_there(hosts: ConnectedHosts) -> int:
    """A TCP port free on the server host's address, asked there (one round trip)."""
    server = hosts.inventory.server
    said = hosts.connections.python(server, FREE_PORT, server.address).strip()
    if not said.isdigit():
        raise HostError(f"the server host {server.describe()} named no free port ({said[-200:]!r}); check its env")
    return int(said)


class RemoteServer:
    """A variant's command on the server host (see the module's docstring)."""

    def __init__(
        self,
        what: str,
        argv: Sequence[str],
        port: int,
        hosts: ConnectedHosts,
        *,
        ready_path: str | None,
        cwd: str | None,
        env: Mapping[str, str],
        timeout: float = 30.0,
    ):
        self.what, self.argv, self.port, self.hosts = what, list(argv), port, hosts
        self.host = hosts.inventory.server
        self.url = f"http://{self.host.address}:{port}"
        self.ready_path, self.cwd, self.env, self.timeout = ready_path, cwd, dict(env), timeout
        self._folder = tempfile.mkdtemp(prefix="sb-server-")
        self._tethered: ssh.Tethered | None = None
        self._units = (100, 4096)  # the host's clock ticks a second and page size: asked as it starts
        self._channel: StatChannel | None = None  # the sampler's shell there, opened once it is ready

    @property
    def command(self) -> str:
        return f"{self.host.name}: " + " ".join(self.argv)

    def start(self) -> RemoteServer:
        """Start it there and wait until it answers; a ServerStartError with its output's tail when it does not."""
        connections = self.hosts.connections
        self._tethered = ssh.start(connections, self.host, self.argv, self._folder, env=self.env, cwd=self.cwd)
        watch = ReadinessWatch()
        deadline = time.monotonic() + self.timeout
        while True:
            if not self._tethered.running():
                self._tethered.wait(0)
                code = self._tethered.returncode
                self.stop()
                raise ServerStartError(
                    self.what,
                    f"it exited with code {code} on {self.host.name} before it was ready"
                    if code is not None
                    else f"its tether on {self.host.describe()} did not start it",
                    self.command,
                    self._last_output,
                )
            seen = watch.see(self._status(), time.monotonic())
            if seen == "ready":
                break
            if seen == "broken" or time.monotonic() > deadline:
                self.kill()
                reason = (
                    f"it answered GET {self.ready_path} with status {watch.last_status}, not 2xx: fix the app"
                    if seen == "broken"
                    else f"not ready within {self.timeout:g} s on {self.host.name} (raise --perf-start-timeout if it "
                    "is just slow)"
                )
                raise ServerStartError(self.what, reason, self.command, self._last_output)
            time.sleep(POLL_S)
        self._tethered.wait_pid()
        # The host's clock ticks and page size, and the sampler's shell there, now: not as a window opens.
        self._units = procstat.units(connections.run(self.host, procstat.UNITS).stdout.decode())
        self._channel = StatChannel(connections, self.host)
        return self

    def _status(self) -> int | None:
        """The status its ready path answers now (None: nothing answers yet); without a ready path, 200 once its port
        takes a connection."""
        conn = HTTPConnection(self.host.address, self.port, timeout=2.0)
        try:
            if self.ready_path is None:
                conn.connect()
                return 200
            conn.request("GET", self.ready_path)
            return conn.getresponse().status
        except (OSError, HTTPException):
            return None
        finally:
            conn.close()

    @property
    def pid(self) -> int | None:
        """Its process group's pid on the server host (the tether's: the server and its workers are in it)."""
        return self._tethered.pid if self._tethered is not None else None

    def alive(self) -> bool:
        return self._tethered is not None and self._tethered.running()

    @property
    def returncode(self) -> int | None:
        if self._tethered is None or self._tethered.running():
            return None
        self._tethered.wait(0)
        return self._tethered.returncode

    def log_tail(self, lines: int = 25) -> str:
        output = self._tethered.output() if self._tethered is not None else self._last_output
        return "\n".join(output.splitlines()[-lines:])

    _last_output = ""  # what it printed, kept as it is stopped (its files go)

    def sampler(self) -> RemoteTreeSampler:
        """The window's sampler of its tree there (one round trip a sample)."""
        if self._channel is None:
            raise HostError(f"{self.what} on {self.host.describe()} is not running: no tree to sample there")
        return RemoteTreeSampler(self._channel, self.pid, self.pid, self._units, cores=self.host.cores)

    def stop(self, grace_s: float = 10.0) -> None:
        """End its group there by its pid: SIGTERM, SIGKILL after ``grace_s``."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self._tethered is not None:
            ssh.stop(self.hosts.connections, self._tethered, grace_s=grace_s)
            self._last_output = self._tethered.output()
            for path in (self._tethered.out, self._tethered.err):
                path.unlink(missing_ok=True)
            self._tethered = None
        if os.path.isdir(self._folder):
            os.rmdir(self._folder)

    def kill(self) -> None:
        """End it at once (SIGKILL after no grace): a server whose measurements are over has nothing to finish."""
        self.stop(grace_s=0.0)


def project_root(path: Path) -> str | None:
    """The git checkout ``path`` is in, or None outside one."""
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return str(folder)
    return None
