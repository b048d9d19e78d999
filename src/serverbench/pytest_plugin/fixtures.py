"""Fixture factories in the pytest-redis style, and the fixtures the plugin registers.

Three tiers: ``*_proc`` (session scope, owns a process), ``*_noproc`` (session scope, uses a
service someone else runs), and function-scope fixtures that reset state.  Factories take
keyword arguments defaulting to None; a given argument beats the command line and ini.

    # conftest.py
    from serverbench.pytest_plugin.fixtures import redis_proc, server_proc
    redis_on_6380 = redis_proc(port=6380)
    gunicorn = server_proc("gunicorn-sync-w2")
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Callable

import pytest

from ..backends.base import BACKENDS, Service, backend, revive
from ..catalog.apps import APPS
from ..catalog.faults import Fault
from ..catalog.matrix import Cell
from ..catalog.shapes import LoadShape
from ..catalog.userapp import UserApp
from ..catalog.workloads import WORKLOADS
from ..config.options import PerfConfig, resolve_thresholds
from ..errors import BackendFault, ConfigError, ServerbenchError
from ..hosts.connected import HostedService
from ..judge.checks import no_answers
from ..judge.faults import fault_message
from ..judge.verdict import BaselineCheck, Check
from ..measure.serving.reset import reset_app
from ..measure.serving.servers import RunningServer, ServerPool, start_variant, unavailable_reason
from ..measure.trials.faults import FaultInjection, Toxiproxy
from ..measure.trials.trial import Trial, Warmup, run_trial
from ..records.results import Failure
from ..records.schema import Result, replicated
from ..session.perf import PerfSession

SESSION_KEY = pytest.StashKey[PerfSession]()
TARGET = "target"  # the pseudo-variant name of a --perf-target server


def perf_session_of(config: pytest.Config) -> PerfSession:
    return config.stash[SESSION_KEY]


def backend_proc(name: str, port: int | None = None, **options) -> Callable:
    """A session fixture that starts the registry's backend ``name`` (seeded) and stops it by pid.
    ``options`` go to its start function (e.g. ``executable`` for redis-server)."""
    spec = backend(name)

    def fixture(request: pytest.FixtureRequest) -> Iterator[Service]:
        config = perf_session_of(request.config).config
        service = spec.start(port=port, timeout=max(config.start_timeout, spec.min_start_timeout), **options)
        yield service
        service.stop()

    fixture.__doc__ = f"Starts {spec.name} ({spec.description}) for the session; stops it by pid."
    return pytest.fixture(scope="session")(fixture)


def backend_noproc(name: str, url: str | None = None) -> Callable:
    """A session fixture for the backend ``name`` someone else runs: ``url`` > its --*-url option > ini."""
    spec = backend(name)

    def fixture(request: pytest.FixtureRequest) -> Service:
        session = perf_session_of(request.config)
        chosen = url if url is not None else session.config.backend_urls[spec.name]
        if chosen is None:
            flag = spec.url_flag
            raise pytest.UsageError(f"{name}_noproc needs a URL: pass {flag} {spec.url_example}")
        hosts = session.hosts
        if hosts is not None and spec.name in hosts.backend_pids and hosts.backend_urls.get(spec.name) == chosen:
            return HostedService(spec.connect(chosen), hosts, spec.name)  # its CPU read on the backends host
        return spec.connect(chosen)

    fixture.__doc__ = f"Uses a running {spec.name} (its URL from {spec.url_option}); seeded, never stopped."
    return pytest.fixture(scope="session")(fixture)


def _chosen(name: str) -> Callable:
    """The session's ``perf_<name>``: the noproc fixture when its URL option is set, else the proc one."""
    spec = backend(name)

    def fixture(request: pytest.FixtureRequest, perf_session: PerfSession) -> Service:
        given = perf_session.config.backend_urls[spec.name] is not None
        return request.getfixturevalue(f"perf_{name}_{'noproc' if given else 'proc'}")

    fixture.__doc__ = (
        f"{spec.name} for the apps: {spec.url_flag} if given (noproc), "
        f"else one started for the session ({spec.description})."
    )
    return pytest.fixture(scope="session")(fixture)


def redis_proc(port: int | None = None, executable: str | None = None) -> Callable:
    """A session fixture that starts redis-server (no persistence) and stops it by pid."""
    return backend_proc("redis", port, executable=executable)


