"""measure.host.sampling: PSS/USS from smaps_rollup, descriptors and sockets from /proc/PID/fd, the heap file a server
writes, and what the tree sampler makes of its samples (this process and a forked child; no server)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from serverbench.measure.host.sampling import (
    MB,
    SERIES_POINTS,
    Heap,
    ProcessMemory,
    TreeSampler,
    descriptors,
    heap_file,
    process_memory,
    smaps_rollup,
)

linux = pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"), reason="needs /proc/PID/smaps_rollup")


@linux
def test_smaps_rollup_reads_pss_and_uss_of_a_live_process():
    """PSS and USS of this process are read, positive, and USS is at most PSS."""
    pss, uss = smaps_rollup(os.getpid())
    assert 0 < uss <= pss


def test_smaps_rollup_of_a_gone_process_is_none():
    """A pid that does not exist reads as None, not an error."""
    assert smaps_rollup(2**22 + 12345) is None


@linux
def test_a_forked_tree_has_less_pss_than_summed_rss():
    """A parent and its fork share their pages: the tree's PSS is well under the sum of both RSS."""
    code = "import os, time\nx = [bytes(1000) for _ in range(20000)]\nos.fork() or time.sleep(5)\ntime.sleep(5)"
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 5
        while len(__import__("psutil").Process(proc.pid).children()) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        with TreeSampler(proc.pid, interval=0.05) as sampler:
            time.sleep(0.3)
        usage = sampler.usage()
    finally:
        proc.kill()
        proc.wait()
    assert len(usage.per_process) == 2 and sum(p["parent"] for p in usage.per_process) == 1
    assert usage.pss_mb < 0.75 * usage.rss_mb
    assert len(usage.series["t_s"]) >= 3 and len(usage.series["pss_mb_by_pid"]) == 2


def test_descriptors_count_sockets_among_open_files():
    """Opening two sockets and a file raises this process's descriptors by three and its sockets by two."""
    fds, sockets = descriptors(os.getpid())
    a, b = socket.socket(), socket.socket()
    with open(__file__) as f, a, b:
        more, more_sockets = descriptors(os.getpid())
        assert f.fileno() > 0
    assert (more - fds, more_sockets - sockets) == (3, 2)
    assert descriptors(2**22 + 12345) is None


def test_a_heap_file_is_read_and_a_bad_or_missing_one_is_none(tmp_path):
    """'<blocks> <malloc bytes>' reads as a Heap (-1: malloc unknown); a missing or garbled file is None."""
    (tmp_path / "10").write_text("1234 2097152\n")
    (tmp_path / "11").write_text("99 -1\n")
    (tmp_path / "12").write_text("half")
    assert heap_file(tmp_path, 10).blocks == 1234 and heap_file(tmp_path, 10).malloc == 2097152
    assert heap_file(tmp_path, 11).malloc is None
    assert heap_file(tmp_path, 12) is None and heap_file(tmp_path, 13) is None


def test_the_sampler_keeps_sockets_and_the_heap_a_process_wrote(tmp_path):
    """Sampling this process with a heap file for it: the series carries sockets and heap columns, each process too."""
    (tmp_path / str(os.getpid())).write_text("5000 1048576\n")
    import time

    with TreeSampler(os.getpid(), interval=0.05, heap_dir=tmp_path) as sampler:
        time.sleep(0.2)
    usage = sampler.usage()
    assert set(usage.series) >= {"sockets", "heap_blocks", "heap_malloc_mb", "fds", "pss_mb"}
    me = next(p for p in usage.per_process if p["parent"])
    assert me["heap_blocks"] == 5000 and me["heap_malloc_mb"] == 1.0 and me["sockets"] is not None
    with TreeSampler(os.getpid(), interval=0.05) as plain:
        time.sleep(0.1)
    assert "heap_blocks" not in plain.usage().series


def test_a_heap_file_with_no_malloc_bytes_in_use_reads_zero_not_unknown(tmp_path):
    """Only a negative malloc figure means unknown: 0 bytes is 0; extra fields after the two are ignored."""
    (tmp_path / "7").write_text("10 0 trailing\n")
    assert heap_file(tmp_path, 7) == Heap(10, 0)


def test_one_process_memory_reads_rss_descriptors_pss_and_its_heap_file(tmp_path):
    """This process: psutil's RSS, /proc's descriptor counts and smaps_rollup's PSS/USS, the heap only when asked."""
    import psutil

    me = psutil.Process()
    (tmp_path / str(me.pid)).write_text("321 -1\n")
    plain, with_heap = process_memory(me), process_memory(me, tmp_path)
    assert plain.pid == me.pid and plain.rss > 0
    assert (plain.fds, plain.sockets) == descriptors(me.pid)
    sizes = smaps_rollup(me.pid)
    assert (plain.pss is None) == (sizes is None) and (plain.uss is None) == (sizes is None)
    assert plain.heap is None and with_heap.heap == Heap(321, None)


def _memory(pid, pss_mb, uss_mb=1, fds=10, sockets=2, heap=None, rss_mb=None):
    size = None if pss_mb is None else int(pss_mb * MB)
    return ProcessMemory(pid, int((rss_mb or pss_mb or 1) * MB), size, int(uss_mb * MB), fds, sockets, heap)


