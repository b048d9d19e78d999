"""The only code that starts and stops processes: servers, backends and the load generator.

Built on mirakuru: every process starts in its own session (``setsid``), readiness is polled
(HTTP status or TCP) with a timeout, and stopping signals the whole process group.  On top of
that each child gets ``PR_SET_PDEATHSIG`` so that if pytest itself is killed (SIGKILL), the
server, backend or generator is told to exit rather than left behind.  No Python runs between
fork and exec (see :func:`guarded`).  A process still running
when the interpreter exits without its fixtures' teardown (a Ctrl-C during the session's last
writes) is stopped gracefully at exit, and mirakuru's own atexit sweep then kills anything
still carrying its environment marker.  docs/lab/robustness.md holds the census of interruptions.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.client import HTTPConnection, HTTPException
from pathlib import Path
from typing import Any
from urllib.parse import urlunsplit

import psutil
from mirakuru import HTTPExecutor, TCPExecutor
from mirakuru.exceptions import AlreadyRunning, ProcessExitedWithError, TimeoutExpired

from ..errors import ConfigError, GeneratorError, MissingBinaryError, ServerStartError
from .ports import PORT_RANGE, free_port  # noqa: F401  (callers import them from here)
from .readiness import ReadinessWatch
from .runqueue import RunQueue, RunQueueSampler, Sample, between

LOOPBACK = "127.0.0.1"
_EXCEPTION_LINE = re.compile(r"^\s*[\w.]*(Error|Exception)\b.*:")
# util-linux's: on every Linux this runs on (Debian's util-linux is essential).  Without setpriv the parent-death signal
# is not set, as on a system without prctl: the atexit sweeps below still apply.
_SETPRIV = shutil.which("setpriv")


def guarded(argv: Sequence[str], cpus: Sequence[int] | None = None) -> list[str]:
    """``argv`` as started here: under ``setpriv --pdeathsig TERM`` (SIGTERM when the thread that started it ends) and,
    given ``cpus``, under ``taskset -c`` (those cores).  Each wrapper sets its part and execs the next in the same
    process, so the pid, the process's CPU time (wait4) and its command line once running are ``argv``'s own.

    Popen starts it with ``start_new_session`` (setsid, done in C) and no ``preexec_fn``: with one, the interpreter runs
    its Python at-fork hooks (logging's lock among them) around the fork, and a Ctrl-C that arrives while a large
    pytest process forks is handled inside such a hook, where it is printed as ignored and lost (the session goes on to
    its end: benchmarks/interrupt_sweep.py); a child of a threaded parent can also deadlock in a preexec_fn before exec
    (the subprocess docs' warning).  What a preexec_fn checked and this does not: a parent that
    dies between the fork and setpriv's prctl leaves the child unsignalled (the exit sweeps still apply)."""
    prefix = [_SETPRIV, "--pdeathsig", "TERM", "--"] if _SETPRIV is not None else []
    if cpus is not None:
        prefix += [require_binary("taskset", "util-linux"), "-c", ",".join(str(c) for c in cpus)]
    return [*prefix, *argv]


def _spawn(
    argv: Sequence[str], cpus: Sequence[int] | None, env: dict[str, str] | None, stdout, stderr
) -> subprocess.Popen:
    """``argv`` started :func:`guarded`, in its own session, reading nothing: a generator's or a helper's start."""
    return subprocess.Popen(
        guarded(argv, cpus), stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, env=env, start_new_session=True
    )


class _Guarded:
    """Mixin for mirakuru executors: the command :func:`guarded`, in its own session, without a preexec_fn."""

    def __init__(self, command: Sequence[str], *args: Any, **kwargs: Any):
        super().__init__(guarded(command), *args, **kwargs)  # type: ignore[call-arg]

    @property
    def _popen_kwargs(self) -> dict[str, Any]:
        kwargs = super()._popen_kwargs  # type: ignore[misc]
        kwargs.pop("preexec_fn", None)  # mirakuru's os.setsid: start_new_session does it in C
        kwargs["start_new_session"] = True
        return kwargs


class _AnsweredBroken(Exception):
    """The server answers its readiness check, with a status that says it is broken (processes.readiness)."""

    def __init__(self, status: int):
        self.status = status


class _HTTPProcess(_Guarded, HTTPExecutor):
    """Ready on a 2xx answer; a server that keeps answering another status (not 502/503/504) ends the wait at once."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.answers = ReadinessWatch()

    def after_start_check(self) -> bool:
        seen = self.answers.see(self._status(), time.monotonic())
        if seen == "broken":
            raise _AnsweredBroken(self.answers.last_status)
        return seen == "ready"

    def _status(self) -> int | None:
        """The status the ready path answers to a GET now; None when nothing answers (yet)."""
        conn = HTTPConnection(self.host, self.port, timeout=min(5.0, float(self._timeout)))
        try:
            conn.request(self.method, urlunsplit(("", "", self.url.path or "/", self.url.query, "")))
            return conn.getresponse().status
        except (OSError, HTTPException):
            return None
        finally:
            conn.close()


class _TCPProcess(_Guarded, TCPExecutor):
    pass


def require_binary(binary: str, package: str) -> str:
    """The binary's full path, or a MissingBinaryError naming the package to install."""
    path = shutil.which(binary)
    if path is None:
        raise MissingBinaryError(binary, package)
    return path


def missing_modules_in(python: str, modules: Sequence[str], timeout: float = 60.0) -> list[str]:
    """The modules that interpreter ``python`` cannot import (it is asked, bounded in time)."""
    probe = (
        "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))"
    )
    try:
        out = subprocess.run([python, "-c", probe, *modules], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(f"the interpreter {python} cannot be run ({exc}); give a python executable") from None
    if out.returncode != 0:
        raise ConfigError(f"the interpreter {python} failed ({out.stderr.strip()[-300:]}); give a working python")
    return out.stdout.split()


def port_owner(port: int) -> str:
    """Who listens on a port, for error messages."""
    try:
        for conn in psutil.net_connections(kind="tcp"):
            if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN:
                if conn.pid:
                    proc = psutil.Process(conn.pid)
                    return f"pid {conn.pid} ({' '.join(proc.cmdline())[:100]})"
                return "another process"
    except (psutil.Error, OSError):
        pass
    return "another process"


def last_exception(lines: Sequence[str]) -> str:
    """``"; the last exception in its log: <line>"`` for the last exception line of a log, else ``""``."""
    found = next((line.strip() for line in reversed(lines) if _EXCEPTION_LINE.match(line)), None)
    return f"; the last exception in its log: {found}" if found else ""


_LIVE: set[ManagedProcess] = set()  # started and not yet stopped: stopped at exit if teardown never ran


@atexit.register  # registered after mirakuru's sweep, so it runs first: a graceful stop, then the SIGKILL sweep
def _stop_leftovers() -> None:
    for process in list(_LIVE):
        process.stop()


class ManagedProcess:
    """A long-running process (server or backend) with captured output and a readiness check."""

    def __init__(
        self,
        what: str,
        argv: Sequence[str],
        port: int,
        *,
        ready_path: str | None,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        log_dir: Path | None = None,
        host: str = LOOPBACK,
    ):
        self.what = what
        self.argv = list(argv)
        self.port = port
        self.host = host  # the address it listens on: loopback, or the server host's (docs/hosts.md)
        self.url = f"http://{host}:{port}"
        log_dir = Path(log_dir or tempfile.gettempdir())
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"serverbench-{what.replace(' ', '-').replace('/', '-')}-{port}.log"
        self._log = None
        self.ready_path = ready_path
        kwargs = dict(
            cwd=str(cwd) if cwd else None,
            envvars=dict(env or {}),
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            shell=False,
        )
        if ready_path is not None:
            self._executor = _HTTPProcess(
                self.argv, url=self.url + ready_path, status=r"^2\d\d$", method="GET", **kwargs
            )  # GET: not every server answers HEAD
        else:
            self._executor = _TCPProcess(self.argv, host=host, port=port, **kwargs)

    def start(self, timeout: float | None = None) -> ManagedProcess:
        if timeout is not None:  # a restart (backends.base.revive): stop() left its own 10 s there
            self._executor._timeout = timeout
        self._log = open(self.log_path, "wb")
        self._executor._stdout = self._log
        _LIVE.add(self)
        try:
            self._start_executor()
        except ServerStartError:
            self.stop()  # the error carries the log's tail: no process, log file or exit-sweep entry is left
            raise
        return self

    def _start_executor(self) -> None:
        """Start the process and wait until it is ready; a ServerStartError says what was found and the fix."""
        try:
            self._executor.start()
        except AlreadyRunning:
            self._close_log()
            raise ServerStartError(
                self.what,
                f"port {self.port} is already in use by {port_owner(self.port)}; "
                "stop it, or pick another port (--perf-port)",
                self.command,
                "",
            ) from None
        except ProcessExitedWithError as exc:
            self._close_log()
            raise ServerStartError(
                self.what, f"it exited with code {exc.exit_code} before it was ready", self.command, self.log_tail()
            ) from None
        except _AnsweredBroken as exc:  # up, and answering its readiness check with an error: no use waiting
            self._executor.kill()
            self._close_log()
            raise ServerStartError(
                self.what,
                f"it answered GET {self.ready_path} with status {exc.status}, not 2xx, for "
                f"{self._executor.answers.grace_s:g} s{last_exception(self.log_lines())}: fix the app (or what "
                "it needs before it serves: perf_app_setup), or give an endpoint that answers 2xx first",
                self.command,
                self.log_tail(),
            ) from None
        except TimeoutExpired:
            self._close_log()
            answered = getattr(self._executor, "answers", None)
            last = (
                f"; its last answer to GET {self.ready_path} was status {answered.last_status}"
                if answered is not None and answered.last_status is not None
                else ""
            )
            raise ServerStartError(
                self.what,
                f"not ready within {self._executor._timeout:g} s{last} (raise --perf-start-timeout if it is just slow)",
                self.command,
                self.log_tail(),
            ) from None
        except FileNotFoundError as exc:
            self._close_log()
            raise ServerStartError(self.what, f"{exc.filename} does not exist", self.command, "") from None

    @property
    def command(self) -> str:
        return " ".join(self.argv)

    @property
    def pid(self) -> int | None:
        process = self._executor.process
        return process.pid if process is not None else None

    def alive(self) -> bool:
        return self._executor.running()

    @property
    def returncode(self) -> int | None:
        process = self._executor.process
        return process.poll() if process is not None else None

    def log_lines(self) -> list[str]:
        """Every line of its output so far ([] when there is no log)."""
        try:
            return self.log_path.read_text(errors="replace").rstrip().splitlines()
        except OSError:
            return []

    def log_tail(self, lines: int = 25) -> str:
        """The last lines of the output, led by the first exception line when the tail lacks it
        (servers such as gunicorn bury the real cause under their own shutdown traceback)."""
        all_lines = self.log_lines()
        if not all_lines:
            return ""
        tail = all_lines[-lines:]
        first = next((i for i, line in enumerate(all_lines) if _EXCEPTION_LINE.match(line)), None)
        if first is not None and first < len(all_lines) - lines:
            return "\n".join([f"[first error, line {first + 1}] {all_lines[first]}", "[...]", *tail])
        return "\n".join(tail)

    def kill(self) -> None:
        """Stop the whole process group at once (SIGKILL): a server whose measurements are over has nothing to finish
        (gunicorn's graceful stop of idle workers took 1-1.8 s of each cell)."""
        try:
            if self._executor.process is not None:
                self._executor.kill()
        finally:
            self._close_log()
            self.log_path.unlink(missing_ok=True)
        _LIVE.discard(self)

    def stop(self) -> None:
        """Stop the whole process group: SIGTERM, then SIGKILL after the timeout."""
        try:
            if self._executor.process is not None:
                self._executor._timeout = 10
                self._executor.stop()
        except Exception:  # a server that exits badly on SIGTERM must still be gone
            self._executor.kill()
        finally:
            self._close_log()
            self.log_path.unlink(missing_ok=True)  # any error already carried the log's tail
        _LIVE.discard(self)  # not when interrupted above: the exit sweep stops it again

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None


@dataclass(frozen=True)
class GeneratorRun:
    """What a load-generator process printed and the CPU it used."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    # Its threads' scheduler statistics through the run (processes.runqueue): time on a core and waiting for one.
    samples: tuple[Sample, ...] = ()

    @property
    def run_queue(self) -> RunQueue | None:
        """On a core and waiting for one over the whole run; None when the kernel keeps no schedstat."""
        return between(self.samples)


def pin_tree(pid: int, cpus: Sequence[int]) -> None:
    """Restrict a process and all its descendants to ``cpus``."""
    root = psutil.Process(pid)
    for proc in [root] + root.children(recursive=True):
        try:
            proc.cpu_affinity(list(cpus))
        except psutil.NoSuchProcess:
            continue


def run_generator(
    argv: Sequence[str],
    timeout: float,
    cpus: Sequence[int] | None = None,
    env: dict[str, str] | None = None,
    main_thread: bool = False,
) -> GeneratorRun:
    """Run a load generator to completion, bounded by ``timeout``, and measure its own CPU time.

    ``cpus`` pins the generator to those cores (the A/B runner gives each arm its own core).  ``main_thread``: its
    run queue is its main thread's (processes.runqueue.read), not the sum over its threads.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = _spawn(argv, cpus, env, out, err)
        _GENERATORS.add(process.pid)
        # A daemon, started inside the try: Ctrl-C while Timer.start() waits for its thread to run once left the
        # watchdog uncancelled, a non-daemon thread the interpreter waited out at exit (the generator's whole timeout,
        # 30 s after an interrupted warm-up, then a kill aimed at a pid long gone).
        watchdog = threading.Timer(timeout, _kill_group, args=(process.pid,))
        watchdog.daemon = True
        sampler = None
        try:
            watchdog.start()
            sampler = RunQueueSampler(process.pid, main_thread=main_thread)
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C while it runs: it must not outlive the trial
            _kill_group(process.pid)
            process.returncode = os.waitstatus_to_exitcode(os.waitpid(process.pid, 0)[1])  # reaped: Popen knows
            raise
        finally:
            _GENERATORS.discard(process.pid)
            watchdog.cancel()
            samples = sampler.stop() if sampler is not None else ()
        wall = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        run = GeneratorRun(
            tuple(argv),
            process.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            wall,
            usage.ru_utime + usage.ru_stime,
            samples,
        )
    if run.returncode == -signal.SIGKILL and wall >= timeout:
        raise GeneratorError(f"{argv[0]} did not finish within {timeout:g} s and was killed")
    return run


@dataclass(frozen=True)
class Reaped:
    """A background process after it ended: exit code, CPU seconds (wait4) and its output."""

    returncode: int
    cpu_s: float
    output: str
    samples: tuple[Sample, ...] = ()  # its threads' scheduler statistics (processes.runqueue)


class BackgroundProcess:
    """A helper process that runs beside a generator (a locust worker), started like
    :func:`run_generator` starts one (own session, parent-death signal, same pinning) so its CPU
    can be read with wait4 when it is reaped."""

    def __init__(self, process: subprocess.Popen, log: Path, main_thread: bool = False):
        self.process = process
        self.log = log
        self._sampler = RunQueueSampler(process.pid, main_thread=main_thread)

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        log: Path,
        cpus: Sequence[int] | None = None,
        env: dict[str, str] | None = None,
        main_thread: bool = False,
    ) -> BackgroundProcess:
        """Start ``argv`` with its output in ``log`` (``env``, ``main_thread``: as :func:`run_generator`'s)."""
        with open(log, "wb") as out:
            process = _spawn(argv, cpus, env, out, subprocess.STDOUT)
        return cls(process, log, main_thread)

    def reap(self, linger_s: float) -> Reaped:
        """Wait up to ``linger_s`` for it to exit on its own, then SIGTERM its group, then SIGKILL."""
        result = self._wait(linger_s)
        for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
            if result is not None:
                break
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                pass
            result = self._wait(grace)
        status, usage = result
        samples = self._sampler.stop()
        self.process.returncode = os.waitstatus_to_exitcode(status)
        try:
            output = self.log.read_text(errors="replace")
        except OSError:
            output = ""
        return Reaped(self.process.returncode, usage.ru_utime + usage.ru_stime, output, samples)

    def _wait(self, seconds: float | None):
        """(status, rusage) once it has exited, or None after ``seconds`` (None: block)."""
        pid = self.process.pid
        if seconds is None:
            _, status, usage = os.wait4(pid, 0)
            return status, usage
        deadline = time.monotonic() + seconds
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done == pid:
                return status, usage
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)


# The load generators running now, from any thread: a run waited for in another thread (oha's lead-in run) does not see
# the main thread's Ctrl-C, so whoever catches it stops them (stop_generators) instead of waiting for the run to end.
_GENERATORS: set[int] = set()


def stop_generators() -> None:
    """Kill every load generator :func:`run_generator` is running now (in any thread) with its process group; each
    run then ends at once, as killed."""
    for pid in list(_GENERATORS):
        _kill_group(pid)


def kill_running() -> None:
    """Kill every server, backend and load generator running now, started from any thread, with its process group:
    whatever waits on one in another thread then ends at once, as killed, and its owner's stop finds it gone."""
    for process in list(_LIVE):
        pid = process.pid
        if pid is not None:
            _kill_group(pid)
    stop_generators()


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def raise_open_files(need: int) -> int:
    """Raise this process's open-file limit (inherited by the servers and generators it starts) to
    ``need``; an unraisable hard limit is an error naming the fix, before any server starts."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= need:
        return soft
    try:
        new_hard = hard if hard == resource.RLIM_INFINITY or hard >= need else need
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, new_hard))
    except (ValueError, OSError):
        raise ConfigError(
            f"the connection counts asked for need {need} open files, but the limit is {soft} (hard {hard}) and "
            f"cannot be raised here: run as root or raise it (`ulimit -n {need}`), or sweep fewer connections"
        ) from None
    return need
