"""Cost tests (``pytest -m cost``): each selected cell counted under valgrind, judged against its
stored cost baseline, one record each in --perf-json (under ``"cost"``).

Counts do not move with the machine's load, so cost tests may run under pytest-xdist (``-n auto``);
timed tests (``-m perf``) may not, and are refused there (:mod:`.parallel`).  Workers hand their
records to the controller, which writes the results file and the baselines once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import pytest

from .. import __version__
from ..config.options import parse_option
from ..errors import ConfigError, ServerbenchError
from ..judge.cost import FAIL, CostVerdict, judge_cost
from ..judge.system import VDSO, peers_line
from ..measure.counting.cost import CostPlan, measure_cost
from ..measure.counting.pytrace import profile_python
from ..measure.serving.reset import reset_app
from ..measure.serving.servers import unavailable_reason
from ..records.cost import (
    SAVE_COMMAND,
    CostBaselineStore,
    CostRecord,
    add_to_results_file,
    environment_id,
    written_from,
)
from .fixtures import perf_session_of

COST_KEY = pytest.StashKey["CostSession"]()
WORKER_OUTPUT = "serverbench_cost"
MARKER_KEYS = ("tolerance",)


class CostSession:
    """The cost records of one session (or, under xdist, gathered from every worker) and their verdicts."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []  # CostRecord.to_record(verdict), as written
        self.notices: list[str] = []
        self._stores: dict[str, CostBaselineStore] = {}

    def store(self, folder: Path, environment: Mapping[str, Any]) -> CostBaselineStore:
        """The baseline store of a counting environment (one per environment for the session)."""
        return self._stores.setdefault(environment_id(environment), CostBaselineStore(folder, environment))

    def finish(self, config: pytest.Config) -> list[str]:
        """Write the records into --perf-json and, with --perf-save-baseline, the passing ones as baselines."""
        perf = perf_session_of(config)
        # A counted-only session has no perf summary to print the session's own notices (the hosts it used): here.
        notices = [] if perf.results or perf.failures or perf.skipped else list(perf.notices)
        if perf.config.json_path is not None and self.records:
            add_to_results_file(perf.config.json_path, self.records, perf.machine, __version__)
            notices.append(f"{len(self.records)} cost record(s) written to {perf.config.json_path}")
        if perf.config.save_baseline:
            groups: dict[str, list[CostRecord]] = {}
            for row in self.records:
                if (row.get("verdict") or {}).get("status") != FAIL:
                    groups.setdefault(environment_id(row["environment"]), []).append(CostRecord.from_record(row))
            for group in groups.values():
                store = self.store(perf.config.cost_baseline_dir, group[0].environment)
                notices.append(f"cost baseline for {len(store.save(group))} cell(s) saved to {store.path}")
        return notices


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cost(tolerance=None): a counted-instructions test (valgrind); optional per-test tolerance"
    )
    config.stash[COST_KEY] = CostSession()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cost_variant" not in metafunc.fixturenames:
        return
    session = perf_session_of(metafunc.config)
    params = [(c.variant.name, c.app.name, w) for c in session.cells.values() for w in session.workloads]
    metafunc.parametrize("cost_variant,cost_app,cost_workload", params, ids=[f"{v}-{a}-{w}" for v, a, w in params])


