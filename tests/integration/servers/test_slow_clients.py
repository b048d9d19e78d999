"""Slow clients against real servers: a shape that holds them beside the load, a known hold time, and the
documented `--perf-slow-clients` session."""

import json
import re
import shlex
from pathlib import Path

import pytest

from serverbench.catalog.shapes import from_label
from serverbench.catalog.variants import registry
from serverbench.drivers.wrk import WrkDriver
from serverbench.measure.serving.servers import start_variant, unavailable_reason
from serverbench.measure.trials.slowclients import hold_time
from serverbench.records.schema import Result

pytestmark = [
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.alone(reason="the hold times and drop times are judged in seconds"),
]
VARIANTS = registry()


def test_a_slow_client_shape_holds_them_beside_the_load_and_records_the_drops(served_trial):
    """c4+keepalive8 on gunicorn gthread: the load is served, and its 2 s keep-alive timeout drops all 8."""
    shape = from_label("c4+keepalive8", duration=4)
    result = served_trial("gunicorn-gthread-t10", shape, WrkDriver(threads=1))
    slow = result.slow_clients
    assert result.rps > 0 and result.shape.label == "c4+keepalive8"
    assert (slow.kind, slow.asked, slow.opened, slow.held) == ("keepalive", 8, 8, 0)
    assert all(1.0 < s < 3.5 for s in slow.dropped_s), slow.dropped_s
    assert Result.from_record(result.to_record()).slow_clients == slow


def test_gunicorn_gevent_drops_a_silent_connection_after_its_keepalive(apps_dir):
    """A connection that sends nothing is dropped by gunicorn's gevent worker after --keep-alive (2 s)."""
    reason = unavailable_reason(VARIANTS["gunicorn-gevent-w2"], apps_dir=apps_dir)
    if reason:
        pytest.skip(reason)
    server = start_variant(VARIANTS["gunicorn-gevent-w2"], apps_dir=apps_dir)
    try:
        report = hold_time(server.url + "/json", "idle", cap_s=15.0)
    finally:
        server.stop()
    assert report.opened == 1 and len(report.dropped_s) == 1
    assert 1.5 < report.dropped_s[0] < 3.5, report.dropped_s


ROOT = Path(__file__).resolve().parents[3]
ONE_TEST = '''
import pytest

@pytest.mark.perf
def test_json(perf_trial):
    """One cell, at each slow-client shape of the session."""
    perf_trial()
'''


@pytest.mark.documented
def test_the_documented_slow_client_session_records_each_shape(pytester, apps_dir):
    """docs/slow-clients.md's `pytest -m perf --perf-slow-clients none,idle16,slowloris16` (aiohttp on /json, 1 s
    windows): one test per shape, c64, c64+idle16 and c64+slowloris16, each recorded, the slow ones with their 16
    clients opened."""
    [line] = re.findall(
        r"`(pytest -m perf --perf-slow-clients [^`]+)`", (ROOT / "docs" / "slow-clients.md").read_text()
    )
    pytester.makeini(f"[pytest]\nperf_apps_dir = {apps_dir}\n")
    pytester.makepyfile(test_perf=ONE_TEST)
    narrow = ["--perf-variants=aiohttp", "--perf-workloads=json", "--perf-connections=64", "--perf-duration=1"]
    result = pytester.runpytest_subprocess(
        *shlex.split(line)[1:],
        *narrow,
        "--perf-warmup=0",
        "--perf-json=out.json",
        "-p",
        "no:cacheprovider",
        timeout=120,
    )
    result.assert_outcomes(passed=3)
    records = json.loads((pytester.path / "out.json").read_text())["results"]
    shapes = {r["shape"]["label"]: r.get("slow_clients") for r in records}
    assert sorted(shapes) == ["c64", "c64+idle16", "c64+slowloris16"], shapes
    assert shapes["c64"] is None
    for kind in ("idle", "slowloris"):
        slow = shapes[f"c64+{kind}16"]
        assert (slow["kind"], slow["asked"], slow["opened"]) == (kind, 16, 16), slow
