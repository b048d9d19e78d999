"""The order perf tests run in: every test of one cell (variant x app) together, so its server starts once.

pytest collects test files one after another (tests/perf/test_locust.py's cells, then test_throughput.py's), and the
server pool keeps one server running at a time (measure.serving.servers.ServerPool: an idle server would take CPU from the one
under load), so each cell's server would start once per file.  Grouped by cell, each starts once for all its
workloads; no state carries from one workload to the next but the process itself (the backends are seeded before each
test), and each record says which process served it (``extra["server"]``).
"""

from __future__ import annotations

import pytest


def cell_of(item: pytest.Item) -> tuple[str, str] | None:
    """The (variant, app) a perf test runs on, or None for any other test."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "perf_variant" not in params:
        return None
    return params["perf_variant"], params.get("perf_app", "")


def _locust(item: pytest.Item) -> bool:
    shape = getattr(getattr(item, "callspec", None), "params", {}).get("perf_shape")
    return getattr(shape, "workers", None) is not None


def grouped_by_cell(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with the perf tests of each cell brought together where the cell's first test stood (the cells in the
    order they first appear, each cell's tests in their collected order but its locust scenarios last: the cold server
    warms up in a closed run's lead-in, which is cheaper than a Python generator's start); other tests keep their
    places."""
    cells: dict[tuple[str, str], list[pytest.Item]] = {}
    for item in items:
        cell = cell_of(item)
        if cell is not None:
            cells.setdefault(cell, []).append(item)
    out: list[pytest.Item] = []
    for item in items:
        cell = cell_of(item)
        if cell is None:
            out.append(item)
        elif cells.get(cell) is not None:
            out.extend(sorted(cells.pop(cell), key=_locust))
    return out
