"""Processes on other hosts, through the OpenSSH client: one master connection per host, each process on a tether.

Every command goes through ``ssh`` (OpenSSH, no library of our own and no agent): a master connection per host is
opened once (``ControlMaster``) so each later command costs a round trip, not a handshake.  A process that runs beside
the trial (a server, a locust worker, a generator) is started as ``python -m serverbench.hosts.tether -- COMMAND`` in
the host's serverbench environment: in a session of its own, its process group's pid printed first, stopped by that
pid at the end of its cell, and stopped by the tether itself when the SSH session ends (the controller interrupted or
killed, or the link lost).  ``ServerAliveInterval`` makes a lost host end its sessions within seconds
(``LOST_AFTER_S``), which the caller reports with the host's name and the time.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import HostError
from ..processes.executors import guarded
from .inventory import Host
from .tether import MARK

CONNECT_TIMEOUT_S = 5
ALIVE_INTERVAL_S = 1
ALIVE_COUNT = 3
LOST_AFTER_S = ALIVE_INTERVAL_S * (ALIVE_COUNT + 1)  # at most this long from a lost link to its sessions' end
SSH_LOST = 255  # ssh's own exit status: the connection failed or was lost (not the remote command's)


def ssh_options(host: Host, control: str | None = None, forward_agent: bool = False) -> list[str]:
    """The ssh options for ``host``: no prompt ever, a bounded connect, a lost link noticed within LOST_AFTER_S;
    ``forward_agent``: the session may use this side's ssh-agent (a session handed over reaches the other hosts)."""
    options = [
        "-o",
        "BatchMode=yes",
        "-o",
        f"ConnectTimeout={CONNECT_TIMEOUT_S}",
        "-o",
        f"ServerAliveInterval={ALIVE_INTERVAL_S}",
        "-o",
        f"ServerAliveCountMax={ALIVE_COUNT}",
        "-o",
        "LogLevel=ERROR",
        "-p",
        str(host.port),
    ]
    if host.identity:
        options += ["-i", host.identity, "-o", "IdentitiesOnly=yes"]
    if host.known_hosts:
        options += ["-o", f"UserKnownHostsFile={host.known_hosts}", "-o", "StrictHostKeyChecking=yes"]
    if control:
        options += ["-o", f"ControlPath={control}"]
    if forward_agent:
        options += ["-o", "ForwardAgent=yes"]
    return options


