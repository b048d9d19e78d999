"""Making a backend fail during the measured window: the kill timer, the toxiproxy between the app
and a backend, and a probe that notes when requests start failing.  Measurement only: what the
fault did to a trial is judged in :mod:`serverbench.judge.faults`.

Every wait here is bounded: the probe's requests time out, the toxiproxy API calls time out,
and the timer and probe threads are joined with a timeout when the window ends.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...catalog.faults import Fault
from ...errors import BackendFault, ConfigError, MissingBinaryError
from ...processes.executors import LOOPBACK, ManagedProcess, free_port
from ..serving.verify import fetch

TOXIPROXY_INSTALL = (
    "GOBIN=$HOME/go/bin go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0 && "
    "mv $HOME/go/bin/server $HOME/go/bin/toxiproxy-server"
)
API_TIMEOUT_S = 5.0
TOXIC = "serverbench-fault"


def toxiproxy_binary() -> str:
    """toxiproxy-server from PATH or ~/go/bin (where ./run builds it), or the command that builds it."""
    found = shutil.which("toxiproxy-server")
    built = Path.home() / "go" / "bin" / "toxiproxy-server"
    if found is None and not built.is_file():
        raise MissingBinaryError(
            "toxiproxy-server",
            fix=f"not found on PATH or in ~/go/bin. Build it with Go: "
            f"`{TOXIPROXY_INSTALL}` (./run does it when Go is installed and a fault needs it)",
        )
    return found or str(built)


def with_port(url: str, port: int) -> str:
    """``url`` with its port replaced (the same scheme, path and query): a backend's URL through a proxy."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)
    auth = netloc[0] + "@" if len(netloc) == 2 else ""
    return urlunsplit(parts._replace(netloc=f"{auth}{parts.hostname}:{port}"))


def toxic_of(fault: Fault) -> dict[str, Any]:
    """The toxiproxy toxic that makes ``fault`` (applied to what the backend sends back)."""
    kind, attributes = {
        "slow": ("latency", {"latency": int(fault.latency_ms or 0), "jitter": 0}),
        "drop": ("timeout", {"timeout": 0}),  # 0: nothing passes and nothing closes
        "reset": ("reset_peer", {"timeout": 0}),
    }[fault.action]
    return {"name": TOXIC, "type": kind, "stream": "downstream", "toxicity": 1.0, "attributes": attributes}


class Toxiproxy:
    """A toxiproxy-server serverbench started, driven over its HTTP API (one proxy per backend)."""

    def __init__(self, process: ManagedProcess):
        self.process = process
        self.api = process.url

    @classmethod
    def start(cls, timeout: float = 30.0) -> Toxiproxy:
        port = free_port()
        argv = [toxiproxy_binary(), "-host", LOOPBACK, "-port", str(port)]
        return cls(ManagedProcess("toxiproxy", argv, port, ready_path="/version", timeout=timeout).start())

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.api + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=API_TIMEOUT_S) as response:
                text = response.read()
        except urllib.error.HTTPError as exc:
            raise BackendFault(f"toxiproxy refused {method} {path}: {exc.code} {exc.read()[:200]!r}") from None
        except OSError as exc:
            raise BackendFault(f"toxiproxy ({self.api}) did not answer {method} {path}: {exc}") from None
        return json.loads(text) if text.strip() else None

    def proxy(self, name: str, url: str) -> str:
        """A proxy named ``name`` in front of the backend at ``url``; returns the URL that goes through it."""
        parts = urlsplit(url)
        port = free_port()
        self.call(
            "POST",
            "/proxies",
            {
                "name": name,
                "listen": f"{LOOPBACK}:{port}",
                "upstream": f"{parts.hostname}:{parts.port}",
                "enabled": True,
            },
        )
        return with_port(url, port)

    def poison(self, name: str, fault: Fault) -> None:
        self.call("POST", f"/proxies/{name}/toxics", toxic_of(fault))

    def heal(self, name: str) -> None:
        """Remove the fault's toxic (a proxy already healthy is left as it is)."""
        toxics = self.call("GET", f"/proxies/{name}/toxics") or []
        if any(t.get("name") == TOXIC for t in toxics):
            self.call("DELETE", f"/proxies/{name}/toxics/{TOXIC}")

    def stop(self) -> None:
        self.process.stop()


def kill_group(pid: int) -> None:
    """SIGKILL a backend's whole process group (nginx's workers too); one already gone is fine."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def error_class(exc: BaseException) -> str:
    """A failed request in the load generator's classes: connect, read, write, timeout."""
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timeout"
    if isinstance(exc, ConnectionRefusedError):
        return "connect"
    if isinstance(exc, BrokenPipeError):
        return "write"
    return "read"  # reset, closed without an answer, a malformed answer


