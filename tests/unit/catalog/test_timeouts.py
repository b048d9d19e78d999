"""A closed-model request's timeout sized to the cell (catalog.timeouts) and recorded: the rule at its boundaries."""

from serverbench.catalog import timeouts, windows
from serverbench.catalog.timeouts import cell_timeout_s, closed_timeout_s, designed_queue_s
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.drivers.oha import OhaDriver
from serverbench.drivers.wrk import WrkDriver
from serverbench.records.schema import Generator

VARIANTS = registry()


def test_the_bounds_and_margin_are_pinned():
    """Default 5 s (the drivers' own), twice the designed queue, at most 100 s: the longest load catalog.windows sizes
    (a 30 s lead-in, a 60 s window, a 10 s trail), so a connection left unanswered through the run is held, not given
    up."""
    assert (timeouts.DEFAULT_TIMEOUT_S, timeouts.QUEUE_MARGIN, timeouts.MAX_TIMEOUT_S) == (5, 2.0, 100)
    assert timeouts.MAX_TIMEOUT_S == windows.MAX_LEAD_S + windows.MAX_WINDOW_S + windows.MAX_TRAIL_S
    assert OhaDriver().timeout_s == WrkDriver().timeout_s == timeouts.DEFAULT_TIMEOUT_S


def test_the_designed_queue_is_littles_law_at_the_designed_capacity():
    """N connections through P at a time, each waiting w, queue N x w / P; none when N <= P, w = 0 or no bound."""
    assert designed_queue_s(1, 0.1, 64) == 6.4
    assert designed_queue_s(2, 0.1, 64) == 3.2
    assert designed_queue_s(64, 0.1, 64) == 0.0  # every connection served at once
    assert designed_queue_s(63, 0.1, 64) > 0
    assert designed_queue_s(1, 0.0, 64) == 0.0  # nothing waits by design (json, redis)
    assert designed_queue_s(None, 0.1, 64) == 0.0  # an event loop, greenlets: no pool
    assert designed_queue_s(0, 0.1, 64) == 0.0


def test_the_timeout_is_the_runs_load_plus_twice_the_queue_within_its_bounds():
    """No designed queue: 5 s.  Else the run's load (lead-in, window, trail) + 2 x the queue, rounded up, within
    5..100 s."""
    run = 2 + 5  # oha's lead-in and the default window
    assert closed_timeout_s(1, 0.1, 64, run) == 20  # meinheld, bjoern, wsgiref on /upstream: 6.4 s queue
    assert closed_timeout_s(2, 0.1, 64, run) == 14  # gunicorn-sync-w2, gunicorn-meinheld-w2: 3.2 s
    assert closed_timeout_s(4, 0.1, 64, run) == 11  # uwsgi-p2t2: 1.6 s
    assert closed_timeout_s(10, 0.1, 64, run) == 9  # cheroot-t10, paste-t10: 0.64 s
    assert closed_timeout_s(10, 0.1, 10, run) == 5  # every connection served at once: no queue
    assert closed_timeout_s(None, 0.1, 400, run) == 5  # nothing bounds the server
    assert closed_timeout_s(1, 0.0, 64, run) == 5  # nothing waits by design
    assert closed_timeout_s(63, 0.1, 64, 0) == 5  # a tiny queue on a run of no length: never below 5 s
    assert closed_timeout_s(2, 0.1, 930, run) == 100  # exactly 100 s: 7 + 2 x 46.5
    assert closed_timeout_s(2, 0.1, 931, run) == 100  # above: capped
    assert closed_timeout_s(2, 0.1, 921, run) == 100  # 99.1 s rounds up to the cap
    assert closed_timeout_s(2, 0.1, 920, run) == 99  # 99.0 s exactly
    assert closed_timeout_s(2, 0.1, 400, run) == 47  # gunicorn-sync-w2 on /sleep at c400: a 20 s queue
    assert closed_timeout_s(1, 0.1, 64, 0 + 5) == 18  # wrk: no lead-in


def test_the_variants_concurrency_under_a_blocking_call_comes_from_the_catalog():
    """Pools: workers x threads; a C event loop running WSGI: one per process; greenlets, asyncio: no bound."""
    expected = {
        "wsgiref": 1,
        "gunicorn-sync-w2": 2,
        "gunicorn-gthread-t10": 10,
        "uwsgi-p2t2": 4,
        "cheroot-t10": 10,
        "paste-t10": 10,
        "waitress-t4": 4,
        "meinheld": 1,
        "bjoern": 1,
        "gunicorn-meinheld-w2": 2,
        "gunicorn-gevent-w2": None,
        "gevent-pywsgi": None,
        "aiohttp": None,
        "uvicorn": None,
        "werkzeug-threaded": None,
        "node-http": None,
        "node-cluster-w2": None,
    }
    assert {name: VARIANTS[name].blocking_concurrency for name in expected} == expected


def test_a_cell_is_sized_from_its_variant_and_workload():
    """The failing cells of issue 23's census on /upstream, c64 (oha: 2 s lead-in, 5 s window); json has no designed
    wait; a mix or an unknown server keeps the default."""
    upstream, sleep = WORKLOADS["upstream"], WORKLOADS["sleep"]
    assert cell_timeout_s(VARIANTS["meinheld"], upstream, 64, 7) == 20
    assert cell_timeout_s(VARIANTS["bjoern"], upstream, 64, 7) == 20
    assert cell_timeout_s(VARIANTS["wsgiref"], upstream, 64, 7) == 20
    assert cell_timeout_s(VARIANTS["gunicorn-meinheld-w2"], upstream, 64, 7) == 14
    assert cell_timeout_s(VARIANTS["uwsgi-p2t2"], upstream, 64, 7) == 11
    assert cell_timeout_s(VARIANTS["cheroot-t10"], upstream, 64, 7) == 9
    assert cell_timeout_s(VARIANTS["gunicorn-sync-w2"], sleep, 400, 7) == 47
    assert cell_timeout_s(VARIANTS["wsgiref"], WORKLOADS["json"], 64, 7) == 5
    assert cell_timeout_s(VARIANTS["wsgiref"], WORKLOADS["site"], 64, 7) == 5
    assert cell_timeout_s(None, upstream, 64, 7) == 5


def test_the_record_keeps_the_timeout_used():
    """generator.timeout_s is written when known and read back; a record without it reads as None."""
    gen = Generator("oha", "1.16.0", 1, 1.0, 5.0, 2, timeout_s=13)
    rec = gen.to_record()
    assert rec["timeout_s"] == 13 and Generator.from_record(rec, 5.0) == gen
    old = Generator("oha", "1.16.0", 1, 1.0, 5.0, 2).to_record()
    assert "timeout_s" not in old and Generator.from_record(old, 5.0).timeout_s is None
