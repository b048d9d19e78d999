"""Memory of real servers: a pre-fork tree's PSS against its summed RSS, and a leak the growth judge catches."""
import os

import pytest

from serverbench.catalog.shapes import LoadShape
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.drivers.wrk import WrkDriver
from serverbench.judge.memory import record_growth
from serverbench.measure.machine import python_info
from serverbench.measure.servers import start_variant
from serverbench.measure.trial import Trial, Warmup, run_trial
from serverbench.records.schema import Result

pytestmark = [pytest.mark.usefixtures("no_leaks"),
              pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"), reason="needs smaps_rollup")]
VARIANTS = registry()


def _trial(name: str, apps_dir, seconds: int, env=None) -> Result:
    server = start_variant(VARIANTS[name], apps_dir=apps_dir, env=env)
    try:
        return run_trial(Trial(server, WORKLOADS["json"], LoadShape(8, seconds), WrkDriver(threads=1), nodeid="t",
                               test="t", machine={}, python=python_info()), Warmup(1))
    finally:
        server.stop()


def test_a_preloaded_pre_fork_tree_holds_far_less_than_its_summed_rss(apps_dir):
    """gunicorn --preload with 4 workers: the record's peak PSS is under half its peak RSS, five processes kept."""
    result = _trial("gunicorn-sync-w4-preload", apps_dir, 2)
    rec = Result.from_record(result.to_record())
    assert rec.server_pss_mb is not None and rec.server_pss_mb < 0.5 * rec.server_rss_mb
    procs = rec.memory["processes"]
    assert len(procs) == 5 and sum(p["parent"] for p in procs) == 1
    assert all(p["uss_mb"] <= p["pss_mb"] <= p["rss_mb"] for p in procs)


def test_the_leak_knob_grows_and_a_clean_server_does_not(apps_dir):
    """aiohttp with SERVERBENCH_LEAK_BYTES=10240 grows in a 12 s soak; without it the same soak is flat."""
    leaky = _trial("aiohttp", apps_dir, 12, env={"SERVERBENCH_LEAK_BYTES": "10240"})
    clean = _trial("aiohttp", apps_dir, 12)
    assert record_growth(leaky.to_record()).verdict == "grows"
    assert record_growth(clean.to_record()).verdict == "flat"
