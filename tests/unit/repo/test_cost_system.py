"""benchmarks/cost_system.py: docs/lab/cost.md's table of planted changes is rendered from its results file."""

from __future__ import annotations

import json

from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_planted_changes_are_the_rendered_ones():
    """Rendering docs/lab/cost.md from benchmarks/results/cost-plants.json changes nothing: no figure typed by hand."""
    stale = stale_renders(script("cost_system.py"))
    assert not stale, f"{stale}: run `python benchmarks/cost_system.py render` and commit the result"


def test_every_planted_change_is_in_the_committed_results_for_a_sync_a_threaded_and_an_event_loop_server():
    """The results file holds, for each of three kinds of server, one row per planted change the script plants, with
    the knob that planted it; the leak among them."""
    cost_system = script("cost_system.py")
    cells = json.loads(cost_system.RESULTS.read_text())["cells"]
    assert [c["kind"] for c in cells] == ["sync", "thread pool", "event loop"]
    for cell in cells:
        rows = cell["plants"]
        assert [(r["change"], r["knob"]) for r in rows] == [(w, f"{k}={v}") for w, _, k, v in cost_system.PLANTS]
    assert "SERVERBENCH_LEAK_BYTES" in {k for _, _, k, _ in cost_system.PLANTS}


def test_the_committed_gate_leak_runs_cover_each_cell_both_ways():
    """The gate's counted-phase results hold an A/A and a leak per cell, memory kept read without valgrind and
    over the window, and render a row for each; read without valgrind, every A/A passed and every leak failed."""
    cost_system = script("cost_system.py")
    data = json.loads(cost_system.KEPT_RESULTS.read_text())
    keys = {(r["cell"], r["condition"], r["kept_requests"]) for r in data["rows"]}
    assert keys == {(c, k, n) for c in cost_system.KEPT_CELLS for k in ("A/A", "leak") for n in (1000, 0)}
    assert cost_system.kept_table(data).count("\n| ") == len(keys) + 1  # and the header
    read = [r for r in data["rows"] if r["kept_requests"]]
    assert {r["verdict"] for r in read if r["condition"] == "A/A"} == {"pass"}
    assert {r["verdict"] for r in read if r["condition"] == "leak"} == {"regression"}


def test_a_row_names_the_calls_that_moved_and_why_it_failed():
    """A row shows instructions' change, each moved call with its sign (vDSO ones marked, listed last), the
    connections, which figure failed the verdict and the seconds to decision."""
    row = {
        "change": "x",
        "peers": {"read": "redis"},
        "kept": [0.0, 20.5],
        "knob": "SERVERBENCH_X=1",
        "workload": "json",
        "instructions": [100, 101],
        "calls_moved": {"clock_gettime": [1.0, 3.0], "newfstatat": [0.0, 1.0], "read": [2.0, 1.0]},
        "vdso": ["clock_gettime"],
        "connections": [0.005, 1.005],
        "status": "fail",
        "instructions_failed": False,
        "system": "regression",
        "system_failed": ["memory kept", "newfstatat"],
        "seconds": 21.4,
    }
    data = {"command": "c", "requests": 200, "tolerance": 0.02, "date": "d", "machine": "m"}
    text = script("cost_system.py").table({**data, "cells": [{"cell": "v/a", "kind": "sync", "plants": [row]}]})
    assert "**v/a** (sync)" in text
    assert (
        "| x (`SERVERBENCH_X=1`) | /json | +1.00% | +1.00 newfstatat, -1.00 read to redis, +2.00 clock_gettime (vDSO) "
        "| 0.005 -> 1.005 | 0 -> 20 | **fail** (system calls, memory kept) | 21 s |"
    ) in text
