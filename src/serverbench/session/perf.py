"""The state of one perf session: resolved config, machine identity, results and their verdicts.

Read the options once (like pytest-benchmark's session object); at the end write the JSON
records and, when asked, the baseline.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Callable

from .. import __version__
from ..catalog.matrix import Cell
from ..catalog.shapes import LoadShape
from ..catalog.userapp import UserApp
from ..catalog.variants import Variant
from ..catalog.windows import (
    WindowPolicy,
    ceiling_problems,
    cell_queue_s,
    cell_window_s,
    queues_of,
)
from ..catalog.workloads import WORKLOADS, Workload
from ..config.options import PerfConfig
from ..drivers.base import CellLoad, Driver, closed_driver, driver_for
from ..drivers.oha import OhaDriver
from ..drivers.wrk import WrkDriver
from ..errors import ConfigError, ServerbenchError
from ..hosts.connected import ConnectedHosts, connected
from ..judge.checks import check_session
from ..judge.drift import size_drift
from ..judge.verdict import FAIL, Verdict
from ..measure.host.machine import python_info, run_machine
from ..measure.serving.appsetup import set_up_app
from ..measure.trees.commits import head
from ..measure.trials.phases import PhaseClock
from ..records import results as results_file
from ..records.baselines import Baseline, BaselineStore
from ..records.results import Failure, Skip
from ..records.schema import Result
from ..report.phases import Breakdown, breakdown


class PerfSession:
    def __init__(
        self,
        config: PerfConfig,
        variants: Mapping[str, Variant],
        cells: Sequence[Cell],
        workloads: Sequence[str],
        user: UserApp | None = None,
    ):
        self.config = config
        self.variants = variants
        self.cells = {c.name: c for c in cells}
        self.workloads = tuple(workloads)
        self.user_app = user  # perf_app: its endpoints are the workloads
        self._workload_table: Mapping[str, Workload] = user.workloads if user is not None else WORKLOADS
        plain = [
            LoadShape(c, config.duration, requests_per_connection=r)
            for c in config.connections
            for r in config.requests_per_connection
        ] + [LoadShape(config.rate_connections, config.duration, rate=q) for q in config.rates]
        self.shapes = tuple(
            shape if slow is None else replace(shape, slow_kind=slow[0], slow_clients=slow[1])
            for shape in plain
            for slow in config.slow_clients
        )
        self.locust_shapes = tuple(
            LoadShape(u, config.duration, workers=n) for u in config.locust_users for n in config.locust_workers
        )
        self._drivers: dict[tuple, Driver] = {}
        self._sized: dict[Driver, Driver] = {}
        self.results: list[tuple[Result, Verdict]] = []
        self.failures: list[Failure] = []
        self.skipped: dict[tuple[str, str], list[str]] = {}  # (cell, reason) -> its workloads, for the summary
        self.notices: list[str] = []
        self._machine: dict[str, Any] | None = None
        self._closed: str | None = None
        self._baselines: dict[str, Baseline] | None = None
        self.on_progress: Callable[[str, int], None] | None = None  # the live progress line, when shown
        self.phases = PhaseClock()  # where each test's time goes (the plugin begins and ends its tests)
        self._set_up: float | ServerbenchError | None = None  # perf_app_setup: its seconds, or how it failed
        self.hosts: ConnectedHosts | None = connected(str(config.hosts)) if config.hosts is not None else None

    def open_hosts(self) -> None:
        """With an inventory: check every host (the run stops here, naming the host and the fix, before any server
        starts) and connect the load hosts; nothing without one."""
        if self.hosts is not None and not self.hosts.places:
            self.hosts.open(backends=any(self.workload(w).backends for w in self.workloads))
            if self.hosts.backend_urls:  # the backends host's services, where no --<name>-url names one
                given = self.config.backend_urls
                urls = {n: u if u is not None else self.hosts.backend_urls.get(n) for n, u in given.items()}
                self.config = replace(self.config, backend_urls=urls)
            names = ", ".join(f"{p.name} ({p.cores} core(s))" for p in self.hosts.places)
            backends = self.hosts.backends_host if self.hosts.backend_urls else None  # none started: none named
            shared = " (shared with the server)" if backends is not None and backends.role == "server" else ""
            over_ssh = ", started there over SSH from this session apart" if self.hosts.apart else ""
            self.notices.append(
                f"hosts ({self.hosts.inventory.path}): the server on {self.hosts.inventory.server.name} "
                f"({self.hosts.server_address}{over_ssh}), load on {names}"
                + (f", backends on {backends.name} ({backends.address}){shared}" if backends is not None else "")
                + f"; checked in {self.hosts.check_s:.1f} s"
                + (f"; handed over from {controller}" if (controller := self.hosts.record()["controller"]) else "")
            )

    @property
    def places(self) -> tuple:
        """The load hosts' places for the drivers; () on this machine alone."""
        return self.hosts.places if self.hosts is not None else ()

    @property
    def server_host(self) -> str | None:
        """The address servers bind to with an inventory (the server host's, so load hosts reach it); None: loopback."""
        return self.hosts.server_address if self.hosts is not None else None

    def set_up_user_app(self, env: Mapping[str, str]) -> None:
        """perf_app_setup, once per session (each xdist worker), before the user app's first server or count;
        when it failed, every later test fails with the same error at once."""
        user = self.user_app
        if user is None or user.setup is None:
            return
        if isinstance(self._set_up, ServerbenchError):
            raise self._set_up
        if self._set_up is None:
            try:
                self._set_up = set_up_app(user.setup, user.directory, env)
            except ServerbenchError as exc:
                self._set_up = exc
                raise
            self.notices.append(f"perf_app_setup ran in {self._set_up:.1f} s in {user.directory}: {user.setup}")

    def workload(self, name: str) -> Workload:
        """The workload ``name``: the contract's, or one of the user's endpoints when serving perf_app."""
        return self._workload_table[name]

    def progress(self, phase: str, round: int = 0) -> None:
        """The measuring code reports each phase of the running cell here (start, verify, warm-up, lead-in, measure,
        trail, analysis, again, stop): the phase clock counts it, and the live line shows it."""
        self.phases.phase(phase)
        if self.on_progress is not None:
            self.on_progress(phase, round)

    @property
    def closed_driver(self) -> str:
        """The closed model's driver: --perf-closed-driver, or with ``auto`` oha (a steady-state window) when it is
        installed and wrk otherwise, said in a notice (wrk's run window: docs/trial.md)."""
        if self._closed is None:
            driver, missing = closed_driver(self.config.closed_driver)
            self._closed = driver.name
            if missing is not None:
                self.notices.append(
                    f"closed-model cells ran on wrk, not oha ({missing}): wrk's window starts on a "
                    "drained server, so a pool at its capacity shows '?' for its latencies"
                )
        return self._closed

    @property
    def machine(self) -> dict[str, Any]:
        """Identity of this machine for baselines: CPU, cores, interpreter and the closed-model driver (oha, or wrk
        with --perf-closed-driver wrk or without oha: each one's throughput is its own, so its baselines are too)."""
        if self._machine is None:
            closed = OhaDriver() if self.closed_driver == "oha" else WrkDriver()
            self._machine = run_machine(closed, len(self.hosts.inventory.load) if self.hosts is not None else 0)
        return self._machine

    def cell_shape(self, shape: LoadShape, workload: str, variant: str) -> LoadShape:
        """The shape a cell runs: a closed model's window sized to the queue its designed capacity implies
        (catalog.windows: at least five queues, so the requests carried across its edges do not move Little's law)."""
        if shape.rate is not None or shape.workers is not None:
            return shape
        window = cell_window_s(
            self.variants.get(variant),
            self.workload(workload),
            shape.connections,
            shape.duration,
            self.config.window_max,
        )
        return shape if window == shape.duration else replace(shape, duration=window)

    def check_ceiling(self) -> None:
        """Before any server starts: a --perf-window-max shorter than a selected closed-model cell's designed queue is a
        usage error naming the cells; one shorter than WINDOW_QUEUES queues is a notice."""
        queues = {
            f"{cell.name} {w} c{s.connections}": (
                cell_queue_s(cell.variant, self.workload(w), s.connections),
                queues_of(cell.variant).window,
            )
            for cell in self.cells.values()
            for w in self.workloads
            for s in self.shapes
            if s.rate is None
        }
        short, capped = ceiling_problems({k: v for k, v in queues.items() if v[0] > 0}, self.config.window_max)
        if short:
            raise ConfigError(
                f"--perf-window-max {self.config.window_max} s is shorter than the designed queue of "
                f"{', '.join(short)}: no window that short measures a request sent and answered in it. Raise "
                "--perf-window-max, or measure those cells with fewer connections (--perf-connections)"
            )
        if capped:
            self.notices.append(
                f"--perf-window-max {self.config.window_max} s is shorter than the windows sized to the designed "
                f"queues of {', '.join(capped)}: their windows' edges weigh more (docs/load-shapes.md)"
            )

    @property
    def window_policy(self) -> WindowPolicy:
        """When a closed-model window has converged (--perf-precision) and how long one may grow (--perf-window-max)."""
        return WindowPolicy(self.config.precision, self.config.window_max)

    def driver_for(
        self,
        shape: LoadShape,
        workload: str | None = None,
        variant: str | None = None,
        lead_s: float | None = None,
        warm: bool = False,
    ) -> Driver:
        """The driver of a shape on a workload (one instance per kind and timeout for the session): a URL mix or a
        user's endpoint's request needs wrk in the closed model.  With the cell's ``variant``, a closed model's
        per-request timeout is sized to the cell (catalog.timeouts: its load plus the queue its designed capacity
        implies).  ``lead_s``: a closed model's lead-in at least this long (a window measured again); ``warm``: the
        server has just served another workload (catalog.windows.warm_lead_s)."""
        one_url = workload is None or (not self.workload(workload).mix and self.workload(workload).request is None)
        kind = (shape.rate is None, shape.workers, shape.requests_per_connection is None, one_url)
        if kind not in self._drivers:
            self._drivers[kind] = driver_for(
                shape, threads=self.config.threads, closed=self.closed_driver, one_url=one_url, places=self.places
            )
        driver = self._drivers[kind]
        if variant is None or workload is None:
            return driver
        load = CellLoad(
            self.variants.get(variant), self.workload(workload), shape, self.config.warmup, warm, lead_s or 0
        )
        sized = driver.sized(load)  # oha: its lead-in (the warm-up) and trail sized to the cell's queue too
        # One instance per size for the session (each reads its binary's version once).
        return driver if sized is driver else self._sized.setdefault(sized, sized)

    @property
    def warmup_rounds(self) -> int:
        """--perf-warmup-rounds, else 1 on CPython and 10 on PyPy, whose JIT warms up for several rounds."""
        if self.config.warmup_rounds is not None:
            return self.config.warmup_rounds
        return 10 if self.python.get("implementation", "").lower() == "pypy" else 1

    @property
    def python(self) -> dict[str, Any]:
        return python_info()

    @property
    def store(self) -> BaselineStore:
        return BaselineStore(self.config.baseline_dir, self.machine)

    def baseline(self, key: str) -> Baseline | None:
        """The stored baseline of a cell; never one when this session is saving new baselines."""
        if self.config.save_baseline:
            return None
        if self._baselines is None:
            self._baselines = self.store.load()
        return self._baselines.get(key)

    def record(self, result: Result, verdict: Verdict) -> None:
        self.results.append((result, verdict))

    def record_failure(self, failure: Failure) -> None:
        self.failures.append(failure)

    def record_skip(self, cell: str, workload: str, reason: str) -> str:
        """A cell's test that cannot run here (a server not installed, an app without the workload's endpoints, a
        backend or load generator missing): a row of the summary, its reason listed under the table."""
        workloads = self.skipped.setdefault((cell, reason), [])
        if workload not in workloads:
            workloads.append(workload)
        return reason

    def write_exports(self) -> None:
        """The HTML report (--perf-html) and the pytest-benchmark file (--perf-benchmark-json) of this session."""
        if self.config.html_path is None and self.config.benchmark_json_path is None:
            return
        from ..report import exports  # imported when used: the report's statistics (numpy, scipy) slow every start

        records = [(r, v.to_record()) for r, v in self.results]
        if self.config.html_path is not None and (self.results or self.failures):
            size = exports.write_html(self.config.html_path, self.machine, records, self.failures)
            self.notices.append(f"HTML report written to {self.config.html_path} ({size / 1024:,.0f} KB)")
        if self.config.benchmark_json_path is not None and self.results:
            count = exports.write_benchmark_json(self.config.benchmark_json_path, self.machine, records)
            self.notices.append(
                f"pytest-benchmark JSON ({count} benchmarks) written to {self.config.benchmark_json_path}"
            )

    def time_spent(self) -> Breakdown:
        """Where this session's time went: its perf tests' phases, and the install ./run did before pytest
        (SERVERBENCH_INSTALL_S, which ./run sets)."""
        return breakdown(self.phases.tests, install_seconds())

    def finish(self) -> None:
        """Write the JSON records and the baseline; say what was written in ``notices`` (and warn of an
        endpoint whose responses changed size across the run's cells)."""
        if self.hosts is not None:
            self.hosts.close()  # every test is done: the master connections go
        self.notices += size_drift([r for r, _ in self.results])
        if self.config.json_path is not None and (self.results or self.failures or self.skipped):
            flags = [[f.to_record() for f in fs] for fs in check_session([r for r, _ in self.results])]
            results_file.write(
                self.config.json_path,
                self.machine,
                [(r, v.to_record()) for r, v in self.results],
                self.failures,
                __version__,
                flags=flags,
                phases=self.time_spent().to_record(),
                commit=head(self.config.apps_dir if self.user_app is None else self.user_app.directory),
                skipped=[Skip(cell, w, reason) for (cell, reason), ws in self.skipped.items() for w in ws],
                python=self.python,
            )
            self.notices.append(f"results written to {self.config.json_path}")
        self.write_exports()
        if self.config.save_baseline:
            keep = [r for r, v in self.results if v.status != FAIL]
            dropped = [r.key for r, v in self.results if v.status == FAIL] + [f.nodeid for f in self.failures]
            if keep:
                written = self.store.save(keep)
                self.notices.append(f"baseline for {len(written)} cell(s) saved to {self.store.path}")
            if dropped:
                self.notices.append(f"not saved as baseline (failed): {', '.join(dropped)}")


INSTALL_VAR = "SERVERBENCH_INSTALL_S"  # ./run: the seconds its installs took before pytest started


def install_seconds() -> float | None:
    """The install time ./run measured before this pytest (None when pytest was started some other way)."""
    try:
        seconds = float(os.environ.get(INSTALL_VAR, ""))
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