def remote_command(argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
    """The one string ssh hands the host's shell for ``argv`` (quoted), with ``env`` set and in ``cwd``."""
    words = [shlex.quote(a) for a in argv]
    if env:
        words = ["env", *(shlex.quote(f"{k}={v}") for k, v in env.items()), *words]
    line = "exec " + " ".join(words)
    return f"cd {shlex.quote(cwd)} && {line}" if cwd else line


class Connections:
    """The master connection to each host of a run, opened on first use and closed with :meth:`close`."""

    def __init__(self, folder: str | None = None, agent: str | None = None):
        self._folder = Path(folder) if folder is not None else None  # made on first use, removed by close()
        self.agent = agent  # an ssh-agent's socket every session forwards (hosts.handover), or None: none forwarded
        self._masters: dict[Host, subprocess.Popen] = {}
        self._spawned: list[subprocess.Popen] = []  # commands not waited for (a folder's removal), reaped by close()
        self._lock = threading.Lock()

    def control(self, host: Host) -> str:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="sb-ssh-"))
        return str(self._folder / f"{host.name}.sock")

    def argv(self, host: Host, command: str) -> list[str]:
        """ssh running ``command`` on ``host`` through its master connection (opened here if need be)."""
        self.open(host)
        return ["ssh", *ssh_options(host, self.control(host), self.agent is not None), host.destination, command]

    def open(self, host: Host) -> None:
        """Open ``host``'s master connection; a HostError names the host, what ssh said and the fix."""
        with self._lock:
            master = self._masters.get(host)
            if master is not None and master.poll() is None:
                return
            control = self.control(host)
            with tempfile.TemporaryFile() as err:
                forwarding = self.agent is not None
                master = subprocess.Popen(
                    guarded(
                        [
                            "ssh",
                            "-M",
                            "-N",
                            "-o",
                            "ControlPersist=no",
                            *ssh_options(host, control, forwarding),
                            host.destination,
                        ]
                    ),
                    env={**os.environ, "SSH_AUTH_SOCK": self.agent} if forwarding else None,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    start_new_session=True,
                )
                deadline = time.monotonic() + CONNECT_TIMEOUT_S + 5
                while not os.path.exists(control):
                    if master.poll() is not None or time.monotonic() > deadline:
                        if master.poll() is None:
                            master.kill()
                        master.wait()
                        err.seek(0)
                        raise unreachable(host, err.read().decode(errors="replace"))
                    time.sleep(0.02)
            self._masters[host] = master

    def run(
        self, host: Host, command: str, timeout: float = 30.0, input: bytes | None = None
    ) -> subprocess.CompletedProcess:
        """Run ``command`` on ``host`` and wait for it (bounded by ``timeout``); ssh's own failure is a HostError."""
        try:
            done = subprocess.run(
                self.argv(host, command),
                capture_output=True,
                timeout=timeout,
                input=input,
                stdin=None if input is not None else subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise HostError(
                f"host {host.describe()} did not answer `{command[:120]}` within {timeout:g} s; check that it is up "
                "and not overloaded (serverbench hosts check)"
            ) from None
        if done.returncode == SSH_LOST:
            raise unreachable(host, done.stderr.decode(errors="replace"))
        return done

    def spawn(self, host: Host, command: str) -> None:
        """Run ``command`` on ``host`` without waiting for it (a clean-up that costs the caller no round trip);
        :meth:`close` waits for it.  A host that cannot be reached is left to the next command to report."""
        with contextlib.suppress(HostError):
            done = subprocess.Popen(
                self.argv(host, command),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            with self._lock:
                self._spawned = [p for p in self._spawned if p.poll() is None] + [done]

    def python(self, host: Host, code: str, *args: str, timeout: float = 30.0) -> str:
        """The standard output of ``code`` run by the host's serverbench interpreter; its failure is a HostError."""
        done = self.run(host, remote_command([host.python, "-c", code, *args]), timeout)
        if done.returncode != 0:
            raise HostError(
                f"host {host.describe()}: {host.python} failed (exit {done.returncode}): "
                f"{done.stderr.decode(errors='replace').strip()[-400:]}; check env = {host.env!r} in the inventory "
                "(the folder of a virtual environment with serverbench installed)"
            )
        return done.stdout.decode(errors="replace")

    def fetch(self, host: Host, path: str, timeout: float = 60.0) -> bytes:
        """The bytes of file ``path`` on ``host``."""
        done = self.run(host, remote_command(["cat", path]), timeout)
        if done.returncode != 0:
            raise HostError(
                f"host {host.describe()}: cannot read {path}: {done.stderr.decode(errors='replace').strip()[-300:]}"
            )
        return done.stdout

    def close(self) -> None:
        """Close every master connection (each is our own child, stopped by its pid), once the commands spawned
        through them have ended (bounded: a stuck one is ended by its pid too)."""
        with self._lock:
            for spawned in self._spawned:
                try:
                    spawned.wait(15)
                except subprocess.TimeoutExpired:
                    end(spawned)
            self._spawned.clear()
            for master in self._masters.values():
                end(master)
            self._masters.clear()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def end(process: subprocess.Popen, grace_s: float = 5.0) -> None:
    """End a local process of ours (an ssh): SIGTERM, SIGKILL after ``grace_s``, reaped either way."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def unreachable(host: Host, said: str) -> HostError:
    """The error for a host ssh cannot reach: what ssh said, and the fix."""
    said = " ".join(said.split())[-300:] or "no message"
    return HostError(
        f"host {host.describe()} cannot be reached over SSH ({said}); check its address, port, user, identity and "
        f"known_hosts in the inventory, and that `ssh -p {host.port} {host.destination} true` works from here"
    )


@dataclass(eq=False)  # each process is itself: kept in sets by identity (hosts.places)
class Tethered:
    """A process started on a host on a tether: its remote pid (its process group), and how it ended."""

    host: Host
    argv: tuple[str, ...]
    local: subprocess.Popen
    out: Path
    err: Path
    started: float = field(default_factory=time.monotonic)
    pid: int | None = None
    returncode: int | None = None
    cpu_s: float | None = None
    lost_at: float | None = None  # seconds after its start when ssh reported the host lost

    def wait_pid(self, timeout: float = 15.0) -> int:
        """The remote pid, once the tether has printed it."""
        deadline = time.monotonic() + timeout
        while self.pid is None:
            self._read_marks()
            if self.pid is not None:
                break
            if self.local.poll() is not None or time.monotonic() > deadline:
                self._read_marks()
                if self.pid is None:
                    raise HostError(
                        f"host {self.host.describe()}: {self.argv[0]} did not start there: {self.output()[-400:]}"
                    )
            time.sleep(0.02)
        return self.pid

    def _read_marks(self) -> None:
        for line in self._err_lines():
            if not line.startswith(MARK):
                continue
            if " pid=" in line and self.pid is None:
                self.pid = int(line.split("pid=")[1].split()[0])
            elif " exit=" in line:
                got = json.loads(line.split("exit=", 1)[1])
                self.returncode, self.cpu_s = int(got["returncode"]), float(got["cpu_s"])

    def _err_lines(self) -> list[str]:
        try:
            return self.err.read_text(errors="replace").splitlines()
        except OSError:
            return []

    def output(self) -> str:
        """What it printed, standard output then error, without the tether's own lines."""
        try:
            out = self.out.read_text(errors="replace")
        except OSError:
            out = ""
        err = "\n".join(line for line in self._err_lines() if not line.startswith(MARK))
        return f"{out}{err}"

    def stdout(self) -> str:
        try:
            return self.out.read_text(errors="replace")
        except OSError:
            return ""

    def stderr(self) -> str:
        return "\n".join(line for line in self._err_lines() if not line.startswith(MARK))

    def running(self) -> bool:
        return self.local.poll() is None

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait for it to end (None after ``timeout``); its exit status, or None when the host was lost."""
        try:
            code = self.local.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        if self.local.stdin is not None and not self.local.stdin.closed:
            self.local.stdin.close()
        self._read_marks()
        if code == SSH_LOST and self.returncode is None:
            self.lost_at = time.monotonic() - self.started
        return self.returncode


def start(
    connections: Connections,
    host: Host,
    argv: Sequence[str],
    folder: str | os.PathLike,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    before: Callable[[str], str] | None = None,
) -> Tethered:
    """Start ``argv`` on ``host`` on a tether (pinned to the host's cores, if the inventory gives them); its output
    goes to files in ``folder`` here.  ``before``: the remote shell line wrapped (a folder made first).  It does not
    wait for the remote pid: :meth:`Tethered.wait_pid` reads it when it is needed."""
    pinned = ["taskset", "-c", ",".join(str(c) for c in host.cores)] if host.cores else []
    command = remote_command([host.python, "-m", "serverbench.hosts.tether", "--", *pinned, *argv], env, cwd)
    if before is not None:
        command = before(command)
    folder = Path(folder)
    stem = f"{host.name}-{Path(argv[0]).name}-{time.monotonic_ns()}"
    out, err = folder / f"{stem}.out", folder / f"{stem}.err"
    with open(out, "wb") as o, open(err, "wb") as e:
        local = subprocess.Popen(
            guarded(connections.argv(host, command)),
            stdin=subprocess.PIPE,  # the tether's lifeline: closed, it stops the remote group
            stdout=o,
            stderr=e,
            start_new_session=True,
        )
    return Tethered(host, tuple(argv), local, out, err)


def stop(connections: Connections, process: Tethered, grace_s: float = 5.0) -> int | None:
    """Stop a tethered process by its pid (SIGTERM to its group there, SIGKILL after ``grace_s``), then its ssh."""
    if process.running() and process.pid is None:
        with contextlib.suppress(HostError):
            process.wait_pid(5.0)  # not printed yet: it is starting; without it, closing the session stops it
    if process.running() and process.pid is not None:
        for signal_name, wait in (("TERM", grace_s), ("KILL", 5.0)):
            try:
                connections.run(process.host, f"kill -{signal_name} -- -{int(process.pid)} 2>/dev/null || true", 15)
            except HostError:
                break  # the host is gone: closing the session below is all that is left
            if process.wait(wait) is not None or not process.running():
                break
    if process.running():
        try:
            process.local.stdin.close()  # the tether stops its group on end-of-file
        except OSError:
            pass
        if process.wait(5.0) is None and process.running():
            process.local.kill()
            process.local.wait()
    process.wait(0)  # reaped: its pipe to the tether closed, its marks read
    return process.returncode
