"""benchmarks/hosts.py: docs/hosts.md's loopback-against-hosts table is rendered from its results file."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_hosts_figures_are_the_rendered_ones():
    """Rendering docs/hosts.md from benchmarks/results/hosts.json changes nothing: no figure typed by hand."""
    stale = stale_renders(script("hosts.py"))
    assert not stale, f"{stale}: run `python benchmarks/hosts.py render` and commit the result"


def test_the_ssh_path_is_a_cells_time_on_hosts_less_its_time_on_loopback():
    """The table's last column is the median test time on hosts less the median on loopback."""
    cell = {"rps": 100.0, "busy_pct": 50.0, "saturated": False, "littles": 1.0, "hosts": [], "driver": "oha"}
    data = {
        "machine": "2 cores",
        "rounds": [
            {"mode": "loopback", "wall_s": 17.0, "cells": {"a/json/c64": {**cell, "test_s": 3.0}}},
            {"mode": "hosts", "wall_s": 21.0, "cells": {"a/json/c64": {**cell, "test_s": 3.5}}},
        ],
        "locust": {},
    }
    assert "| 3.0 | 3.5 | +0.5 s |" in script("hosts.py").table(data)


def test_the_session_apart_is_compared_with_the_session_on_the_server_host():
    """With rounds whose session ran on the server host, the session table's last column is the median wall time
    apart (on the load host) less the median on the server host; without them there is no such table."""
    cell = {"rps": 100.0, "busy_pct": 50.0, "saturated": False, "littles": 1.0, "hosts": [], "driver": "oha"}
    rounds = [
        {"mode": mode, "wall_s": wall, "cells": {"a/json/c64": {**cell, "test_s": 3.0}}}
        for mode, wall in (("loopback", 17.0), ("hosts", 21.0), ("server", 24.5), ("server", 23.5), ("server", 30.0))
    ]
    table = script("hosts.py").table({"machine": "2 cores", "rounds": rounds, "locust": {}})
    assert "| 17.0 s | 21.0 s | 24.5 s | -3.5 s |" in table
    assert "server host |" not in script("hosts.py").table({"machine": "2 cores", "rounds": rounds[:2], "locust": {}})