@dataclass
class FaultRun:
    """What happened in one window with a fault: when it struck and when the probe first saw a failed
    request (seconds from the window's start; a timeout is seen when it expires)."""

    fault: Fault
    window_s: float = 0.0
    fired_at_s: float | None = None
    problem: str | None = None  # why the fault could not be made (then fired_at_s is None)
    first_error_at_s: float | None = None
    first_error: str | None = None  # its class: status 500, connect, read, timeout
    probes: int = 0
    probe_errors: dict[str, int] = field(default_factory=dict)


class Probe:
    """One GET of the workload's path every ``interval_s`` on a thread, each bounded by ``timeout_s``;
    it notes the first failure and counts failures by class."""

    def __init__(
        self, base_url: str, path: str, run: FaultRun, started: float, interval_s: float = 0.1, timeout_s: float = 2.0
    ):
        self.base_url, self.path, self.run, self.started = base_url, path, run, started
        self.interval_s, self.timeout_s = interval_s, timeout_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="serverbench-fault-probe", daemon=True)

    def __enter__(self) -> Probe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(self.timeout_s + 1.0)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                status, _, _ = fetch(self.base_url, self.path, timeout=self.timeout_s)
                failed = f"status {status}" if status >= 400 else None
            except (OSError, http.client.HTTPException) as exc:
                failed = error_class(exc)
            at = time.monotonic() - self.started  # when the client saw it: a timeout is seen timeout_s after sending
            self.run.probes += 1
            if failed is not None:
                kind = failed.split()[0]
                self.run.probe_errors[kind] = self.run.probe_errors.get(kind, 0) + 1
                if self.run.first_error_at_s is None:
                    self.run.first_error_at_s, self.run.first_error = round(at, 3), failed


def recovery(base_url: str, path: str, within_s: float = 10.0, streak: int = 5, timeout_s: float = 2.0) -> float | None:
    """Seconds until ``streak`` requests in a row succeed again (after the backend is back), or None when
    that did not happen within ``within_s``: a server whose workers stay stuck does not recover."""
    started = time.monotonic()
    good = 0
    while time.monotonic() - started < within_s:
        try:
            status, _, _ = fetch(
                base_url, path, timeout=min(timeout_s, max(within_s - (time.monotonic() - started), 0.1))
            )
            good = good + 1 if status < 400 else 0
        except (OSError, http.client.HTTPException):
            good = 0
        if good >= streak:
            return round(time.monotonic() - started, 3)
        if good == 0:
            time.sleep(0.05)
    return None


class FaultInjection:
    """Makes one fault during each measured window it is given (``window`` is a Trial's ``during``).

    A kill needs the backend's process (``pid``); a proxied fault needs the ``toxiproxy`` and the
    name of the proxy the app talks through.  ``runs`` keeps what each window saw.
    """

    def __init__(
        self,
        fault: Fault,
        pid: int | None,
        probe_url: str,
        probe_path: str,
        toxiproxy: Toxiproxy | None = None,
        proxy: str | None = None,
    ):
        if fault.action == "kill" and pid is None:
            raise ConfigError(
                f"--perf-fault {fault.label}: {fault.backend} was given by URL, so serverbench does "
                f"not own its process and cannot kill it; drop --{fault.backend}-url, or use a "
                f"proxied fault (slow-, drop-, reset-{fault.backend})"
            )
        if fault.proxied and (toxiproxy is None or proxy is None):
            raise ConfigError(f"--perf-fault {fault.label} needs the app to talk to {fault.backend} through toxiproxy")
        self.fault, self.pid, self.toxiproxy, self.proxy = fault, pid, toxiproxy, proxy
        self.probe_url, self.probe_path = probe_url, probe_path
        self.runs: list[FaultRun] = []

    @property
    def last(self) -> FaultRun | None:
        return self.runs[-1] if self.runs else None

    @contextmanager
    def window(self) -> Iterator[FaultRun]:
        """The fault struck ``at_s`` into the window (on a timer thread), undone when the window ends
        (a proxied fault; a killed backend is restarted by the backend pool before the next test)."""
        run = FaultRun(self.fault)
        self.runs.append(run)
        started = time.monotonic()
        timer = threading.Timer(self.fault.at_s, self._strike, args=(run, started))
        timer.daemon = True
        with Probe(self.probe_url, self.probe_path, run, started):
            timer.start()
            try:
                yield run
            finally:
                timer.cancel()
                timer.join(API_TIMEOUT_S + 1.0)
                run.window_s = round(time.monotonic() - started, 3)
                if self.fault.proxied and run.fired_at_s is not None:
                    self.toxiproxy.heal(self.proxy)

    def _strike(self, run: FaultRun, started: float) -> None:
        try:
            if self.fault.action == "kill":
                kill_group(self.pid)
            else:
                self.toxiproxy.poison(self.proxy, self.fault)
        except Exception as exc:  # noted for the verdict: a timer thread has nobody to raise to
            run.problem = f"{type(exc).__name__}: {exc}"
            return
        run.fired_at_s = round(time.monotonic() - started, 3)
