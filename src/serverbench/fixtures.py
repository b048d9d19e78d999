"""Fixture factories in the pytest-redis style, and the fixtures the plugin registers.

Three tiers: ``*_proc`` (session scope, owns a process), ``*_noproc`` (session scope, uses a
service someone else runs), and function-scope fixtures that reset state.  Factories take
keyword arguments defaulting to None; a given argument beats the command line and ini.

    # conftest.py
    from serverbench.fixtures import redis_proc, server_proc
    redis_on_6380 = redis_proc(port=6380)
    gunicorn = server_proc("gunicorn-sync-w2")
"""
from __future__ import annotations

from typing import Callable, Iterator

import pytest

from .backends import RedisService, connect_redis, start_redis
from .config import PerfConfig, resolve_thresholds
from .errors import ServerbenchError
from .results import Result
from .servers import RunningServer, ServerPool, start_variant, unavailable_reason
from .session import Failure, PerfSession
from .trial import run_trial
from .apps import APPS
from .matrix import Cell
from .verdict import BaselineCheck, Check
from .workloads import WORKLOADS

SESSION_KEY = pytest.StashKey[PerfSession]()
TARGET = "target"  # the pseudo-variant name of a --perf-target server


def perf_session_of(config: pytest.Config) -> PerfSession:
    return config.stash[SESSION_KEY]


def redis_proc(port: int | None = None, executable: str | None = None) -> Callable:
    """A session fixture that starts redis-server (no persistence) and stops it by pid."""

    @pytest.fixture(scope="session")
    def fixture(request: pytest.FixtureRequest) -> Iterator[RedisService]:
        config = perf_session_of(request.config).config
        service = start_redis(port=port, executable=executable, timeout=config.start_timeout)
        yield service
        service.stop()

    return fixture


def redis_noproc(url: str | None = None) -> Callable:
    """A session fixture for a Redis someone else runs: ``url`` > --redis-url > ini redis_url."""

    @pytest.fixture(scope="session")
    def fixture(request: pytest.FixtureRequest) -> RedisService:
        chosen = url if url is not None else perf_session_of(request.config).config.redis_url
        if chosen is None:
            raise pytest.UsageError("redis_noproc needs a URL: pass --redis-url redis://127.0.0.1:PORT/0")
        return connect_redis(chosen)

    return fixture


def _starter(request: pytest.FixtureRequest, config: PerfConfig, port: int | None,
             with_redis: bool) -> Callable[[Cell], RunningServer]:
    def start(cell: Cell) -> RunningServer:
        env = {"SERVERBENCH_REDIS_URL": request.getfixturevalue("perf_redis").url} if with_redis else {}
        return start_variant(cell.variant, app=cell.app, apps_dir=config.apps_dir, port=port, env=env,
                             timeout=config.start_timeout)

    return start


