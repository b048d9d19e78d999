"""Starting a variant: fill its command template and hand it to an executor.

The pool keeps at most one server running, so an idle server never competes for the CPU
with the one under load, and restarts a server that died so later tests are not poisoned.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...catalog.apps import App
from ...catalog.contract import Endpoint
from ...catalog.matrix import Cell
from ...catalog.variants import Variant
from ...errors import VerificationError
from ...hosts.connected import ConnectedHosts
from ...processes.executors import LOOPBACK, ManagedProcess, free_port
from ..host.gil import VAR as GIL_VAR
from ..host.gil import probe_env
from ..host.interpreter import free_threaded
from ..host.remotetree import RemoteTreeSampler
from ..host.sampling import TreeSampler
from .bytecode import bytecode_cache
from .remote import RemoteServer, free_port_there, project_root, there
from .verify import verify

HEAP_VAR = "SERVERBENCH_HEAP_DIR"  # the apps' heap knob (apps/injected_work.py): the folder they write to


@dataclass
class RunningServer:
    """A server to drive: started by serverbench (with its process) or external (--perf-target)."""

    name: str
    url: str
    process: ManagedProcess | RemoteServer | None = None
    external_pid: int | None = None
    app: str = ""
    heap_dir: str | None = None  # where its processes write their Python heap figures (SERVERBENCH_HEAP_DIR)
    gil_dir: str | None = None  # a free-threaded build's: where the GIL probe in each process writes (measure.host.gil)
    started: str = ""  # when it started (UTC, ISO 8601)
    trials: int = 0  # the trials it has served so far (the perf suite runs all of a cell's workloads on one start)

    def served(self) -> dict[str, object]:
        """Count one more trial served, and say which process served it: the record's ``extra["server"]``."""
        self.trials += 1
        return {"pid": self.pid, "started": self.started, "trial": self.trials}

    @property
    def pid(self) -> int | None:
        """The pid whose process tree is sampled: ours, or the one given with --perf-target-pid."""
        return self.process.pid if self.process is not None else self.external_pid

    @property
    def where(self) -> str | None:
        """The host it runs on when not this machine (the server host's name), else None."""
        return self.process.host.name if isinstance(self.process, RemoteServer) else None

    def sampler(self) -> TreeSampler | RemoteTreeSampler:
        """The window's sampler of its process tree: here with psutil, or on the server host over SSH (one round trip
        a sample); call only with a pid."""
        if isinstance(self.process, RemoteServer):
            return self.process.sampler()
        return TreeSampler(self.pid, heap_dir=self.heap_dir)

    def stop(self, at_once: bool = False) -> None:
        """Stop its process group (SIGTERM, then SIGKILL; ``at_once``: SIGKILL): ours only, never an external one."""
        if self.process is not None:
            self.process.kill() if at_once else self.process.stop()
            if self.gil_dir is not None:  # ours: made when it started
                shutil.rmtree(self.gil_dir, ignore_errors=True)


def interpreter() -> str:
    return "pypy" if platform.python_implementation() == "PyPy" else "cpython"


def unavailable_reason(variant: Variant, app: App | None = None, apps_dir: Path | None = None) -> str | None:
    """Why this variant (serving ``app``) cannot run with this interpreter and packages (None when it can).

    With ``apps_dir`` the files an app's own install creates there (a Node.js app's node_modules) are checked too.
    """
    app = app or variant.default_app
    if variant.unsupported:
        return f"{variant.name} is not supported: {variant.unsupported}"
    if interpreter() not in variant.interpreters:
        return f"{variant.name} does not run on {interpreter()} (supports {', '.join(variant.interpreters)})"
    limit = variant.python_limit() if interpreter() == "cpython" else None
    if limit is not None and sys.version_info[:2] >= limit[0]:
        shown = ".".join(map(str, limit[0]))
        return f"{variant.name} does not run on CPython {shown} or later ({limit[1]}): measure it on an earlier one"
    absent = [p for p in variant.programs if shutil.which(p) is None]
    if absent:
        return f"{variant.name} needs {', '.join(absent)} on PATH, which is not there: install {variant.install}"
    uninstalled = [f for f in app.installed_files if apps_dir is not None and not (Path(apps_dir) / f).exists()]
    if uninstalled:
        return (
            f"{variant.name}/{app.name} is not installed ({', '.join(uninstalled)} missing under {apps_dir}): "
            f"run `{app.install}` in the project folder"
        )
    missing = variant.missing_modules(app)
    if missing:
        return (
            f"{variant.name}/{app.name} needs {', '.join(missing)} which {sys.executable} cannot import: "
            f"`{sys.executable} -m pip install {' '.join(missing)}` (or {variant.install}; {app.install})"
        )
    return None


def server_env(
    variant: Variant, python: str, apps_dir: Path, env: Mapping[str, str] | None
) -> tuple[dict[str, str], str | None]:
    """The server's environment (the apps folder first on PYTHONPATH, unbuffered output, the bytecode cache, the
    variant's and the caller's variables) and, on a free-threaded ``python``, the GIL probe's folder (None on others)."""
    pythonpath = os.pathsep.join(p for p in (str(apps_dir), os.environ.get("PYTHONPATH", "")) if p)
    full_env = {
        "PYTHONPATH": pythonpath,
        "PYTHONUNBUFFERED": "1",
        **bytecode_cache(os.environ),
        **variant.env,
        **(env or {}),
    }
    if not free_threaded(python):
        return full_env, None
    probe = probe_env(full_env["PYTHONPATH"])  # in each of its processes, writing to a folder of its own
    return {**full_env, **probe}, probe[GIL_VAR]


