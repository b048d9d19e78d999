"""Parallel runs end to end without servers: --perf-shard at collection, timed tests refused under xdist."""

import re

from serverbench.processes.ports import PORT_RANGE, PORTS_ENV, configured_range

TESTS = '''
import pytest

@pytest.mark.perf
@pytest.mark.parametrize("cell", range(10))
def test_timed(cell):
    """A timed cell."""

@pytest.mark.cost
@pytest.mark.parametrize("cell", range(3))
def test_counted(cell):
    """A counted cell."""

def test_functional():
    """Not a cell: every shard runs it."""
'''


def passed_ids(result):
    return {line.split()[0] for line in result.outlines if line.endswith("PASSED") or " PASSED" in line}


def test_shards_split_the_selected_cells(pytester):
    """K/N for K = 1..3 run every perf and cost cell once between them, report the rest deselected."""
    pytester.makepyfile(test_cells=TESTS)
    ran = []
    for k in (1, 2, 3):
        result = pytester.runpytest(f"--perf-shard={k}/3", "-v")
        assert result.ret == 0
        counts = result.parseoutcomes()
        assert counts["deselected"] in (8, 9) and counts["passed"] + counts["deselected"] == 14
        ran += [i for i in passed_ids(result) if "test_functional" not in i]
    assert sorted(ran) == sorted(set(ran)) and len(ran) == 13


def test_shard_is_taken_after_marker_selection(pytester):
    """With -m perf the shards divide the 10 timed cells, not all 14 tests."""
    pytester.makepyfile(test_cells=TESTS)
    result = pytester.runpytest("--perf-shard=1/2", "-m", "perf")
    counts = result.parseoutcomes()
    assert counts["passed"] == 5 and counts["deselected"] == 9


def test_a_bad_shard_names_the_option_and_the_form(pytester):
    """--perf-shard=3/2 stops with a usage error naming the option and K/N."""
    result = pytester.runpytest("--perf-shard=3/2")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--perf-shard='3/2': expected K/N with 1 <= K <= N, such as 2/4*"])


def test_timed_tests_collected_under_xdist_are_refused(pytester):
    """Without -m, -n lets the other tests run and errors each timed one before it starts a server."""
    pytester.makepyfile(test_cells=TESTS)
    result = pytester.runpytest("-n", "2", "-p", "xdist")
    counts = result.parseoutcomes()
    assert counts["passed"] == 4 and counts["errors"] == 10
    assert re.search(r"timed tests \(-m perf\) cannot run under pytest-xdist", result.stdout.str())


def test_each_xdist_worker_has_its_own_temporary_folder_and_ports(pytester):
    """With no timed test selected, -n runs without -m; on a worker, tempfile and TMPDIR (inherited by
    the servers it starts) point into the worker's own folder, and SERVERBENCH_PORTS holds its own slice."""
    seen = pytester.path / "seen.log"
    pytester.makepyfile(
        test_tmp=f'''
import os
import tempfile

import pytest

from serverbench.processes.ports import configured_range, free_port

@pytest.mark.parametrize("n", range(4))
def test_folder(n, worker_id):
    """The temporary folder and the ports are this worker's."""
    assert tempfile.gettempdir() == os.environ["TMPDIR"]
    assert worker_id in tempfile.gettempdir() and os.path.isdir(tempfile.gettempdir())
    assert free_port() in configured_range()
    with open({str(seen)!r}, "a") as out:
        out.write(f"{{worker_id}} {{os.environ['SERVERBENCH_PORTS']}}\\n")
'''
    )
    result = pytester.runpytest("-n", "2", "-p", "xdist")
    assert result.ret == 0 and result.parseoutcomes()["passed"] == 4
    slices = {
        worker: configured_range({PORTS_ENV: value})
        for worker, value in (line.split() for line in seen.read_text().splitlines())
    }
    allowed = configured_range() or PORT_RANGE  # a slice of this run's own, when this test runs on a worker
    assert len(slices) == 2 and not set(slices["gw0"]) & set(slices["gw1"])
    assert all(set(s) <= set(allowed) for s in slices.values())
