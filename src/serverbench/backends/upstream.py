"""The slow upstream: a real nginx whose echo module answers after 100 ms (Debian's nginx-light
plus libnginx-mod-http-echo), started per session on a free loopback port, or given by URL.

nginx is a fine upstream to measure against: it answers from C with no Python in the path,
so a slow /upstream is the server under test waiting, not the upstream working.
"""

from __future__ import annotations

import json
import tempfile
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog.contract import UPSTREAM_BODY, UPSTREAM_DELAY_S
from ..errors import BackendUnreachable, MissingBinaryError
from ..processes.executors import LOOPBACK, ManagedProcess, free_port
from .environment import require_program

UPSTREAM_PATH = "/delay"
ECHO_MODULES = ("/usr/lib/nginx/modules/ngx_http_echo_module.so", "/usr/share/nginx/modules/ngx_http_echo_module.so")


def nginx_conf(port: int, prefix: Path, echo_module: str, host: str = LOOPBACK) -> str:
    body = json.dumps(UPSTREAM_BODY)
    return f"""load_module {echo_module};
daemon off;
master_process on;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log stderr warn;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    keepalive_requests 1000000;
    server {{
        listen {host}:{port} backlog=4096;
        location = {UPSTREAM_PATH} {{
            default_type application/json;
            echo_sleep {UPSTREAM_DELAY_S};
            echo '{body}';
        }}
        location = /ready {{ return 204; }}
        location = /status {{ stub_status; }}
    }}
}}
"""


@dataclass
class UpstreamService:
    """A reachable slow upstream: the URL apps call, and the nginx process when serverbench started it."""

    url: str
    process: ManagedProcess | None = None
    kind: str = "external"
    _tmp: tempfile.TemporaryDirectory | None = field(default=None, repr=False)
    _status_reads: int = field(default=0, repr=False)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def check(self) -> None:
        try:
            with urllib.request.urlopen(self.url, timeout=5) as response:
                response.read()
        except OSError as exc:
            raise BackendUnreachable(f"the upstream {self.url} did not answer ({exc})") from None

    cores = 1  # one nginx worker

    def seed(self) -> None:
        """Nothing to write: the upstream holds no data (every answer is the same echo)."""

    def cpu_s(self) -> float | None:
        return None  # it reports none: only a process serverbench started (its pid) is sampled

    def count(self) -> int | None:
        """Requests nginx has served (stub_status), not counting this status request itself."""
        if self.process is None:
            return None
        status_url = self.url.rsplit("/", 1)[0] + "/status"
        try:
            with urllib.request.urlopen(status_url, timeout=5) as response:
                text = response.read().decode()
        except OSError:
            return None
        self._status_reads += 1
        numbers = text.splitlines()[2].split()  # " accepts handled requests"
        return int(numbers[2]) - self._status_reads  # every status read so far is itself a request

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def find_echo_module() -> str:
    for path in ECHO_MODULES:
        if Path(path).is_file():
            return path
    raise MissingBinaryError(
        "nginx's echo module (ngx_http_echo_module.so)",
        fix="not installed: `apt-get install nginx-light libnginx-mod-http-echo` (./run does it as root), "
        "or give a running upstream with --upstream-url",
    )


def start_upstream(
    port: int | None = None, timeout: float = 30.0, log_dir: Path | None = None, host: str = LOOPBACK
) -> UpstreamService:
    """Start nginx with the echo module on a free loopback port (the proc fixture)."""
    binary = require_program("nginx", "nginx-light libnginx-mod-http-echo")
    module = find_echo_module()
    port = port if port is not None else free_port()
    tmp = tempfile.TemporaryDirectory(prefix="serverbench-nginx-")
    prefix = Path(tmp.name)
    (prefix / "nginx.conf").write_text(nginx_conf(port, prefix, module, host))
    argv = [binary, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", "stderr"]
    try:
        process = ManagedProcess(
            "nginx-upstream", argv, port, ready_path="/ready", timeout=timeout, log_dir=log_dir, host=host
        ).start()
    except Exception:
        tmp.cleanup()
        raise
    return UpstreamService(f"http://{host}:{port}{UPSTREAM_PATH}", process, "nginx-echo", tmp)


def connect_upstream(url: str) -> UpstreamService:
    """Use an upstream someone else runs (the noproc fixture); unreachable is a clear error."""
    service = UpstreamService(url)
    try:
        service.check()
    except BackendUnreachable as exc:
        raise BackendUnreachable(
            f"--upstream-url: {exc}. Start it, fix the URL, or drop --upstream-url to let serverbench start nginx."
        ) from None
    return service