def _fed(*samples):
    """A sampler of this process fed these samples (lists of ProcessMemory) as if it had read them."""
    sampler = TreeSampler(os.getpid())
    for memories in samples:
        sampler._record(memories, sum(m.rss for m in memories))
    return sampler


def test_the_trees_peak_pss_is_the_sample_with_the_largest_sum_and_uss_is_read_at_that_sample():
    """Peak PSS is summed per sample (not per process); USS comes from the peak's sample; the end is the last one."""
    sampler = _fed(
        [_memory(1, 30, uss_mb=5), _memory(2, 10, uss_mb=4)],  # 40 MB
        [_memory(1, 20, uss_mb=3), _memory(2, 25, uss_mb=6)],  # 45 MB: the peak, though no process peaks here
        [_memory(1, 35, uss_mb=2), _memory(2, 5, uss_mb=1)],  # 40 MB, the end
    )
    usage = sampler.usage()
    assert (usage.pss_mb, usage.uss_mb, usage.pss_end_mb) == (45.0, 9.0, 40.0)
    ends = {p["pid"]: p for p in usage.per_process}
    assert (ends[1]["pss_mb"], ends[1]["peak_pss_mb"], ends[2]["peak_pss_mb"]) == (35.0, 35.0, 25.0)
    assert ends[1]["parent"] is False and ends[1]["fds"] == 10 and ends[1]["sockets"] == 2
    assert usage.series["pss_mb"] == [40.0, 45.0, 40.0] and usage.series["fds"] == [20, 20, 20]
    assert usage.series["pss_mb_by_pid"] == {"1": [30.0, 20.0, 35.0], "2": [10.0, 25.0, 5.0]}


def test_a_process_without_pss_or_fds_makes_the_trees_sum_unknown_for_that_sample():
    """One process lacking PSS (no smaps_rollup) or fds leaves that sample's tree column None, not a partial sum."""
    sampler = _fed(
        [_memory(1, 30), _memory(2, 10)],
        [_memory(1, 30), ProcessMemory(2, 10 * MB, None, None, None, None)],
    )
    usage = sampler.usage()
    assert usage.series["pss_mb"] == [40.0, None] and usage.series["fds"] == [20, None]
    assert usage.series["sockets"] == [4, None]
    assert usage.pss_mb == 40.0 and usage.pss_end_mb is None
    assert usage.series["pss_mb_by_pid"] == {"1": [30.0, 30.0], "2": [10.0, None]}


def test_heap_columns_sum_the_processes_that_wrote_one_and_are_dropped_when_none_did():
    """Blocks sum over the processes with a heap file; malloc is unknown if any of them could not say."""
    heaps = _fed(
        [_memory(1, 10, heap=Heap(100, 2 * MB)), _memory(2, 10, heap=Heap(50, MB)), _memory(3, 10)],
        [_memory(1, 10, heap=Heap(120, 2 * MB)), _memory(2, 10, heap=Heap(60, None))],
    ).usage()
    assert heaps.series["heap_blocks"] == [150, 180] and heaps.series["heap_malloc_mb"] == [3.0, None]
    assert [p.get("heap_blocks") for p in heaps.per_process] == [120, 60]
    plain = _fed([_memory(1, 10)], [_memory(1, 11)]).usage()
    assert "heap_blocks" not in plain.series and "heap_malloc_mb" not in plain.series


def test_a_long_series_is_thinned_to_every_kth_sample_and_a_short_one_is_kept_whole():
    """Over SERIES_POINTS samples, every ceil(n / SERIES_POINTS)-th is kept from the first; at most, all of them."""
    n = 2 * SERIES_POINTS + 1
    long = _fed(*[[_memory(1, i + 1)] for i in range(n)]).usage().series
    assert long["pss_mb"] == [float(i + 1) for i in range(0, n, 3)]
    assert len(long["t_s"]) == len(long["rss_mb"]) == len(long["pss_mb_by_pid"]["1"]) == -(-n // 3)
    exact = _fed(*[[_memory(1, i + 1)] for i in range(SERIES_POINTS)]).usage().series
    assert exact["pss_mb"] == [float(i + 1) for i in range(SERIES_POINTS)]


def test_the_sampler_keeps_its_own_cpu_and_a_tree_it_never_found_is_unmeasured_not_zero():
    """A live process: its CPU measured, and the sampler's own thread CPU beside it.  A process gone before the
    first sample: no CPU figure (None) and the reason, never 0.0."""
    with TreeSampler(os.getpid(), interval=0.01) as sampler:
        time.sleep(0.05)
    usage = sampler.usage()
    assert usage.cpu_s is not None and usage.unmeasured is None
    assert usage.sampler_cpu_s is not None and usage.sampler_cpu_s >= 0 and usage.sampled_on == "this machine"
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    gone = TreeSampler(child.pid, interval=0.01)
    child.wait()
    with gone:
        pass
    assert gone.usage().cpu_s is None and f"process {child.pid} was not found" in gone.usage().unmeasured