def redis_noproc(url: str | None = None) -> Callable:
    """A session fixture for a Redis someone else runs: ``url`` > --redis-url > ini redis_url."""
    return backend_noproc("redis", url)


def mongo_proc(port: int | None = None) -> Callable:
    """A session fixture that starts mongod from PATH or SecantusDB, seeded, and stops it by pid."""
    return backend_proc("mongo", port)


def mongo_noproc(url: str | None = None) -> Callable:
    """A session fixture for a MongoDB someone else runs: ``url`` > --mongo-url > ini mongo_url."""
    return backend_noproc("mongo", url)


def upstream_proc(port: int | None = None) -> Callable:
    """A session fixture that starts nginx with the echo module (100 ms answers) and stops it by pid."""
    return backend_proc("upstream", port)


def upstream_noproc(url: str | None = None) -> Callable:
    """A session fixture for an upstream someone else runs: ``url`` > --upstream-url > ini upstream_url."""
    return backend_noproc("upstream", url)


class BackendPool:
    """The session's backing services, each started or connected on first need through its fixture
    (``perf_<backend>``); a service that failed is not retried.  One whose process died (a fault
    killed it) is started again on its port when next asked for.  With a proxied ``fault`` the apps
    get the URL of a toxiproxy in front of that backend (started on first need, stopped by close)."""

    def __init__(self, request: pytest.FixtureRequest, fault: Fault | None = None, timeout: float = 30.0):
        self._request = request
        self._failed: dict[str, ServerbenchError] = {}
        self._fault = fault
        self._timeout = timeout
        self._toxiproxy: Toxiproxy | None = None
        self._routes: dict[str, str] = {}  # backend name -> its URL through the toxiproxy

    def get(self, name: str) -> Service:
        if name in self._failed:
            raise self._failed[name]
        try:
            service = self._request.getfixturevalue(f"perf_{name}")
            revive(name, service, self._timeout)
            return service
        except ServerbenchError as exc:
            self._failed[name] = exc
            raise

    def route(self, name: str) -> str:
        """The URL of backend ``name`` through the session's toxiproxy."""
        if name not in self._routes:
            if self._toxiproxy is None:
                self._toxiproxy = Toxiproxy.start(self._timeout)
            self._routes[name] = self._toxiproxy.proxy(name, self.get(name).url)
        return self._routes[name]

    def routed(self, name: str) -> bool:
        """True when the apps are handed ``name`` through the toxiproxy (a proxied --perf-fault names it)."""
        return self._fault is not None and self._fault.proxied and self._fault.backend == name

    def injection(self, fault: Fault, server_url: str, path: str) -> FaultInjection:
        """What makes ``fault`` during a window of the server at ``server_url`` (probed on ``path``)."""
        pid = self.get(fault.backend).pid
        if fault.proxied:
            if not self.routed(fault.backend):
                raise ConfigError(
                    f"the fault {fault.label} needs the apps to reach {fault.backend} through "
                    f"toxiproxy from their start: give it (or another {fault.backend} fault made "
                    f"by toxiproxy) as --perf-fault for the session"
                )
            self.route(fault.backend)
        return FaultInjection(fault, pid, server_url, path, self._toxiproxy, fault.backend)

    def close(self) -> None:
        if self._toxiproxy is not None:
            self._toxiproxy.stop()
            self._toxiproxy = None

    def available(self, names: Iterable[str]) -> dict[str, Service]:
        out = {}
        for name in dict.fromkeys(names):
            try:
                out[name] = self.get(name)
            except ServerbenchError:
                continue
        return out

    def urls(self, names: Iterable[str]) -> dict[str, str]:
        """The URL the apps get for each available backend: through the toxiproxy when a fault routes it."""
        return {
            name: self.route(name) if self.routed(name) else service.url
            for name, service in self.available(names).items()
        }

    def env(self, names: Iterable[str]) -> dict[str, str]:
        """The reference apps' environment: each backend's URL under its SERVERBENCH_<NAME>_URL."""
        return {BACKENDS[name].env_var: url for name, url in self.urls(names).items()}


