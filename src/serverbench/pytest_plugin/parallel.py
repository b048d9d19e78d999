"""Running in parallel where it is safe: shards across machines, xdist workers on one.  Wiring only.

- ``--perf-shard K/N`` keeps this job's share of the selected perf and cost tests
  (:mod:`serverbench.catalog.shards`) and reports the others as deselected.
- Timed tests (``perf``) are refused under pytest-xdist: two load tests at once measure each
  other.  Cost tests (``cost``, counted instructions) and functional tests may use ``-n``.
- Each xdist worker keeps its temporary files (server logs, backend data folders) in its own
  folder under pytest's base temporary directory; its ports come from its own slice of the
  range, published to what it starts in ``SERVERBENCH_PORTS`` (:mod:`serverbench.processes.ports`).
- A test marked ``alone`` (it judges timings) runs under xdist with no other test beside it
  (:mod:`serverbench.pytest_plugin.alone`); the others run side by side.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..catalog.shards import share
from ..errors import ConfigError
from ..processes.ports import PORTS_ENV, claim_worker_range
from .alone import turn
from .fixtures import perf_session_of

TIMED_UNDER_XDIST = (
    "timed tests (-m perf) cannot run under pytest-xdist (-n): their throughput would include the load of "
    "the tests running beside them. Run `-m perf` without -n (or with -n 0, over an -n in addopts); `-m cost` (counted instructions) may use -n, "
    "and so may the other tests (deselect the timed ones with -m 'not perf')."
)
REFUSED = pytest.StashKey[set]()
SHARDED_MARKERS = ("perf", "cost")


def pytest_configure(config: pytest.Config) -> None:
    """Refuse before any worker starts when the -m expression selects timed tests."""
    config.addinivalue_line(
        "markers",
        "alone(reason): under pytest-xdist, no other test runs while this one does "
        "(it judges timings that a test beside it would disturb)",
    )
    if _starts_workers(config) and _expression_selects(config.option.markexpr, "perf"):
        raise pytest.UsageError(TIMED_UNDER_XDIST)
    config.stash[REFUSED] = set()
    if hasattr(config, "workerinput"):  # before collection: no port is picked outside the worker's slice
        _claim_ports(config)


def _claim_ports(config: pytest.Config) -> None:
    before = os.environ.get(PORTS_ENV)
    try:
        claim_worker_range()
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.add_cleanup(lambda: os.environ.pop(PORTS_ENV) if before is None else os.environ.update({PORTS_ENV: before}))


def _starts_workers(config: pytest.Config) -> bool:
    return getattr(config.option, "numprocesses", None) not in (None, 0, "0") and not hasattr(config, "workerinput")


def _expression_selects(expression: str, marker: str) -> bool:
    """Whether ``-m expression`` selects a test that carries only ``marker`` (no expression: decided per test)."""
    from _pytest.mark.expression import Expression  # pytest's own -m parser (no public API for it)

    return bool(expression) and Expression.compile(expression).evaluate(lambda name, **_: name == marker)


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: a shard is a share of what is selected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shard = perf_session_of(config).config.shard
    if shard is not None:
        cells = [i.nodeid for i in items if any(i.get_closest_marker(m) for m in SHARDED_MARKERS)]
        others = set(cells) - set(share(cells, shard))
        if others:
            config.hook.pytest_deselected(items=[i for i in items if i.nodeid in others])
            items[:] = [i for i in items if i.nodeid not in others]
        perf_session_of(config).notices.append(
            f"--perf-shard {shard.label}: this job ran {len(cells) - len(others)} "
            f"of the {len(cells)} selected perf and cost tests"
        )
    if hasattr(config, "workerinput"):  # collected by an xdist worker: the expression let timed tests through
        config.stash[REFUSED] = {i.nodeid for i in items if i.get_closest_marker("perf")}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A timed test on an xdist worker errors before its fixtures start a server."""
    if item.nodeid in item.config.stash.get(REFUSED, ()):
        pytest.fail(TIMED_UNDER_XDIST, pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """On an xdist worker, each test from setup to teardown holds its turn: alone, or beside other tests."""
    folder = _workers_folder(item.config)
    if folder is None:
        yield
        return
    with turn(folder, alone=item.get_closest_marker("alone") is not None):
        yield


def _workers_folder(config: pytest.Config) -> Path | None:
    """The base temporary folder all of this run's xdist workers share (each has its own inside it)."""
    if not hasattr(config, "workerinput") or not config.option.basetemp:
        return None
    return Path(config.option.basetemp).parent


@pytest.fixture(scope="session", autouse=True)
def serverbench_worker_tmpdir(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """On an xdist worker, TMPDIR (for this process and the servers it starts) is the worker's own folder."""
    if not hasattr(request.config, "workerinput"):
        yield
        return
    folder = tmp_path_factory.mktemp("serverbench-tmp", numbered=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(folder))
        patch.setattr(tempfile, "tempdir", str(folder))
        yield