@pytest.fixture
def perf_cost(
    request: pytest.FixtureRequest, cost_variant: str, cost_app: str, cost_workload: str
) -> Callable[[], CostRecord]:
    """Count this test's cell under valgrind, record it, judge it against its cost baseline and fail on
    a rise beyond the tolerance (``@pytest.mark.cost(tolerance=...)``, else ``--perf-cost-tolerance`` with
    the variant's own ``cost_tolerance`` as a floor; 3x the spread of the counts the baseline was written from
    where that is wider).  With --perf-save-baseline the cell is counted --perf-cost-baseline-counts times."""
    perf = perf_session_of(request.config)
    cell = perf.cells[f"{cost_variant}/{cost_app}"]
    tolerance = _tolerance(request, max(perf.config.cost_tolerance, cell.variant.cost_tolerance or 0.0))
    reason = unavailable_reason(cell.variant, cell.app, perf.config.apps_dir)
    if reason:
        pytest.skip(perf.record_skip(cell.name, cost_workload, reason))
    if cell.app.runtime != "python":  # a cost record is keyed by the Python interpreter and attributes Python packages
        reason = (
            f"counted instructions are measured for Python servers only; {cell.app.runtime} rows are timed, not counted"
        )
        pytest.skip(f"{cell.name}: {perf.record_skip(cell.name, cost_workload, reason)}")
    workload = perf.workload(cost_workload)  # a reference workload, or one of the user's endpoints
    env = _backend_env(request, perf, workload, cell.name)
    user = perf.user_app
    plan = CostPlan(
        cell.variant,
        cell.app,
        workload,
        requests=perf.config.cost_requests,
        apps_dir=perf.config.apps_dir if user is None else user.directory,
        env=env,
        nodeid=request.node.nodeid,
    )

    def count() -> CostRecord:
        if user is not None and user.reset is not None:  # the count starts from the app's one state
            reset_app(user.reset, user.directory, env)
        return measure_cost(plan)

    def measure() -> CostRecord:
        # A baseline is written from several counts: the median one, with their spread (judge/cost.py widens the
        # tolerance of a cell whose counts fall apart).
        counts = perf.config.cost_baseline_counts if perf.config.save_baseline else 1
        try:
            perf.set_up_user_app(env)  # perf_app_setup: once, before the app's first count
            record = written_from([count() for _ in range(counts)])
        except ServerbenchError as exc:
            pytest.fail(f"{cell.name} {workload.name}: {exc}", pytrace=False)
        store = request.config.stash[COST_KEY].store(perf.config.cost_baseline_dir, record.environment)
        baseline = None if perf.config.save_baseline else store.load().get(record.key)
        verdict = judge_cost(record, baseline, tolerance)
        note = ""
        # A baseline keeps, a failure needs, the Python profile; so does a move of a package that ran, to name
        # every package that ran in this window too (pure-Python ones show only at the Python level).
        if perf.config.save_baseline or verdict.failed or verdict.moved:
            record, note = _with_python_profile(plan, record)
            verdict = judge_cost(record, baseline, tolerance)
        _record(request, record, verdict)
        if verdict.failed:
            pytest.fail(f"{record.key}: {verdict.report()}{note}", pytrace=False)
        return record

    return measure


def _with_python_profile(plan: CostPlan, record: CostRecord) -> tuple[CostRecord, str]:
    """The record with its Python-level profile (a second, untimed pass), or unchanged and why not."""
    try:
        return replace(record, python_functions=profile_python(plan)), ""
    except ServerbenchError as exc:
        return record, f"\n(no Python-level profile: {exc})"


def _tolerance(request: pytest.FixtureRequest, default: float) -> float:
    marker = request.node.get_closest_marker("cost")
    kwargs = marker.kwargs if marker else {}
    unknown = sorted(set(kwargs) - set(MARKER_KEYS))
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.cost got unknown argument(s) {unknown}; it accepts {list(MARKER_KEYS)}")
    if kwargs.get("tolerance") is None:
        return default
    try:
        return parse_option("perf_cost_tolerance", kwargs["tolerance"], "@pytest.mark.cost")
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None


def _backend_env(request: pytest.FixtureRequest, perf, workload, cell: str) -> dict[str, str]:
    """The server's environment: the backends' URLs (under the user's names for a user's app, with its
    perf_app_env and the object the entry module loads); a backend missing under --perf-skip-missing-backends skips
    ``cell``, listed under the summary."""
    user = perf.user_app
    if not workload.backends:
        return {} if user is None else user.server_env({})
    backends = request.getfixturevalue("perf_backends")
    for name in workload.backends:
        try:
            service = backends.get(name)
        except ServerbenchError as exc:
            if perf.config.skip_missing_backends:
                reason = f"backend {name} unavailable (--perf-skip-missing-backends): {exc}"
                pytest.skip(perf.record_skip(cell, workload.name, reason))
            pytest.fail(str(exc), pytrace=False)
        if name == "redis" and user is None:  # the contract's data; a user's endpoint does what it does
            service.seed()
    return backends.env(workload.backends) if user is None else user.server_env(backends.urls(workload.backends))


