"""A load host as a place to run generators (processes.places): each process on a tether over SSH, its CPU from
the tether's wait4, its files read back with ``cat``.

Paths this controller would pass (its interpreter, the serverbench package's locustfiles, a tool found here) are
rewritten to the host's own (its environment's interpreter and package, the tool the probe found there), and only
the environment variables a driver sets beyond this process's own are sent.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import shlex
import sys
import tarfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GeneratorError, HostError
from ..processes.executors import GeneratorRun, Reaped
from . import ssh
from .inventory import Host

PACKAGE = str(Path(__file__).resolve().parent.parent)  # this controller's serverbench package folder


@dataclass(eq=False)
class HostPlace:
    """Generators on ``host``; ``facts`` is what its probe said (hosts.probe: its tools, cores, package folder)."""

    host: Host
    connections: ssh.Connections
    facts: Mapping = field(default_factory=dict)
    running: set = field(default_factory=set)  # its tethered processes now: stop_all() ends them
    folders: list = field(default_factory=list)  # its temporary folders now, made by the next command sent there

    def stop_all(self) -> None:
        """Stop every process this place is running (another host of the same run failed)."""
        for process in list(self.running):
            if process.running():
                ssh.stop(self.connections, process)

    @property
    def name(self) -> str:
        return self.host.name

    @property
    def address(self) -> str:
        return self.host.address

    @property
    def kernel(self) -> str | None:
        return self.facts.get("kernel")

    @property
    def rtt_ms(self) -> float | None:
        """Its round trip to the server host, measured there by the check (hosts.check.rtt)."""
        return self.facts.get("rtt_ms")

    @property
    def cores(self) -> int:
        if self.host.cores:
            return len(self.host.cores)
        return int(self.facts.get("cores") or 1)

    def argv(self, argv: Sequence[str]) -> list[str]:
        """``argv`` with this controller's paths replaced by the host's."""
        remote_package = self.facts.get("package") or PACKAGE
        tools = self.facts.get("tools") or {}
        out = []
        for i, arg in enumerate(argv):
            if i == 0 and arg == sys.executable:
                arg = self.host.python
            elif i == 0 and os.path.basename(arg) in tools:
                found = tools[os.path.basename(arg)]
                if not found:
                    raise HostError(
                        f"host {self.host.describe()} has no {os.path.basename(arg)}: install it there "
                        "(./run builds oha; apt-get install wrk), then `serverbench hosts check`"
                    )
                arg = found
            out.append(arg.replace(PACKAGE, remote_package) if PACKAGE in arg else arg)
        return out

    @staticmethod
    def env(env: Mapping[str, str] | None) -> dict[str, str]:
        """What a driver set beyond this process's environment: only that goes to the host."""
        return {k: v for k, v in (env or {}).items() if os.environ.get(k) != v}

    @contextlib.contextmanager
    def folder(self, prefix: str = "serverbench-gen-") -> Iterator[str]:
        """A temporary folder on the host, for one run's files.  It costs no round trip of its own: the next command
        sent there makes it (``mkdir -p``, in :meth:`made`), and it is removed in the background afterwards."""
        path = f"/tmp/{prefix}{secrets.token_hex(8)}"
        self.folders.append(path)
        try:
            yield path
        finally:
            self.folders.remove(path)
            self.connections.spawn(self.host, f"rm -rf {shlex.quote(path)}")

    def made(self, command: str) -> str:
        """``command`` run after making this place's temporary folders (a no-op for those already there)."""
        if not self.folders:
            return command
        return f"mkdir -p -m 700 {' '.join(shlex.quote(f) for f in self.folders)} && {command}"

    def _start(self, argv, cpus, env) -> ssh.Tethered:
        if cpus is not None:
            argv = ["taskset", "-c", ",".join(str(c) for c in cpus), *argv]
        log_folder = Path(os.environ.get("TMPDIR", "/tmp"))
        process = ssh.start(
            self.connections, self.host, self.argv(argv), log_folder, env=self.env(env), before=self.made
        )
        self.running.add(process)  # its pid is read when it is needed (ssh.stop), not waited for here
        return process

    def run(self, argv, timeout, cpus=None, env=None, main_thread=False) -> GeneratorRun:
        started = time.monotonic()
        process = self._start(argv, cpus, env)
        try:
            code = process.wait(timeout)
            if code is None and process.running():
                ssh.stop(self.connections, process)
                raise GeneratorError(
                    f"{argv[0]} on host {self.host.name} did not finish within {timeout:g} s and was stopped"
                )
            if process.lost_at is not None:
                raise HostError(lost(self.host, process.lost_at, argv[0]))
            if process.returncode is None:
                raise HostError(
                    f"host {self.host.describe()}: {argv[0]} did not start there: {process.output()[-400:]}"
                )
            return GeneratorRun(
                tuple(argv),
                process.returncode,
                process.stdout(),
                process.stderr(),
                time.monotonic() - started,
                process.cpu_s or 0.0,
            )
        except BaseException:
            if process.running():
                ssh.stop(self.connections, process)
            raise
        finally:
            self._remove(process)

    def start(self, argv, log, cpus=None, env=None, main_thread=False) -> Background:
        return Background(self, self._start(argv, cpus, env), log)

    def read(self, path: str) -> bytes:
        return self.connections.fetch(self.host, path)

    def write(self, path: str, data: bytes) -> None:
        done = self.connections.run(self.host, self.made(f"cat > {shlex.quote(path)}"), input=data)
        if done.returncode != 0:
            raise HostError(f"host {self.host.describe()}: cannot write {path}: {done.stderr.decode()[-300:]}")

    def collect(self, folder: str, patterns: Sequence[str]) -> dict[str, bytes]:
        """The matching files of ``folder`` on the host, in one round trip (a tar stream of them)."""
        names = " ".join(patterns)  # globs of the driver's own file names: no quoting wanted
        done = self.connections.run(
            self.host,
            self.made(
                f'cd {shlex.quote(folder)} && for f in {names}; do [ -e "$f" ] && printf \'%s\\0\' "$f"; done '
                "| tar --null -T - -cf -"
            ),
        )
        if done.returncode != 0:
            raise HostError(
                f"host {self.host.describe()}: cannot read the files in {folder}: {done.stderr.decode()[-300:]}"
            )
        with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
            return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}

    def list(self, folder: str, pattern: str) -> list[str]:
        done = self.connections.run(
            self.host,
            self.made(f'cd {shlex.quote(folder)} && for f in {pattern}; do [ -e "$f" ] && echo "$f"; done; true'),
        )
        return [f"{folder}/{name}" for name in done.stdout.decode().split()]

    def _remove(self, process: ssh.Tethered) -> None:
        self.running.discard(process)
        for path in (process.out, process.err):
            path.unlink(missing_ok=True)


def lost(host: Host, after_s: float, what: str) -> str:
    """The message for a host lost mid-run."""
    return (
        f"host {host.describe()} was lost {after_s:.1f} s into the run of {os.path.basename(what)} (ssh ended: its "
        "sshd or its link went away); the cell fails, the other hosts' processes are stopped, and the session goes on. "
        "Check the host (serverbench hosts check)"
    )


@dataclass
class Background:
    """A helper process on a host (a locust worker), reaped like the executors' BackgroundProcess."""

    place: HostPlace
    process: ssh.Tethered
    log: str

    def reap(self, linger_s: float) -> Reaped:
        if self.process.wait(linger_s) is None and self.process.running():
            ssh.stop(self.place.connections, self.process)
        output = self.process.output()
        with contextlib.suppress(OSError):
            Path(self.log).write_text(output)
        self.place._remove(self.process)
        code = self.process.returncode
        if code is None and self.process.lost_at is not None:
            output += "\n" + lost(self.place.host, self.process.lost_at, self.process.argv[0])
        return Reaped(code if code is not None else -1, self.process.cpu_s or 0.0, output)
