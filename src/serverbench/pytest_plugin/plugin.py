"""The pytest plugin: options, markers, parametrization, fixtures and the summary.  Wiring only."""

from __future__ import annotations

import pytest

from ..backends.base import BACKENDS
from ..backends.environment import require_program
from ..catalog import shapes
from ..catalog.matrix import cells, every_cell, select, user_cells
from ..catalog.variants import registry
from ..catalog.workloads import WORKLOADS
from ..config import options as cfg
from ..errors import ConfigError, ServerbenchError
from ..hosts import handover
from ..measure.serving.servers import unavailable_reason
from ..measure.serving.userapp import resolve_user_app
from ..processes.executors import raise_open_files
from ..processes.stopping import sigterm_interrupts
from ..report import benchmark_json, reference
from ..report.phases import cell_label
from ..report.phases import lines as phase_lines
from ..report.terminal import missing_baseline_line, rate_ladders, summary_table, variant_table
from ..session.perf import PerfSession
from .fixtures import SESSION_KEY, TARGET, perf_session_of
from .order import grouped_by_cell
from .progress import ProgressLine, terminal_stream

# The fixtures (one proc/noproc pair per backend of the registry, the servers, the trial), the cost
# tests (-m cost: counted instructions) and parallel runs (shards, xdist) are plugins of their own.
pytest_plugins = [
    "serverbench.pytest_plugin.fixtures",
    "serverbench.pytest_plugin.cost",
    "serverbench.pytest_plugin.parallel",
]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("serverbench", "serverbench: web server performance")
    for option in cfg.OPTIONS:
        if option.flag_only or isinstance(option.default, bool):
            group.addoption(
                option.flag, action="store_true", default=None, dest=option.name, help=option.help.replace("%", "%%")
            )
        else:
            group.addoption(
                option.flag, action="store", default=None, dest=option.name, help=option.help.replace("%", "%%")
            )
        # A one-per-line option is a linelist, so a TOML list is accepted as pytest's own type (a string type
        # warns with PytestRemovedIn10Warning, an error under filterwarnings = error); an ini value is split
        # into lines and joined again by the option's parser.
        parser.addini(option.name, option.help, type="linelist" if option.lines else None, default=None)
    group.addoption(
        "--perf-list",
        action="store_true",
        default=False,
        help="List the whole variant x app matrix with whether each cell can run here (and why not); start nothing.",
    )
    group.addoption(
        "--markdown",
        action="store_true",
        default=False,
        dest="perf_list_markdown",
        help="With --perf-list: print the variants and apps as Markdown, the same on every machine "
        "(docs/variants.md holds the committed copy).",
    )


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    handed = _handed_over(config)
    if handed is not None:
        return handed
    if not config.getoption("perf_list"):
        if config.getoption("perf_list_markdown"):
            raise pytest.UsageError("--markdown only changes --perf-list: run `pytest --perf-list --markdown`")
        return None
    config._do_configure()
    try:
        if config.getoption("perf_list_markdown"):  # no ready/skip column: the same text on every machine
            config.get_terminal_writer().write(reference.catalog())
            return 0
        session = perf_session_of(config)
        listed = list(session.cells.values()) if session.user_app else every_cell(session.variants.values())
        rows = [(c, unavailable_reason(c.variant, c.app, session.config.apps_dir)) for c in listed]
        writer, tty = config.get_terminal_writer(), config.pluginmanager.get_plugin("terminalreporter").isatty()
        writer.write(variant_table(rows, writer.fullwidth if tty else None))  # a log: as wide as the table
    finally:
        config._ensure_unconfigure()
    return 0


