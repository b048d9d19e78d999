"""report.sidebyside: the same cells on N interpreters, each figure and its ratio to a reference (pure, no server)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from serverbench.errors import ConfigError
from serverbench.records.results import Failure, ResultsFile, Skip, Stored
from serverbench.report.sidebyside import file_sides, interpreter_sides, reference_of, rows
from tests.unit.sample_records import result

KEY = "t::gunicorn-sync-w2/flask/json/c64"


def _file(name, version, rps, impl="cpython", **extra):
    r = replace(result(KEY, rps, impl=impl), python={"implementation": impl, "version": version}, server_pss_mb=40.0)
    return ResultsFile(Path(f"{name}.json"), 2, "c", {}, (Stored(r, None),), (), **extra)


def test_each_figure_has_its_ratio_to_the_reference():
    """Throughput, p99, CPU per request, counted instructions per request and PSS; ratios to the reference's."""
    cost = ({"variant": "gunicorn-sync-w2", "app": "flask", "workload": "json", "instructions": 500, "requests": 1},)
    a, b = _file("a", "3.11.7", 1000.0, cost=cost), _file("b", "3.13.0", 1500.0, cost=cost)
    (row,) = rows(file_sides([a, b]))
    ref, other = row.entries
    assert ref.figures == {"rps": 1000.0, "p99_ms": 12.5, "cpu_us": 400.0, "instructions": 500.0, "pss_mb": 40.0}
    assert other.ratios["rps"] == 1.5 and other.ratios["instructions"] == 1.0
    assert other.ratios["cpu_us"] == pytest.approx(2 / 3)


def test_a_missing_cell_keeps_its_row_with_the_stored_skip_or_failure():
    """The reason a run stored: its skip, else its failure's message, else a dash."""
    skip = (Skip("gunicorn-sync-w2/flask", "json", "not on this interpreter"),)
    empty = ResultsFile(Path("s.json"), 2, "c", {}, (), (), skipped=skip)
    failed = ResultsFile(
        Path("f.json"), 2, "c", {}, (), (Failure("n", "gunicorn-sync-w2", "flask", "json", 64, "died"),)
    )
    bare = ResultsFile(Path("n.json"), 2, "c", {}, (), ())
    (row,) = rows(file_sides([_file("a", "3.11.7", 1000.0), empty, failed, bare]))
    assert [e.missing for e in row.entries] == ["", "not on this interpreter", "failed: died", "-"]


def test_the_reference_is_named_by_label_prefix_or_file_and_an_unknown_one_lists_them():
    """'3.13', 'cpython-3.13', the file's name: that side; a name that fits none (or two) is refused."""
    sides = file_sides(
        [_file("py311", "3.11.7", 1.0), _file("py313", "3.13.0", 1.0), _file("pypy", "3.9.18", 1.0, "pypy")]
    )
    assert [reference_of(sides, n) for n in (None, "3.13", "cpython-3.13", "py313.json", "pypy")] == [0, 1, 1, 1, 2]
    with pytest.raises(ConfigError, match="names no side; give one of: cpython-3.11.7, cpython-3.13.0, pypy-3.9.18"):
        reference_of(sides, "3.12")
    with pytest.raises(ConfigError, match="names several sides"):
        reference_of(sides, "cpython")


def test_a_reports_sides_are_its_interpreters_first_seen_first():
    """Over files: one side per interpreter, in the order met (the first file's is the reference)."""
    files = [_file("x", "3.13.0", 1.0), _file("y", "3.11.7", 2.0), _file("z", "3.13.0", 3.0)]
    sides = interpreter_sides(files)
    assert [s.label for s in sides] == ["cpython-3.13.0", "cpython-3.11.7"]
    assert sides[0].results[KEY].result.rps == 3.0  # the later run replaces the earlier