def server_proc(variant: str, app: str | None = None, port: int | None = None, with_redis: bool = True) -> Callable:
    """A session fixture that starts one named variant (serving ``app``, default its reference app),
    verifies it and stops it at the end."""

    @pytest.fixture(scope="session")
    def fixture(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
        session = perf_session_of(request.config)
        if variant not in session.variants:
            raise pytest.UsageError(f"server_proc: unknown variant {variant!r}; known variants: "
                                    f"{', '.join(session.variants)}")
        spec = session.variants[variant]
        if app is not None and app not in APPS:
            raise pytest.UsageError(f"server_proc: unknown app {app!r}; known apps: {', '.join(APPS)}")
        chosen = APPS[app] if app is not None else spec.default_app
        if not spec.serves(chosen):
            raise pytest.UsageError(f"server_proc: {variant} loads {spec.interface} apps; {chosen.name} is "
                                    f"{chosen.interface}")
        reason = unavailable_reason(spec, chosen)
        if reason:
            pytest.skip(reason)
        chosen_port = port if port is not None else session.config.port
        endpoints = [WORKLOADS[w].spec for w in WORKLOADS if with_redis or not WORKLOADS[w].backends]
        pool = ServerPool(_starter(request, session.config, chosen_port, with_redis), endpoints)
        yield pool.get(Cell(spec, chosen))
        pool.close()

    return fixture


# --- the fixtures registered by the plugin ------------------------------------------------

perf_redis_proc = redis_proc()
perf_redis_noproc = redis_noproc()


@pytest.fixture(scope="session")
def perf_session(request: pytest.FixtureRequest) -> PerfSession:
    """The session's resolved settings, results and baselines."""
    return perf_session_of(request.config)


@pytest.fixture(scope="session")
def perf_redis(request: pytest.FixtureRequest, perf_session: PerfSession) -> RedisService:
    """Redis for the apps: --redis-url if given (noproc), else a redis-server started for the session."""
    name = "perf_redis_noproc" if perf_session.config.redis_url is not None else "perf_redis_proc"
    return request.getfixturevalue(name)


@pytest.fixture(scope="session")
def perf_servers(request: pytest.FixtureRequest, perf_session: PerfSession) -> Iterator[ServerPool]:
    """Starts and verifies selected variants one at a time; stops them on every exit path."""
    workloads = [WORKLOADS[w] for w in perf_session.workloads]
    with_redis = any("redis" in w.backends for w in workloads)
    pool = ServerPool(_starter(request, perf_session.config, perf_session.config.port, with_redis),
                      [w.spec for w in workloads])
    yield pool
    pool.close()


@pytest.fixture
def perf_server(request: pytest.FixtureRequest, perf_session: PerfSession, perf_variant: str,
                perf_app: str) -> RunningServer:
    """The server under test for this test's variant and app (or the --perf-target server)."""
    if perf_variant == TARGET:
        return RunningServer(TARGET, perf_session.config.target, external_pid=perf_session.config.target_pid)
    cell = perf_session.cells[f"{perf_variant}/{perf_app}"]
    reason = unavailable_reason(cell.variant, cell.app)
    if reason:
        pytest.skip(reason)
    if any("redis" in WORKLOADS[w].backends for w in perf_session.workloads):
        request.getfixturevalue("perf_redis").seed()
    pool: ServerPool = request.getfixturevalue("perf_servers")
    try:
        return pool.get(cell)
    except ServerbenchError as exc:
        _fail(perf_session, request, exc)
        raise  # unreachable: _fail raises


@pytest.fixture(scope="session")
def perf_check() -> Check:
    """How a result is judged against its baseline; override this fixture to plug in another check."""
    return BaselineCheck()


@pytest.fixture
def perf_trial(request: pytest.FixtureRequest, perf_session: PerfSession, perf_server: RunningServer,
               perf_workload: str, perf_connections: int, perf_check: Check) -> Callable[[], Result]:
    """Run this test's trial: warm up, measure, record, and fail on a regression."""
    config = perf_session.config
    marker = request.node.get_closest_marker("perf")
    thresholds = resolve_thresholds(config.thresholds, marker.kwargs if marker else {})

    def trial() -> Result:
        try:
            result = run_trial(perf_server, WORKLOADS[perf_workload], perf_connections,
                               driver=perf_session.driver, duration=config.duration, warmup=config.warmup,
                               nodeid=request.node.nodeid, test=request.node.originalname,
                               machine=perf_session.machine, python=perf_session.python,
                               warmup_rounds=perf_session.warmup_rounds, settle=config.settle)
        except ServerbenchError as exc:
            _fail(perf_session, request, exc)
        verdict = perf_check.judge(result, perf_session.baseline(result.key), thresholds)
        perf_session.record(result, verdict)
        if verdict.failed:
            pytest.fail(f"{result.key}: {verdict.message}", pytrace=False)
        return result

    return trial


def _fail(session: PerfSession, request: pytest.FixtureRequest, exc: Exception) -> None:
    params = request.node.callspec.params if hasattr(request.node, "callspec") else {}
    session.record_failure(Failure(request.node.nodeid, params.get("perf_variant", "?"), params.get("perf_app", ""),
                                   params.get("perf_workload", "?"), params.get("perf_connections", 0), str(exc)))
    pytest.fail(str(exc), pytrace=False)