def _starter(
    request: pytest.FixtureRequest,
    config: PerfConfig,
    port: int | None,
    backends: Iterable[str],
    user: UserApp | None = None,
) -> Callable[[Cell], RunningServer]:
    """Starts a cell's server with its backends' URLs in its environment (a user's app: under the names
    it gave, from its own folder, with its own environment)."""
    backends = tuple(backends)

    def start(cell: Cell) -> RunningServer:
        pool = request.getfixturevalue("perf_backends")
        env = pool.env(backends) if user is None else user.server_env(pool.urls(backends))
        apps_dir = config.apps_dir if user is None else user.directory
        return start_variant(
            cell.variant,
            app=cell.app,
            apps_dir=apps_dir,
            port=port,
            env=env,
            timeout=config.start_timeout,
            host=perf_session_of(request.config).server_host,
            hosts=perf_session_of(request.config).hosts,  # apart from the server host: started there over SSH
        )

    return start


def server_proc(variant: str, app: str | None = None, port: int | None = None, with_redis: bool = True) -> Callable:
    """A session fixture that starts one named variant (serving ``app``, default its reference app),
    verifies it and stops it at the end."""

    @pytest.fixture(scope="session")
    def fixture(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
        session = perf_session_of(request.config)
        if variant not in session.variants:
            raise pytest.UsageError(
                f"server_proc: unknown variant {variant!r}; known variants: {', '.join(session.variants)}"
            )
        spec = session.variants[variant]
        if app is not None and app not in APPS:
            raise pytest.UsageError(f"server_proc: unknown app {app!r}; known apps: {', '.join(APPS)}")
        chosen = APPS[app] if app is not None else spec.default_app
        if not spec.serves(chosen):
            raise pytest.UsageError(
                f"server_proc: {variant} loads {spec.interface} apps; {chosen.name} is {chosen.interface}"
            )
        reason = unavailable_reason(spec, chosen, session.config.apps_dir)
        if reason:
            pytest.skip(reason)
        chosen_port = port if port is not None else session.config.port
        endpoints = [WORKLOADS[w].spec for w in ("plaintext", "json") + (("redis",) if with_redis else ())]
        pool = ServerPool(_starter(request, session.config, chosen_port, ("redis",) if with_redis else ()), endpoints)
        yield pool.get(Cell(spec, chosen))
        pool.close()

    return fixture


# --- the fixtures registered by the plugin ------------------------------------------------

for _name in BACKENDS:  # perf_<backend>_proc, perf_<backend>_noproc and perf_<backend>, from the registry
    globals()[f"perf_{_name}_proc"] = backend_proc(_name)
    globals()[f"perf_{_name}_noproc"] = backend_noproc(_name)
    globals()[f"perf_{_name}"] = _chosen(_name)


@pytest.fixture(scope="session")
def perf_session(request: pytest.FixtureRequest) -> PerfSession:
    """The session's resolved settings, results and baselines."""
    return perf_session_of(request.config)


@pytest.fixture(scope="session")
def perf_backends(request: pytest.FixtureRequest, perf_session: PerfSession) -> Iterator[BackendPool]:
    """Every backing service, started on first need; one that cannot start fails only the tests that need it."""
    config = perf_session.config
    pool = BackendPool(request, config.fault, config.start_timeout)
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def perf_servers(
    request: pytest.FixtureRequest, perf_session: PerfSession, perf_backends: BackendPool
) -> Iterator[ServerPool]:
    """Starts and verifies selected cells one at a time; stops them on every exit path.

    Verification covers the endpoints of every selected workload whose backends are available.
    """
    workloads = [perf_session.workload(w) for w in perf_session.workloads]
    needed = [b for w in workloads for b in w.backends]
    available = perf_backends.available(needed)
    specs = [e for w in workloads if set(w.backends) <= set(available) for e in w.specs]
    pool = ServerPool(
        _starter(request, perf_session.config, perf_session.config.port, available, perf_session.user_app),
        list(dict.fromkeys(specs)),
        progress=perf_session.progress,
    )
    yield pool
    pool.close()


@pytest.fixture
def perf_server(
    request: pytest.FixtureRequest, perf_session: PerfSession, perf_variant: str, perf_app: str, perf_workload: str
) -> RunningServer:
    """The server under test for this test's variant and app (or the --perf-target server)."""
    if perf_variant == TARGET:
        return RunningServer(TARGET, perf_session.config.target, external_pid=perf_session.config.target_pid)
    cell = perf_session.cells[f"{perf_variant}/{perf_app}"]
    reason = unavailable_reason(cell.variant, cell.app, perf_session.config.apps_dir)
    if reason:
        pytest.skip(perf_session.record_skip(cell.name, perf_workload, reason))
    unserved = cell.app.lacks(e.name for e in perf_session.workload(perf_workload).specs)
    if unserved:
        reason = f"{cell.app.name} serves part of the contract, not {', '.join(unserved)}"
        pytest.skip(perf_session.record_skip(cell.name, perf_workload, reason))
    backends: BackendPool = request.getfixturevalue("perf_backends")
    for name in perf_session.workload(perf_workload).backends:
        try:
            backends.get(name).seed()  # each test starts from the contract's data (counters reset)
        except ServerbenchError as exc:
            if perf_session.config.skip_missing_backends:
                reason = f"backend {name} unavailable (--perf-skip-missing-backends): {exc}"
                pytest.skip(perf_session.record_skip(cell.name, perf_workload, reason))
            _fail(perf_session, request, exc)
    pool: ServerPool = request.getfixturevalue("perf_servers")
    user = perf_session.user_app
    if user is not None:
        env = user.server_env(backends.urls([name for name, _ in user.backends]))
        try:
            perf_session.set_up_user_app(env)  # perf_app_setup: once, before the app's first server
            if user.reset is not None:  # every test of a cell starts from the app's one state
                reset_app(user.reset, user.directory, env)
        except ServerbenchError as exc:
            _fail(perf_session, request, exc)
    try:
        return pool.get(cell)
    except ServerbenchError as exc:
        _fail(perf_session, request, exc)
        raise  # unreachable: _fail raises


@pytest.fixture
def perf_fault(perf_session: PerfSession) -> Fault | None:
    """The backend fault made in this test's measured window (--perf-fault; None: none).  Override it to
    choose per test; a fault made through toxiproxy must also be the session's --perf-fault."""
    return perf_session.config.fault


@pytest.fixture(scope="session")
def perf_check() -> Check:
    """How a result is judged against its baseline; override this fixture to plug in another check."""
    return BaselineCheck()


@pytest.fixture
def perf_locust(perf_trial: Callable[[], Result]) -> Callable[[], Result]:
    """Run this test's locust scenario (users x worker processes, from --perf-locust-users/-workers)
    headless against the cell's server; thresholds from @pytest.mark.perf (max_error_rate is the fail
    ratio; min_rps, max_p99_ms)."""
    return perf_trial


@pytest.fixture
def perf_connections(perf_shape: LoadShape) -> int:
    """The connection count of this test's load shape."""
    return perf_shape.connections


@pytest.fixture
def perf_trial(
    request: pytest.FixtureRequest,
    perf_session: PerfSession,
    perf_server: RunningServer,
    perf_workload: str,
    perf_shape: LoadShape,
    perf_check: Check,
) -> Callable[[], Result]:
    """Run this test's trial (``--perf-replicates`` times): warm up, measure, record every
    replicate, judge the median-rps one, and fail on a regression."""
    config = perf_session.config
    marker = request.node.get_closest_marker("perf")
    thresholds = resolve_thresholds(config.thresholds, marker.kwargs if marker else {})
    if perf_session.user_app is not None:  # a user's endpoint does what it does with its backends
        thresholds = dataclasses.replace(thresholds, work_check=False)

    backends = (
        {}
        if perf_server.process is None
        else request.getfixturevalue("perf_backends").available(perf_session.workload(perf_workload).backends)
    )

    shape = perf_session.cell_shape(perf_shape, perf_workload, perf_server.name)
    warm = perf_server.trials > 0  # this process has served another workload (pytest_plugin.order)
    driver = perf_session.driver_for(shape, perf_workload, perf_server.name, warm=warm)
    if shape.workers is not None:
        try:
            driver.check()
        except ServerbenchError as exc:
            pytest.skip(perf_session.record_skip(perf_server.name, perf_workload, str(exc)))
    injection = _injection(request, perf_session, perf_server, perf_workload)
    plan = Trial(
        perf_server,
        perf_session.workload(perf_workload),
        shape,
        driver,
        nodeid=request.node.nodeid,
        test=request.node.originalname,
        machine=perf_session.machine,
        python=perf_session.python,
        backends=backends,
        progress=perf_session.progress,
        during=injection.window if injection is not None else None,
        warmup_driver=_warmup_driver(perf_session, shape, perf_workload),
    )
    warmup = Warmup(config.warmup, perf_session.warmup_rounds, config.settle)

    def longer(seconds: int, lead_s: float | None = None) -> Trial:
        """The trial in a window of ``seconds`` (and a lead-in of ``lead_s`` when given), its driver (a closed model's
        timeout) sized to it."""
        wider = dataclasses.replace(shape, duration=seconds)
        driver = perf_session.driver_for(wider, perf_workload, perf_server.name, lead_s, warm=True)
        return dataclasses.replace(plan, shape=wider, driver=driver)

    def trial() -> Result:
        if injection is not None:
            _fault_trial(request, perf_session, plan, warmup, injection)
        try:
            runs = [
                _served_by(perf_server, run_trial(plan, warmup, longer, perf_session.window_policy), perf_session)
                for _ in range(config.replicates)
            ]
        except ServerbenchError as exc:
            _fail(perf_session, request, exc)
        result = replicated(runs)
        verdict = perf_check.judge(result, perf_session.baseline(result.key), thresholds)
        perf_session.record(result, verdict)
        if verdict.failed:
            pytest.fail(f"{result.key}: {verdict.message}", pytrace=False)
        silent = no_answers(result)  # a measured outcome, recorded above: one line, not the Result's repr
        if silent is not None:
            pytest.fail(f"{result.key}: {silent.message}", pytrace=False)
        return result

    return trial


def _warmup_driver(session: PerfSession, shape: LoadShape, workload: str):
    """A locust scenario on a URL mix warms up with wrk on that mix (measure.trials.trial.Trial.warmup_driver); other shapes
    warm up with their own driver (None)."""
    if shape.workers is None or not session.workload(workload).mix:
        return None
    return session.driver_for(dataclasses.replace(shape, workers=None, ramp=0.0), workload)


def _served_by(server: RunningServer, result: Result, session: PerfSession | None = None) -> Result:
    """The result with the process that served it in its record (``extra["server"]``): one start serves every workload
    of a cell (pytest_plugin.order); across hosts, which host did what (``extra["hosts"]``, docs/hosts.md)."""
    if session is not None and session.hosts is not None:
        result = dataclasses.replace(result, extra={**result.extra, "hosts": session.hosts.record()})
    if server.process is None:
        return result
    return dataclasses.replace(result, extra={**result.extra, "server": server.served()})


def _injection(
    request: pytest.FixtureRequest, session: PerfSession, server: RunningServer, workload: str
) -> FaultInjection | None:
    """The --perf-fault of this test, when its workload uses that backend and serverbench runs the server."""
    fault: Fault | None = request.getfixturevalue("perf_fault")
    if fault is None or server.process is None or fault.backend not in session.workload(workload).backends:
        return None
    try:
        return request.getfixturevalue("perf_backends").injection(fault, server.url, session.workload(workload).path)
    except ServerbenchError as exc:
        _fail(session, request, exc)
        raise  # unreachable: _fail raises


def _fault_trial(
    request: pytest.FixtureRequest, session: PerfSession, plan: Trial, warmup: Warmup, injection: FaultInjection
) -> None:
    """One trial with the fault made in its window; it always fails, saying what the fault did.  The
    server is stopped afterwards (its workers may still wait on the backend), so the next test starts
    a fresh one; a killed backend is started again by the pool when the next test asks for it."""
    result, also = None, ""
    try:
        result = run_trial(plan, warmup)
    except ServerbenchError as exc:
        if injection.last is None:  # it failed before the window: not the fault's doing
            _fail(session, request, exc)
        also = f"\nThe trial itself failed too: {exc}"
    finally:
        request.getfixturevalue("perf_servers").close()
    _fail(session, request, BackendFault(fault_message(injection.last, result.load if result else None) + also))


def _fail(session: PerfSession, request: pytest.FixtureRequest, exc: Exception) -> None:
    params = request.node.callspec.params if hasattr(request.node, "callspec") else {}
    session.record_failure(
        Failure(
            request.node.nodeid,
            params.get("perf_variant", "?"),
            params.get("perf_app", ""),
            params.get("perf_workload", "?"),
            getattr(params.get("perf_shape"), "connections", 0),
            str(exc),
        )
    )
    # Called from an except block: `from None` keeps pytest from printing the caught error again as
    # "During handling of the above exception, another exception occurred".
    raise pytest.fail.Exception(str(exc), pytrace=False) from None
