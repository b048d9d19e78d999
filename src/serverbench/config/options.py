"""Every serverbench option, declared once and resolved once.

Each option is a command-line flag (``--perf-duration``) and an ini key (``perf_duration``)
sharing one help text.  :func:`resolve` turns pytest's raw values into a frozen
:class:`PerfConfig` with one precedence: command line > ini > built-in default.  Values
from a fixture factory or a ``perf`` marker override the result through
:func:`resolve_thresholds` and the factories in :mod:`serverbench.pytest_plugin.fixtures`.
Values are tested with ``is not None``, never ``or``, so 0 and False survive.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from ..backends.base import BACKENDS
from ..catalog.faults import Fault
from ..catalog.shards import Shard
from ..catalog.userapp import INTERFACES as APP_INTERFACES
from ..catalog.userapp import AppTarget, parse_backends, parse_endpoints, parse_env
from ..errors import ConfigError
from ..hosts.inventory import ENV_VAR as HOSTS_ENV
from ..processes.ports import is_loopback


def _int(lo: int, hi: int | None = None) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        try:
            value = int(str(raw).strip())
        except ValueError:
            raise ValueError(f"expected a whole number, got {raw!r}") from None
        if value < lo or (hi is not None and value > hi):
            bound = f"from {lo} to {hi}" if hi is not None else f">= {lo}"
            raise ValueError(f"expected a whole number {bound}, got {value}")
        return value

    return parse


def _fraction(lo: float, hi: float, hi_open: bool) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        try:
            value = float(str(raw).strip())
        except ValueError:
            raise ValueError(f"expected a number such as 0.2, got {raw!r}") from None
        if not (lo <= value < hi if hi_open else lo <= value <= hi):
            close = ")" if hi_open else "]"
            raise ValueError(f"expected a fraction in [{lo}, {hi}{close} (0.2 means 20%), got {value}")
        return value

    return parse


def _positive_float(raw: str) -> float:
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise ValueError(f"expected a number of seconds, got {raw!r}") from None
    if not (value > 0 and math.isfinite(value)):  # inf would wait for ever: every wait is bounded
        raise ValueError(f"expected a number of seconds > 0 (finite), got {value}")
    return value


def _path(raw: str) -> str:
    """A file or folder name the operating system can take (no NUL byte, encodable): resolved later."""
    text = str(raw)
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        raise ValueError(f"expected a path, got {raw!r}, which holds characters no file name can") from None
    if "\x00" in text:
        raise ValueError(f"expected a path, got {raw!r}, which holds a NUL byte")
    return text


def _int_list(raw: str) -> tuple[int, ...]:
    parts = [p for p in str(raw).replace(" ", "").split(",") if p]
    if not parts:
        raise ValueError("expected one or more connection counts such as 64 or 16,64,256")
    return tuple(_int(1, 100_000)(p) for p in parts)


def _reuse_list(raw: str) -> tuple[int | None, ...]:
    parts = [p for p in str(raw).replace(" ", "").split(",") if p]
    if not parts:
        raise ValueError("expected 'keepalive' and/or request counts, such as keepalive,1,10")
    out: list[int | None] = []
    for p in parts:
        out.append(None if p.lower() in ("keepalive", "keep-alive", "ka") else _int(1, 1_000_000)(p))
    return tuple(out)


def _slow_list(raw: str) -> tuple[tuple[str, int] | None, ...]:
    """``none`` and/or ``<kind><count>`` entries (idle16, slowloris8): each a variant of every shape."""
    from ..catalog.shapes import SLOW_KINDS

    parts = [p for p in str(raw).replace(" ", "").lower().split(",") if p]
    if not parts:
        raise ValueError(
            f"expected 'none' and/or slow clients such as idle16,slowloris16 (kinds: {', '.join(SLOW_KINDS)})"
        )
    out: list[tuple[str, int] | None] = []
    for p in parts:
        kind = p.rstrip("0123456789")
        if p == "none":
            out.append(None)
        elif kind in SLOW_KINDS and p[len(kind) :]:
            out.append((kind, _int(1, 10_000)(p[len(kind) :])))
        else:
            raise ValueError(
                f"{p!r}: expected 'none' or <kind><count> with a kind of {', '.join(SLOW_KINDS)} "
                "(e.g. none,idle16,slowloris16)"
            )
    return tuple(out)


def _rate_list(raw: str) -> tuple[float, ...]:
    parts = [p for p in str(raw).replace(" ", "").split(",") if p]
    if not parts:
        raise ValueError("expected request rates per second such as 20,100,500,2000")
    out = []
    for p in parts:
        try:
            value = float(p)
        except ValueError:
            raise ValueError(f"expected a request rate per second, got {p!r}") from None
        if not 0 < value <= 1_000_000:
            raise ValueError(f"a rate must be > 0 and <= 1,000,000 requests per second, got {value:g}")
        out.append(value)
    return tuple(out)


def _int_list_zero(raw: str) -> tuple[int, ...]:
    parts = [p for p in str(raw).replace(" ", "").split(",") if p]
    if not parts:
        raise ValueError("expected one or more whole numbers such as 0 or 0,2")
    return tuple(_int(0, 64)(p) for p in parts)


def _globs(raw: str) -> tuple[str, ...]:
    parts = tuple(p for p in str(raw).replace(" ", "").split(",") if p)
    if not parts:
        raise ValueError("expected one or more names or globs such as 'gunicorn-*,aiohttp'")
    return parts


def _command(raw: str) -> str:
    """A shell command (run later with sh -c): one line, not empty."""
    text = str(raw).strip()
    if not text or "\x00" in text:
        raise ValueError(f"expected a shell command such as 'python manage.py migrate', got {raw!r}")
    return text


def _bool(raw: str) -> bool:
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"expected true or false, got {raw!r}")


def _app_interface(raw: str) -> str:
    text = str(raw).strip().lower()
    if text not in ("auto",) + APP_INTERFACES:
        raise ValueError(f"expected auto or one of {', '.join(APP_INTERFACES)}, got {raw!r}")
    return text


def _closed_driver(raw: str) -> str:
    text = str(raw).strip().lower()
    if text not in ("auto", "oha", "wrk"):
        raise ValueError(f"expected auto, oha or wrk, got {raw!r}")
    return text


def _loopback_url(schemes: tuple[str, ...]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        url = str(raw).strip()
        try:
            parts = urlsplit(url)
        except ValueError as exc:  # an unclosed [IPv6 bracket, characters a host name cannot hold
            raise ValueError(f"expected a URL like {schemes[0]}://127.0.0.1:PORT, got {raw!r} ({exc})") from None
        if parts.scheme not in schemes or not parts.hostname:
            raise ValueError(f"expected a URL like {schemes[0]}://127.0.0.1:PORT, got {raw!r}")
        try:
            _ = parts.port  # urlsplit checks the port only when it is read
        except ValueError:
            raise ValueError(f"the port in {raw!r} is not a number from 1 to 65535") from None
        if not is_loopback(parts.hostname):
            raise ValueError(
                f"{parts.hostname!r} is not a loopback address; serverbench only drives "
                "127.0.0.1, ::1 or localhost (tunnel or port-forward a remote service there)"
            )
        return url.rstrip("/")

    return parse


@dataclass(frozen=True)
class Option:
    """One setting: its ini key, flag, parser, default and the single help text."""

    name: str
    parse: Callable[[str], Any]
    default: Any
    help: str
    flag_only: bool = False
    lines: bool = False  # one entry per line (an ini list is joined with newlines, not commas)
    # A command whose proven default differs from the pytest session's names it here, in the same row
    # (``{"gate": 2}``), with the reason in a comment at the row; elsewhere ``default`` holds.
    context_defaults: Mapping[str, Any] = field(default_factory=dict)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def command_flag(self) -> str:
        """The flag in serverbench's own commands (the gate): the name without pytest's ``perf`` prefix."""
        return "--" + self.name.removeprefix("perf_").replace("_", "-")

    def default_in(self, context: str) -> Any:
        return self.context_defaults.get(context, self.default)


_URL_FLAGS = ", ".join(b.url_flag for b in BACKENDS.values())  # --redis-url, ...
OPTIONS: tuple[Option, ...] = (
    Option(
        "perf_variants",
        _globs,
        ("*",),
        "Server variants to run: comma-separated names or globs (e.g. 'gunicorn-*'). Default: all.",
    ),
    Option(
        "perf_apps",
        _globs,
        None,
        "Apps to serve: comma-separated names or globs, 'all' for every app; each variant serves those whose interface it speaks. Default: one reference app per interface (flask, raw-asgi, aiohttp, tornado).",
    ),
    Option(
        "perf_workloads",
        _globs,
        ("*",),
        "Workloads to run: comma-separated names or globs (e.g. 'json,redis'). Default: all.",
    ),
    # The gate's defaults (1 s windows, 1 s warm-up, 32 connections per arm) are those its A/A false-alarm
    # and detection figures were measured with (docs/lab/gate.md's proof table).  1 s windows, two rounds a block: a
    # timed-only 10% regression is decided at the look after 10 blocks in under a minute (2 s windows: 98 s).
    Option(
        "perf_duration",
        _int(1, 3600),
        2,
        "Seconds of measured load per trial (whole seconds, >= 1): the shortest window; a closed-model window is longer on a cell with a designed queue, and measured once more, longer, when it has not converged (--perf-precision).",
        context_defaults={"gate": 1},
    ),
    Option(
        "perf_warmup",
        _int(0, 3600),
        1,
        "Seconds of warm-up load before each trial, not counted (0 disables); with oha's closed model the warm-up is the lead-in of the measured run itself.",
        context_defaults={"gate": 1},
    ),
    Option(
        "perf_warmup_rounds",
        _int(1, 100),
        None,
        "Most warm-up rounds (each --perf-warmup seconds); warm-up stops early once rps settles. Default: 1 on CPython, 10 on PyPy (JIT).",
    ),
    Option(
        "perf_settle",
        _fraction(0.0, 1.0, True),
        0.05,
        "Warm-up has settled when a round's rps is within this fraction of the previous round's.",
    ),
    Option(
        "perf_precision",
        _fraction(0.001, 1.0, False),
        0.20,
        "A closed-model window has converged when its throughput is known within this fraction (the 95% interval's half-width over ten slices of the window, fewer where a slice would be shorter than the mean latency; 0.2 = 20%) and its edges cancel (Little's law within 3%); one that has not is measured once more in a longer window (up to --perf-window-max).",
    ),
    Option(
        "perf_window_max",
        _int(1, 3600),
        60,
        "The longest closed-model window in seconds: a window sized to a designed queue or measured again to converge stops here.",
    ),
    Option(
        "perf_connections",
        _int_list,
        (64,),
        "Concurrent connections: one count or a comma-separated list, each a test.",
        context_defaults={"gate": (32,)},
    ),
    Option(
        "perf_requests_per_connection",
        _reuse_list,
        (None,),
        "Connection reuse: 'keepalive' and/or requests per connection (1 = a new connection per request), e.g. keepalive,1,10; each a test.",
    ),
    Option(
        "perf_slow_clients",
        _slow_list,
        (None,),
        "Slow clients held beside the load (docs/slow-clients.md): 'none' and/or <kind><count> (kinds: slowloris, idle, partial, keepalive), e.g. none,idle16,slowloris16; each a test of every shape (c64+idle16).",
    ),
    Option(
        "perf_rates",
        _rate_list,
        (),
        "Open-model rate ladder (requests/s, e.g. 20,50,100,200,500,1000,2000): each rate a test driven by oha at a constant rate, latency from the intended send time.",
    ),
    Option("perf_rate_connections", _int(1, 100_000), 256, "Connections oha may use to hold a rate (its -c)."),
    Option(
        "perf_replicates",
        _int(1, 100),
        1,
        "Trials per cell (a fresh warm-up each); the median-rps trial is judged, median and dispersion are reported.",
    ),
    Option(
        "perf_locust_users",
        _int_list,
        (50,),
        "Locust users for the locust scenario tests: one count or a list, each a test.",
    ),
    Option(
        "perf_locust_workers",
        _int_list_zero,
        (0,),
        "Locust worker processes (0 = one process; N = a master and N workers on loopback): one count or a list, each a test.",
    ),
    Option("perf_threads", _int(1, 256), 2, "Load-generator threads (wrk -t); capped at the connection count."),
    Option(
        "perf_closed_driver",
        _closed_driver,
        "auto",
        "The closed-model driver: oha (one run: a lead-in, then a steady-state window timing every request sent inside it to its answer; docs/trial.md), wrk (its own run after the warm-up, which starts on a drained server), or auto: oha when installed, else wrk. URL mixes, requests-per-connection shapes and your own endpoints' requests run on wrk whatever this says. The baselines are the driver's own (the machine id names it).",
    ),
    Option("perf_json", _path, None, "Write every result of the session as JSON records to this path."),
    Option(
        "perf_html",
        _path,
        None,
        "Write the session's results as one self-contained HTML report with plots to this path (serverbench report builds one from stored files).",
    ),
    Option(
        "perf_benchmark_json",
        _path,
        None,
        "Write the session in pytest-benchmark's JSON format to this path (for `pytest-benchmark compare`); needs pytest-benchmark.",
    ),
    Option(
        "perf_save_baseline",
        _bool,
        False,
        "Store this session's results as the baseline for this machine.",
        flag_only=True,
    ),
    Option(
        "perf_target",
        _loopback_url(("http",)),
        None,
        "Drive a server someone else started (http://127.0.0.1:PORT) instead of starting variants.",
    ),
    Option(
        "perf_hosts",
        _path,
        None,
        "An inventory of hosts (TOML): the server runs on its server host (this machine), the load generators on its load hosts over SSH (docs/hosts.md). Also SERVERBENCH_HOSTS; without one everything runs on this machine.",
    ),
    Option(
        "perf_target_pid", _int(1), None, "With --perf-target: the server's pid, so its CPU and memory are sampled too."
    ),
    # One per backend of the registry: --redis-url, --mongo-url, --upstream-url (the gate has them too).
    *(Option(b.url_option, _loopback_url(b.schemes), None, b.option_help) for b in BACKENDS.values()),
    Option(
        "perf_fault",
        Fault.parse,
        None,
        "A backend fault made in every trial whose workload uses that backend: ACTION-BACKEND[:LATENCY][@AT], e.g. kill-redis@2s (SIGKILL 2 s into the window; restarted before the next test), slow-redis:200ms, drop-mongo, reset-upstream (through toxiproxy-server). Such a trial fails, naming the backend, when it went and the errors by class; it is never recorded as a result (docs/backend-faults.md).",
    ),
    Option(
        "perf_skip_missing_backends",
        _bool,
        False,
        "Skip (instead of fail) the tests whose backend cannot be started or reached; the others still run.",
        flag_only=True,
    ),
    Option(
        "perf_tolerance",
        _fraction(0.0, 1.0, True),
        0.30,
        "Allowed throughput drop against the stored baseline (0.30 = fail below 70%).",
    ),
    Option(
        "perf_max_error_rate",
        _fraction(0.0, 1.0, False),
        0.01,
        "Highest error rate (errors / attempts) a trial may have and pass.",
    ),
    Option(
        "perf_baseline_dir",
        _path,
        "baselines",
        "Folder of stored baselines (one JSON file per machine id), relative to rootdir.",
    ),
    Option(
        "perf_apps_dir", _path, "apps", "Folder holding the reference apps the variants serve, relative to rootdir."
    ),
    Option(
        "perf_app",
        AppTarget.parse,
        None,
        "Serve your own app instead of the reference apps: its import path, package.module:attribute (or package.module:factory() for a factory), under every variant of its interface, measured on perf_endpoints (docs/ci.md).",
    ),
    Option(
        "perf_app_interface",
        _app_interface,
        "auto",
        f"The interface perf_app offers: {', '.join(APP_INTERFACES)}, or auto (found by importing it in a child process).",
    ),
    Option(
        "perf_app_dir",
        _path,
        None,
        "Folder put first on the servers' PYTHONPATH and used as their working directory when serving perf_app. Default: rootdir.",
    ),
    Option(
        "perf_app_env",
        parse_env,
        (),
        "NAME=value entries (one per ini line, or comma-separated) set in every server's environment when serving perf_app, e.g. DJANGO_SETTINGS_MODULE=mysite.settings.",
        lines=True,
    ),
    Option(
        "perf_app_backends",
        parse_backends,
        (),
        f"BACKEND=ENV_VAR entries (one per ini line, or comma-separated), e.g. redis=REDIS_URL: serverbench starts that backend (or uses {_URL_FLAGS}) and hands its URL to perf_app in ENV_VAR.",
        lines=True,
    ),
    Option(
        "perf_app_reset",
        AppTarget.parse,
        None,
        "A function of your project, package.module:function, that puts perf_app's state back (empties and re-seeds its database) before each cell: run in a child process from perf_app_dir with perf_app_env and the backends' URLs set (docs/ci.md).",
    ),
    Option(
        "perf_app_setup",
        _command,
        None,
        "A shell command that makes perf_app able to serve (its database file, migrations, seeded rows: state outside git), run once with sh -c in perf_app_dir before its servers start, in the perf suite, the cost tests and each arm of the gate (the base worktree too), with perf_app_env, the backends' URLs and the arm's interpreter first on PATH (docs/ci.md).",
    ),
    Option(
        "perf_endpoints",
        parse_endpoints,
        (),
        "perf_app's endpoints, one per line: NAME [METHOD] PATH [status=200] [type=CONTENT-TYPE] [contains=TEXT] [header=Name:value] [body=REST OF LINE]; each is a workload.",
        lines=True,
    ),
    Option("perf_start_timeout", _positive_float, 30.0, "Seconds a server or backend may take to become ready."),
    Option(
        "perf_port", _int(1, 32767), None, "Fixed port for the server under test (default: a free port below 32768)."
    ),
    Option(
        "perf_cost_requests",
        _int(10, 100_000),
        200,
        "Requests counted per cost test (-m cost): the instructions of exactly this many sequential requests are counted under valgrind.",
    ),
    Option(
        "perf_cost_tolerance",
        _fraction(0.0, 1.0, True),
        0.02,
        "Allowed rise of instructions per request against the stored cost baseline (0.02 = fail when the count rises by more than 2 percent).",
    ),
    Option(
        "perf_cost_baseline_counts",
        _int(1, 100),
        5,
        "Counts per cell when cost baselines are saved (--perf-save-baseline with -m cost): the median count is stored with the spread of all of them, and a cell whose counts fall apart is judged with 3x that spread where it is wider than --perf-cost-tolerance (1: one count, no spread stored).",
    ),
    Option(
        "perf_cost_baseline_dir",
        _path,
        "baselines/cost",
        "Folder of stored cost baselines (one JSON file per counting environment: interpreter, ISA level, C library, valgrind), relative to rootdir.",
    ),
    Option(
        "perf_shard",
        Shard.parse,
        None,
        "Run only shard K of N (K/N, e.g. 2/4) of the selected perf and cost cells: a deterministic, balanced share; N jobs run every cell once between them (serverbench merge joins their --perf-json files).",
    ),
)
OPTIONS_BY_NAME = {o.name: o for o in OPTIONS}


@dataclass(frozen=True)
class Thresholds:
    """What a trial must meet against its baseline."""

    tolerance: float
    max_error_rate: float
    min_rps: float | None = None
    max_p99_ms: float | None = None
    # The reference contract's work check: each backend counts one operation per response.  Off for a
    # user's app (perf_app), whose endpoints use their backends as they please (the ops are still recorded).
    work_check: bool = True


@dataclass(frozen=True)
class PerfConfig:
    """The resolved settings of one pytest session."""

    variants: tuple[str, ...]
    apps: tuple[str, ...] | None
    workloads: tuple[str, ...]
    duration: int
    warmup: int
    warmup_rounds: int | None
    settle: float
    precision: float
    window_max: int
    connections: tuple[int, ...]
    requests_per_connection: tuple[int | None, ...]
    rates: tuple[float, ...]
    rate_connections: int
    replicates: int
    locust_users: tuple[int, ...]
    locust_workers: tuple[int, ...]
    threads: int
    closed_driver: str
    json_path: Path | None
    html_path: Path | None
    benchmark_json_path: Path | None
    save_baseline: bool
    target: str | None
    target_pid: int | None
    backend_urls: Mapping[str, str | None]  # backend name -> the running one's URL (--<name>-url), None: start one
    skip_missing_backends: bool
    thresholds: Thresholds
    baseline_dir: Path
    apps_dir: Path
    start_timeout: float
    port: int | None
    cost_requests: int = 200
    slow_clients: tuple[tuple[str, int] | None, ...] = (None,)
    cost_tolerance: float = 0.02
    cost_baseline_counts: int = 5
    cost_baseline_dir: Path | None = None
    shard: Shard | None = None
    app: AppTarget | None = None
    app_interface: str = "auto"
    app_reset: AppTarget | None = None
    app_setup: str | None = None
    app_dir: Path | None = None
    app_env: tuple[tuple[str, str], ...] = ()
    app_backends: tuple[tuple[str, str], ...] = ()
    endpoints: tuple = ()  # of catalog.contract.Endpoint
    fault: Fault | None = None
    hosts: Path | None = None  # the hosts inventory (--perf-hosts, perf_hosts, SERVERBENCH_HOSTS); None: this machine


def parse_option(name: str, raw: Any, source: str) -> Any:
    """Parse one raw value, turning a bad one into an error that names where it came from."""
    option = OPTIONS_BY_NAME[name]
    if not isinstance(raw, str):
        raw = ("\n" if option.lines else ",").join(map(str, raw)) if isinstance(raw, (list, tuple)) else str(raw)
    try:
        return option.parse(raw)
    except ValueError as exc:
        where = {
            "cli": option.flag,
            "ini": f"ini key {name}",
            "gate": option.command_flag,
            "bisect": option.command_flag,
        }.get(source, f"{source} {name}")
        raise ConfigError(f"{where}={raw!r}: {exc}") from None


def _values(cli: Mapping[str, Any], ini: Mapping[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """Every option's value (command line > ini > default) and the names given on the command line;
    every bad value reported at once."""
    values: dict[str, Any] = {}
    from_cli: set[str] = set()
    problems: list[str] = []
    for option in OPTIONS:
        raw_cli, raw_ini = cli.get(option.name), ini.get(option.name)
        try:
            if raw_cli is not None and raw_cli is not False:
                values[option.name] = (
                    raw_cli if isinstance(raw_cli, bool) else parse_option(option.name, raw_cli, "cli")
                )
                from_cli.add(option.name)
            elif raw_ini not in (None, "", []):
                values[option.name] = parse_option(option.name, raw_ini, "ini")
            else:
                values[option.name] = option.default
        except ConfigError as exc:
            problems.append(str(exc))
    if values.get("perf_app") is not None and values.get("perf_apps") is not None:
        problems.append("--perf-apps selects reference apps and perf_app serves your own: give one of them")
    if values.get("perf_hosts") is not None and values.get("perf_target") is not None:
        problems.append(
            "--perf-target drives a loopback server, which load hosts cannot reach: give --perf-hosts or --perf-target"
        )
    if values.get("perf_target_pid") is not None and values.get("perf_target") is None:
        problems.append("--perf-target-pid needs --perf-target (the URL of that server)")
    if values.get("perf_fault") is not None and values.get("perf_duration") is not None:
        try:
            values["perf_fault"].check_window(values["perf_duration"])
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        raise ConfigError("invalid serverbench settings:\n  " + "\n  ".join(problems))
    return values, from_cli


def resolve(cli: Mapping[str, Any], ini: Mapping[str, Any], rootdir: Path, cwd: Path | None = None) -> PerfConfig:
    """Resolve options with precedence command line > ini > default; report every bad value at once.

    Paths given on the command line are relative to ``cwd`` (where pytest was invoked), paths
    from ini or defaults relative to ``rootdir``, as pytest itself does.
    """
    values, from_cli = _values(cli, ini)

    def path(name: str) -> Path | None:
        value = values[name]
        base = cwd if cwd is not None and name in from_cli else rootdir
        return None if value is None else (base / os.path.expanduser(value)).resolve()

    return PerfConfig(
        variants=values["perf_variants"],
        apps=None
        if values["perf_apps"] in (None, ("default",))
        else ("*",)
        if values["perf_apps"] == ("all",)
        else values["perf_apps"],
        workloads=values["perf_workloads"],
        duration=values["perf_duration"],
        warmup=values["perf_warmup"],
        warmup_rounds=values["perf_warmup_rounds"],
        settle=values["perf_settle"],
        precision=values["perf_precision"],
        window_max=values["perf_window_max"],
        connections=values["perf_connections"],
        requests_per_connection=values["perf_requests_per_connection"],
        rates=values["perf_rates"],
        slow_clients=values["perf_slow_clients"],
        rate_connections=values["perf_rate_connections"],
        replicates=values["perf_replicates"],
        locust_users=values["perf_locust_users"],
        locust_workers=values["perf_locust_workers"],
        threads=values["perf_threads"],
        closed_driver=values["perf_closed_driver"],
        json_path=path("perf_json"),
        html_path=path("perf_html"),
        benchmark_json_path=path("perf_benchmark_json"),
        save_baseline=values["perf_save_baseline"],
        target=values["perf_target"],
        target_pid=values["perf_target_pid"],
        backend_urls={name: values[b.url_option] for name, b in BACKENDS.items()},
        skip_missing_backends=values["perf_skip_missing_backends"],
        thresholds=Thresholds(values["perf_tolerance"], values["perf_max_error_rate"]),
        baseline_dir=path("perf_baseline_dir"),
        apps_dir=path("perf_apps_dir"),
        start_timeout=values["perf_start_timeout"],
        port=values["perf_port"],
        cost_requests=values["perf_cost_requests"],
        cost_tolerance=values["perf_cost_tolerance"],
        cost_baseline_counts=values["perf_cost_baseline_counts"],
        cost_baseline_dir=path("perf_cost_baseline_dir"),
        shard=values["perf_shard"],
        app=values["perf_app"],
        app_interface=values["perf_app_interface"],
        app_reset=values["perf_app_reset"],
        app_setup=values["perf_app_setup"],
        app_dir=path("perf_app_dir") if values["perf_app_dir"] is not None else rootdir.resolve(),
        app_env=values["perf_app_env"],
        app_backends=values["perf_app_backends"],
        endpoints=values["perf_endpoints"],
        fault=values["perf_fault"],
        hosts=path("perf_hosts") if values["perf_hosts"] is not None else hosts_from(os.environ),
    )


def hosts_from(environ: Mapping[str, str]) -> Path | None:
    """The hosts inventory SERVERBENCH_HOSTS names (``serverbench hosts simulate`` sets it), made absolute; None: this
    machine alone.  The one reading of it: the pytest options (when neither the flag nor the ini key names one) and
    each door of the gate (its options, :class:`~serverbench.gate.options.GateOptions`) call it."""
    raw = environ.get(HOSTS_ENV, "").strip()
    return Path(os.path.expanduser(raw)).resolve() if raw else None


MARKER_KEYS = ("tolerance", "max_error_rate", "min_rps", "max_p99_ms")


def resolve_thresholds(session: Thresholds, marker_kwargs: Mapping[str, Any]) -> Thresholds:
    """Apply a test's ``@pytest.mark.perf(tolerance=..., max_error_rate=...)`` over the session's."""
    unknown = sorted(set(marker_kwargs) - set(MARKER_KEYS))
    if unknown:
        raise ConfigError(f"@pytest.mark.perf got unknown argument(s) {unknown}; it accepts {list(MARKER_KEYS)}")
    tolerance = session.tolerance
    max_error_rate = session.max_error_rate
    if marker_kwargs.get("tolerance") is not None:
        tolerance = parse_option("perf_tolerance", marker_kwargs["tolerance"], "@pytest.mark.perf")
    if marker_kwargs.get("max_error_rate") is not None:
        max_error_rate = parse_option("perf_max_error_rate", marker_kwargs["max_error_rate"], "@pytest.mark.perf")
    absolute = {}
    for key in ("min_rps", "max_p99_ms"):
        value = marker_kwargs.get(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ConfigError(f"@pytest.mark.perf({key}={value!r}): expected a number > 0")
            absolute[key] = float(value)
    return Thresholds(tolerance, max_error_rate, **absolute)