def _handed_over(config: pytest.Config) -> int | None:
    """With an inventory whose server host is another machine, a session that must run where its server runs is
    handed over there (hosts.handover: :func:`~serverbench.hosts.handover.needed`): its exit status; None to run here.
    A perf session of the reference apps runs here, apart from the server host, and starts its servers there over SSH
    (measure.serving.remote)."""
    if hasattr(config, "workerinput") or config.getoption("perf_list"):
        return None
    cli = {o.name: config.getoption(o.name) for o in cfg.OPTIONS}
    ini = {o.name: config.getini(o.name) for o in cfg.OPTIONS}
    try:
        resolved = cfg.resolve(cli, ini, config.rootpath, config.invocation_params.dir)
        if not handover.needed(config.option.markexpr, resolved.app is not None):
            return None
        args = handover.without_hosts_flag(config.invocation_params.args)
        return handover.if_apart(
            resolved.hosts,
            # One word: pytest finds its rootdir before it knows the flag, and would take a separate path for a folder
            lambda server, there: [server.python, "-m", "pytest", *args, f"--perf-hosts={there}"],
            cwd=config.invocation_params.dir,
        )
    except ServerbenchError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "perf(tolerance=None, max_error_rate=None): a load test; optional per-test thresholds"
    )
    cli = {o.name: config.getoption(o.name) for o in cfg.OPTIONS}
    ini = {o.name: config.getini(o.name) for o in cfg.OPTIONS}
    try:
        resolved = cfg.resolve(cli, ini, config.rootpath, config.invocation_params.dir)
        variants = registry()
        user = None  # perf_app: the project's own app and endpoints instead of the reference apps
        if resolved.app is not None:
            user = resolve_user_app(resolved, config.hook.pytest_perf_endpoints(config=config))
        if resolved.target is not None:
            selected = []
        elif user is not None:
            selected = user_cells(list(variants.values()), resolved.variants, user.app, user.ready_path)
        else:
            names = select(list(variants), resolved.variants, "variant")
            selected = cells([variants[n] for n in names], resolved.apps)
        workloads = select(list(user.workloads if user else WORKLOADS), resolved.workloads, "workload")
        if resolved.benchmark_json_path is not None:
            benchmark_json.check_available()
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[SESSION_KEY] = PerfSession(resolved, variants, selected, workloads, user)
    # A CI runner's cancel or `kill` (SIGTERM) ends the session as Ctrl-C does, through every teardown: Python's
    # default would end at once, and the processes on load hosts, tethered to this one's SSH sessions, would stay.
    config.add_cleanup(sigterm_interrupts())
    stream = None if config.option.collectonly or hasattr(config, "workerinput") else terminal_stream()
    if stream is not None:  # a terminal: the live progress line
        line = ProgressLine(config, config.stash[SESSION_KEY], stream)
        config.stash[SESSION_KEY].on_progress = line.phase
        config.pluginmanager.register(line, "serverbench-progress")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "perf_variant" not in metafunc.fixturenames:
        return
    session = perf_session_of(metafunc.config)
    pairs = [(c.variant.name, c.app.name) for c in session.cells.values()] or [(TARGET, "")]
    if "perf_locust_workers" in metafunc.fixturenames:  # a locust scenario: the book site, users x workers
        book_site = session.user_app is None  # a user's app has no book site: no locust test
        params = [(v, a, "site", s, s.workers) for v, a in pairs for s in session.locust_shapes if book_site]
        metafunc.parametrize(
            "perf_variant,perf_app,perf_workload,perf_shape,perf_locust_workers",
            params,
            ids=[f"{v}-{a}-{s.label}" if a else f"{v}-{s.label}" for v, a, _, s, _ in params],
        )
        return
    params = [(v, a, w, s) for v, a in pairs for w in session.workloads for s in session.shapes]
    metafunc.parametrize(
        "perf_variant,perf_app,perf_workload,perf_shape",
        params,
        ids=[f"{v}-{a}-{w}-{s.label}" if a else f"{v}-{w}-{s.label}" for v, a, w, s in params],
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Before any server starts: the binaries and the baseline file the selected perf tests need; each cell's tests
    together (order.grouped_by_cell), so its server starts once."""
    perf_items = [i for i in items if "perf_trial" in getattr(i, "fixturenames", ())]
    # Counted runs run here, the server host, and an inventory's backends host serves their backends too.
    counted = any("perf_cost" in getattr(i, "fixturenames", ()) for i in items)
    if not perf_items and not counted:
        return
    session = perf_session_of(config)
    try:
        session.open_hosts()  # with an inventory: every host checked before any server starts (docs/hosts.md)
        if not perf_items:
            return
        items[:] = grouped_by_cell(items)
        drives = [(session.driver_for(s, w), s) for s in session.shapes if s.workers is None for w in session.workloads]
        for driver in {id(d): d for d, _ in drives}.values():  # one check per driver (locust's: skipped per test)
            driver.check()
            shapes.check(list({s: None for d, s in drives if d is driver}), driver.capabilities)
        raise_open_files(shapes.fd_need([s.connections for s in session.shapes]))
        session.check_ceiling()
        needed = {name for w in session.workloads for name in session.workload(w).backends}
        for name in needed if session.config.target is None else ():
            spec = BACKENDS[name]
            if spec.binary is not None and session.config.backend_urls[name] is None:  # one it would start
                require_program(spec.binary, spec.binary)
        session.store.load()
    except ServerbenchError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Each perf test's phases are clocked from its setup to its teardown (PerfSession.phases)."""
    perf = item.config.stash.get(SESSION_KEY, None)
    timed = perf is not None and "perf_trial" in getattr(item, "fixturenames", ())
    if timed:
        perf.phases.begin(item.nodeid)
    yield
    if timed:
        perf.phases.end()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    perf = session.config.stash.get(SESSION_KEY, None)
    if perf is not None:
        try:
            perf.finish()
        except ServerbenchError as exc:
            perf.notices.append(f"ERROR: {exc}")
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        except KeyboardInterrupt:  # each file is written whole or not at all; the servers still get torn down
            perf.notices.append("interrupted while writing: only the files named above were written")
            session.exitstatus = pytest.ExitCode.INTERRUPTED


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    perf = config.stash.get(SESSION_KEY, None)
    if perf is None or not (perf.results or perf.failures or perf.skipped):
        return
    terminalreporter.section("serverbench")
    terminalreporter.write(
        summary_table(
            perf.results,
            perf.failures,
            terminalreporter._tw.fullwidth if terminalreporter.isatty() else None,  # a log: as wide as the table
            perf.config.save_baseline,
            perf.skipped,
        )
    )
    missing = [r.key for r, v in perf.results if v.status == "no-baseline"]
    if missing and not perf.config.save_baseline:
        terminalreporter.write_line(missing_baseline_line(len(missing), perf.machine["id"]))
    for line in rate_ladders([r for r, _ in perf.results]):
        terminalreporter.write_line(line)
    for line in phase_lines(perf.time_spent(), {n: cell_label(n) for n in perf.phases.tests}):
        terminalreporter.write_line(line)
    for notice in perf.notices:
        terminalreporter.write_line(notice)
