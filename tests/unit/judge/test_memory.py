"""Memory that means what it says: PSS/USS sampling, their record fields, the growth judge (no server)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time

import pytest

from serverbench.judge.memory import growth, per_connection_kb, record_growth
from serverbench.measure.sampling import TreeSampler, smaps_rollup
from serverbench.records.schema import Result
from tests.unit.sample_records import result

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


def test_memory_fields_round_trip_and_old_records_load_without_them():
    """PSS and the memory object survive to_record/from_record; a record without them reads as None / {}."""
    base = result("t::v/app/json/c64", 1000.0)
    full = dataclasses.replace(
        base,
        server_pss_mb=30.5,
        server_pss_end_mb=29.0,
        memory={"uss_mb": 20.0, "processes": [], "series": {"t_s": [0.0], "pss_mb": [30.5]}},
    )
    back = Result.from_record(full.to_record())
    assert (back.server_pss_mb, back.server_pss_end_mb, back.memory["uss_mb"]) == (30.5, 29.0, 20.0)
    old = base.to_record()
    assert "pss_mb" not in old["server"] and "memory" not in old
    again = Result.from_record(old)
    assert again.server_pss_mb is None and dict(again.memory) == {}


def test_growth_catches_a_steady_leak_and_passes_a_flat_sawtooth():
    """A PSS rising 1 MB/s at 1,000 rps (10 MB per 10k) grows; a flat one with a sawtooth stays flat."""
    t = [i * 0.25 for i in range(120)]
    leak = growth(t, [50 + x for x in t], requests=30_000, duration_s=30)
    assert leak.verdict == "grows" and leak.slope == pytest.approx(10.0, rel=0.01)
    saw = growth(t, [50 + (i % 7) * 0.1 for i in range(120)], requests=30_000, duration_s=30)
    assert saw.verdict == "flat"


def test_growth_ignores_the_warmup_and_needs_samples():
    """A rise only in the first quarter does not count; too few samples are unknown."""
    t = [float(i) for i in range(40)]
    assert growth(t, [40 + min(x, 8) * 2 for x in t], requests=40_000, duration_s=40).verdict == "flat"
    assert growth(t[:5], [1.0] * 5, requests=100, duration_s=5).verdict == "unknown"


def test_record_growth_reads_a_stored_series():
    """The growth of a stored record comes from its memory series and its requests."""
    rec = {
        "requests": 10_000,
        "duration_s": 10.0,
        "memory": {"series": {"t_s": [float(i) for i in range(20)], "pss_mb": [float(i) for i in range(20)]}},
    }
    assert record_growth(rec).slope == pytest.approx(10.0)
    assert record_growth({"requests": 1, "duration_s": 1.0}).verdict == "unknown"


def test_per_connection_cost_is_the_rise_over_idle_per_connection():
    """1,000 connections adding 10 MB cost 10.24 KB each; none held gives None."""
    assert per_connection_kb(40.0, 50.0, 1000) == pytest.approx(10.24)
    assert per_connection_kb(40.0, 50.0, 0) is None


def _report_inputs(results):
    from pathlib import Path

    from serverbench.records.results import ResultsFile, Stored
    from serverbench.report.inputs import Inputs

    return Inputs(
        (
            ResultsFile(
                Path("s.json"),
                2,
                "2026-11-10T00:00:00+00:00",
                {"id": "m1"},
                tuple(Stored(r, None) for r in results),
                (),
            ),
        ),
        (),
    )


def test_the_report_memory_section_shows_pss_per_connection_and_growth():
    """PSS/RSS bars per cell, KB per held keep-alive connection against the plain shape, a soak's curve."""
    from serverbench.catalog.shapes import from_label
    from serverbench.records.schema import SlowClientReport
    from serverbench.report.charts import BarChart, LineChart
    from serverbench.report.sections import select

    plain = dataclasses.replace(
        result("t::aiohttp/aiohttp/json/c16", 1000.0),
        shape=from_label("c16"),
        server_pss_mb=40.0,
        server_pss_end_mb=40.0,
    )
    held = dataclasses.replace(
        plain,
        shape=from_label("c16+keepalive1000"),
        server_pss_mb=46.0,
        server_pss_end_mb=45.0,
        slow_clients=SlowClientReport("keepalive", 1000, 1000, (), 5.0, {}),
    )
    t = [i * 0.25 for i in range(60)]
    soak = dataclasses.replace(
        plain,
        shape=from_label("c64"),
        server_pss_mb=70.0,
        server_pss_end_mb=70.0,
        memory={"series": {"t_s": t, "pss_mb": [40 + x for x in t]}},
    )
    memory = next(s for s in select(_report_inputs([plain, held, soak])) if s.id == "memory")
    bars = [b for b in memory.blocks if isinstance(b, BarChart)]
    per_conn = next(b for b in bars if b.title.startswith("Memory per idle connection")).bars
    assert [(b.value, b.note) for b in per_conn] == [(5.12, "1000 held")]
    assert any(isinstance(b, LineChart) for b in memory.blocks)


def test_records_without_pss_give_no_memory_section():
    """Older records (peak RSS only) show no memory section."""
    from serverbench.report.sections import select

    assert "memory" not in [s.id for s in select(_report_inputs([result("t::a/flask/json/c64", 1000.0)]))]


def test_a_soak_whose_pss_keeps_growing_is_flagged_and_a_short_window_is_not():
    """memory-growth flags a 40-sample window rising 1 MB/s; the same rise over 20 samples is not judged."""
    from serverbench.judge.checks import memory_growth

    t = [i * 0.25 for i in range(48)]
    soak = dataclasses.replace(
        result("t::a/flask/json/c64", 1000.0), memory={"series": {"t_s": t, "pss_mb": [40 + x for x in t]}}
    )
    flag = memory_growth(soak)
    assert flag is not None and flag.name == "memory-growth" and "grows" in flag.message
    short = dataclasses.replace(soak, memory={"series": {"t_s": t[:20], "pss_mb": [40 + x for x in t[:20]]}})
    assert memory_growth(short) is None


def test_the_gate_judges_peak_pss_where_measured_and_leaves_it_out_where_not():
    """A candidate holding 20% more PSS in every pair is a regression; pairs without PSS judge no PSS signal."""
    from serverbench.judge.ab import GATE_POLICY, judge, min_blocks

    n = min_blocks(GATE_POLICY, False)
    same = ([1000.0 + i for i in range(n)], [1000.0 + i for i in range(n)])
    cpu = ([100.0 + i % 3 for i in range(n)], [100.0 + i % 3 for i in range(n)])
    pss = ([50.0 + 0.01 * i for i in range(n)], [60.0 + 0.01 * i for i in range(n)])
    judged = judge({"throughput": same, "cpu": cpu, "pss": pss}, rate=False, policy=GATE_POLICY)
    assert judged.decisions["pss"].verdict == "regression" and judged.verdict == "regression"
    without = judge({"throughput": same, "cpu": cpu}, rate=False, policy=GATE_POLICY)
    assert "pss" not in without.decisions and without.verdict != "regression"