def _argv(variant: Variant, app: App, python: str, host: str, port: int, apps_dir: str) -> list[str]:
    """The variant's command template filled in for ``app`` under ``python``, listening on ``host``:``port``."""
    return variant.argv(
        python=python,
        bindir=os.path.dirname(python),
        host=host,
        port=port,
        target=app.target,
        module=app.module,
        callable=app.callable,
        apps_dir=apps_dir,
    )


def start_variant(
    variant: Variant,
    *,
    apps_dir: Path,
    app: App | None = None,
    port: int | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    log_dir: Path | None = None,
    python: str | None = None,
    host: str | None = None,
    cwd: Path | None = None,
    hosts: ConnectedHosts | None = None,
) -> RunningServer:
    """Start a variant serving ``app`` (default: its reference app) on a loopback port; wait until ready.

    ``python`` runs the server under another interpreter or virtual environment (an A/B arm); ``host``: the address
    it binds to (the server host's, so load hosts reach it: docs/hosts.md), loopback when None; ``cwd``: the folder it
    starts in when not ``apps_dir`` (a counted server whose command enters its stage first, then changes to it).
    ``hosts``: the session's hosts when it runs apart from the server host: the server is started there
    (:func:`start_there`).
    """
    if hosts is not None and hosts.apart:
        return start_there(variant, hosts, apps_dir=apps_dir, app=app, port=port, env=env, timeout=timeout)
    host = host if host is not None else LOOPBACK
    port = port if port is not None else free_port()
    app = app or variant.default_app
    python = python if python is not None else sys.executable
    argv = _argv(variant, app, python, host, port, str(apps_dir))
    full_env, gil_dir = server_env(variant, python, apps_dir, env)
    name = f"{variant.name}/{app.name}"
    process = ManagedProcess(
        name,
        argv,
        port,
        ready_path=variant.ready_path,
        cwd=apps_dir if cwd is None else cwd,
        env=full_env,
        timeout=timeout,
        log_dir=log_dir,
        host=host,
    )
    # The child inherits serverbench's own environment under the one given (mirakuru adds envvars to os.environ).
    heap_dir = full_env.get(HEAP_VAR, os.environ.get(HEAP_VAR)) or None
    started = process.start()
    return RunningServer(
        variant.name,
        process.url,
        started,
        app=app.name,
        heap_dir=heap_dir,
        gil_dir=gil_dir,
        started=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )


def start_there(
    variant: Variant,
    hosts: ConnectedHosts,
    *,
    apps_dir: Path,
    app: App | None = None,
    port: int | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> RunningServer:
    """Start a variant serving ``app`` on the server host, over SSH, from a session apart (measure.serving.remote):
    its command filled in with the host's interpreter and paths, bound to its address; wait until it answers here."""
    server = hosts.inventory.server
    app = app or variant.default_app
    root = project_root(Path(apps_dir).resolve())
    package = (hosts.facts_of(server.name) or {}).get("package")

    def moved(path: str) -> str:
        return there(path, package, root, server.checkout)

    python = server.python
    apps_there = moved(str(apps_dir))
    port = port if port is not None else free_port_there(hosts)
    argv = _argv(variant, app, python, server.address, port, apps_there)
    # The same environment as here (hosts check compared them): no GIL probe there, whose folder is read here.
    full_env, _ = server_env(variant, sys.executable, Path(apps_dir), env)
    full_env = {k: os.pathsep.join(map(moved, v.split(os.pathsep))) for k, v in full_env.items()}  # PYTHONPATH too
    process = RemoteServer(
        f"{variant.name}/{app.name}",
        argv,
        port,
        hosts,
        ready_path=variant.ready_path,
        cwd=apps_there,
        env=full_env,
        timeout=timeout,
    ).start()
    return RunningServer(
        variant.name,
        process.url,
        process,
        app=app.name,
        started=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )


class ServerPool:
    """Hands out one started-and-verified server per cell (variant serving an app), stopping the previous one."""

    def __init__(
        self,
        start: Callable[[Cell], RunningServer],
        endpoints: Iterable[Endpoint],
        progress: Callable[[str, int], None] | None = None,
    ):
        self._start = start
        self._progress = progress  # told "start" and "verify" as each begins
        self._endpoints = tuple(endpoints)
        self._current: tuple[str, RunningServer] | None = None
        self._broken: dict[str, Exception] = {}

    def get(self, cell: Cell) -> RunningServer:
        """The running server of ``cell``; one that failed to start or verify fails again at once."""
        if cell.name in self._broken:
            raise self._broken[cell.name]
        if self._current is not None:
            name, server = self._current
            if name == cell.name and server.process is not None and server.process.alive():
                return server
            self.close()
        self._report("start")
        try:
            server = self._start(cell)
        except Exception as exc:
            self._broken[cell.name] = exc
            raise
        self._current = (cell.name, server)
        self._report("verify")
        try:
            served = [e for e in self._endpoints if not cell.app.lacks([e.name])]  # an app may serve part
            verify(server.url, served, f"{cell.name} ({server.url})")
        except VerificationError as exc:  # it answered, wrongly: what it printed says why (read before it stops)
            failed = exc.with_log(server.process.log_tail()) if server.process is not None else exc
            self._broken[cell.name] = failed
            self.close()
            raise failed from None
        except Exception as exc:
            self._broken[cell.name] = exc
            self.close()
            raise
        return server

    def _report(self, phase: str) -> None:
        if self._progress is not None:
            self._progress(phase, 0)

    def close(self) -> None:
        if self._current is not None:
            _, server = self._current
            self._current = None
            self._report("stop")
            server.stop(at_once=True)