def _record(request: pytest.FixtureRequest, record: CostRecord, verdict: CostVerdict) -> None:
    session: CostSession = request.config.stash[COST_KEY]
    session.records.append(record.to_record(verdict.to_record()))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """xdist controller: gather a finished worker's cost records."""
    rows = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
    if rows:
        node.config.stash[COST_KEY].records.extend(rows)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    cost = config.stash.get(COST_KEY, None)
    if cost is None:
        return
    if hasattr(config, "workerinput"):  # an xdist worker: the controller writes
        config.workeroutput[WORKER_OUTPUT] = cost.records
        return
    try:
        cost.notices = cost.finish(config)
    except ServerbenchError as exc:
        cost.notices.append(f"ERROR: {exc}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def said_once(records: list[dict[str, Any]]) -> list[str]:
    """The summary's lines said once, not per cell: why a figure was not counted, and why a count's server did not see
    the stage path every count shares (measure/counting/stagemount.py)."""
    absent = {r[k] for r in records for k in ("system_absent", "kept_absent") if r.get(k)}
    staged = {r["stage_note"] for r in records if r.get("stage_note")}
    return [f"not counted: {reason}" for reason in sorted(absent)] + [f"stage: {note}" for note in sorted(staged)]


def system_line(record: dict[str, Any]) -> str:
    """``system calls/req 12.00 (poll 1.00, ...); bytes 173 out 39 in; connections 1.000; kept 0 B/req``: what
    a count asked of the kernel and kept, per request; a figure not counted is left out (never shown as 0)."""
    parts = []
    system = record.get("system")
    if system:
        calls = {k: v for k, v in system["calls"].items() if k not in VDSO}
        top = ", ".join(f"{k} {v:.2f}" for k, v in sorted(calls.items(), key=lambda kv: -kv[1])[:4])
        parts.append(f"system calls/req {sum(calls.values()):.2f} ({top})")
        parts.append(f"bytes {system['sent']:,.0f} out {system['received']:,.0f} in")
        parts.append(f"connections {system['connections']:.3f}")
        if peers_line(system):
            parts.append(f"calls/req by peer: {peers_line(system)}")
    if record.get("kept_per_request") is not None:
        parts.append(f"kept {record['kept_per_request']:,.0f} B/req")
    return "; ".join(parts)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    cost = config.stash.get(COST_KEY, None)
    if cost is None or not cost.records:
        return
    terminalreporter.section("serverbench cost (instructions per request, counted under valgrind)")
    constant = 0
    for r in sorted(cost.records, key=lambda r: r["key"]):
        verdict = r.get("verdict") or {}
        ratio = verdict.get("ratio")
        change = f"{ratio - 1:+.2%}" if ratio is not None else "--"
        moved = f"  after {'; '.join(verdict['moved'])}" if verdict.get("moved") else ""
        tolerance = verdict.get("tolerance")
        within = ""
        if tolerance:  # * : a constant, the baseline keeping no spread of its counts
            within = f"±{tolerance['value']:.1%}{'*' if tolerance['counts'] is None else ''}"
            constant += tolerance["counts"] is None
        terminalreporter.write_line(
            f"{r['key']:<48} {r['instructions_per_request']:>14,.0f}  {change:>8} {within:>6}  "
            f"{verdict.get('status', '?')}{moved}"
        )
        line = system_line(r)
        if line:
            terminalreporter.write_line(f"    {line}")
    for line in said_once(cost.records):
        terminalreporter.write_line(line)
    if constant:
        terminalreporter.write_line(
            f"*: {constant} cell(s) judged with the constant tolerance: their baselines keep no spread of the counts "
            f"they were written from; re-save them with `{SAVE_COMMAND}` (--perf-cost-baseline-counts, default 5)"
        )
    for notice in cost.notices:
        terminalreporter.write_line(notice)
