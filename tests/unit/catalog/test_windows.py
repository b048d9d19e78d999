"""A closed-model window and lead-in sized to the cell's designed queue (catalog.windows): the rule at its boundaries
(the session that runs them: tests/unit/pytest_plugin/test_session.py)."""

from __future__ import annotations

from dataclasses import fields

import pytest

from serverbench.catalog import windows
from serverbench.catalog.variants import registry
from serverbench.catalog.windows import (
    cell_lead_s,
    cell_trail_s,
    cell_window_s,
    closed_lead_s,
    closed_trail_s,
    closed_window_s,
)
from serverbench.catalog.workloads import WORKLOADS
from serverbench.drivers.oha import OhaDriver

VARIANTS = registry()


def test_the_window_lead_in_and_trail_factors_and_bounds_are_pinned():
    """Five queues of window (each edge a tenth of it), at most 60 s; two and a half queues of lead-in, at most 30 s;
    one queue of trail, at most 10 s, and oha's own 0.25 s trail (1 s lead-in) on every closed cell; a server that
    serves unevenly is sized in 2.5 queues of lead-in, 3 of window and 1 of trail, a pool that serves in order in 1,
    2 and none; a warm server leads in for 0.5 s."""
    assert (windows.WINDOW_QUEUES, windows.MAX_WINDOW_S, windows.LEAD_QUEUES, windows.MAX_LEAD_S) == (5, 60, 2.5, 30)
    assert (windows.TRAIL_QUEUES, windows.MAX_TRAIL_S) == (1, 10)
    assert (OhaDriver().lead_s, OhaDriver().trail_s) == (1.0, 0.25)
    assert windows.ANY_ORDER == windows.Queues(2.5, 3.0, 1) and windows.IN_ORDER == windows.Queues(1.0, 2.0, 0.0)
    assert (windows.WARM_LEAD_S, windows.MAX_AGAIN_LEAD_S) == (0.5, 10)


def test_the_window_is_five_queues_never_shorter_than_asked_never_longer_than_a_minute():
    """No queue: the duration asked.  Else 5 x the queue rounded up, at least the duration, at most 60 s unless the
    duration asks for more."""
    assert closed_window_s(1, 0.1, 64, 5) == 32  # meinheld, bjoern, wsgiref on /upstream: 6.4 s queue
    assert closed_window_s(2, 0.1, 64, 5) == 16  # gunicorn-sync-w2, gunicorn-meinheld-w2: 3.2 s
    assert closed_window_s(4, 0.1, 64, 5) == 8  # uwsgi-p2t2, waitress-t4: 1.6 s
    assert closed_window_s(10, 0.1, 64, 5) == 5  # cheroot-t10: 0.64 s, 3.2 s of window: the duration asked
    assert closed_window_s(2, 0.1, 64, 20) == 20  # a longer duration asked: kept
    assert closed_window_s(None, 0.1, 400, 5) == 5  # nothing bounds the server
    assert closed_window_s(1, 0.0, 64, 5) == 5  # nothing waits by design
    assert closed_window_s(64, 0.1, 64, 5) == 5  # every connection served at once
    assert closed_window_s(2, 0.1, 240, 5) == 60  # exactly 60 s: 5 x 12 s
    assert closed_window_s(2, 0.1, 241, 5) == 60  # above: capped
    assert closed_window_s(2, 0.1, 239, 5) == 60  # 59.75 s rounds up to the cap
    assert closed_window_s(2, 0.1, 236, 5) == 59  # 59.0 s exactly
    assert closed_window_s(2, 0.1, 400, 90) == 90  # a duration asked above the cap: kept
    assert closed_window_s(4, 0.13, 64, 5) == 11  # 5 x 2.08 s = 10.4 s: up to whole seconds, not to the nearest


def test_the_lead_in_is_two_and_a_half_queues_never_shorter_than_the_drivers_at_most_thirty_seconds():
    """No queue: the driver's lead-in.  Else 2.5 x the queue rounded up, at least the driver's, at most 30 s."""
    assert closed_lead_s(1, 0.1, 64, 2) == 16  # meinheld on /upstream: 6.4 s queue
    assert closed_lead_s(2, 0.1, 64, 2) == 8  # 3.2 s
    assert closed_lead_s(4, 0.1, 64, 2) == 4  # 1.6 s
    assert closed_lead_s(10, 0.1, 64, 2) == 2  # 0.64 s: 1.6 s of lead-in, the driver's 2 s
    assert closed_lead_s(None, 0.1, 64, 2) == 2
    assert closed_lead_s(1, 0.0, 64, 2) == 2
    assert closed_lead_s(2, 0.1, 240, 2) == 30  # exactly 30 s: 2.5 x 12 s
    assert closed_lead_s(2, 0.1, 241, 2) == 30  # above: capped
    assert closed_lead_s(2, 0.1, 236, 2) == 30  # 29.5 s rounds up to the cap
    assert closed_lead_s(2, 0.1, 232, 2) == 29  # 29.0 s exactly
    assert closed_lead_s(2, 0.1, 400, 40) == 40  # a longer lead-in of the driver's own: kept
    assert closed_lead_s(4, 0.13, 64, 2) == 6  # 2.5 x 2.08 s = 5.2 s: up to whole seconds, not to the nearest


def test_the_trail_is_one_queue_never_shorter_than_the_drivers_at_most_ten_seconds():
    """No queue: the driver's trail.  Else the queue rounded up, at least the driver's, at most 10 s."""
    assert closed_trail_s(1, 0.1, 64, 1) == 7  # meinheld on /upstream: 6.4 s queue
    assert closed_trail_s(2, 0.1, 64, 1) == 4  # 3.2 s
    assert closed_trail_s(10, 0.1, 64, 1) == 1  # 0.64 s: the driver's 1 s
    assert closed_trail_s(10, 0.1, 64, 0) == 1  # 0.64 s rounds up to a whole second
    assert closed_trail_s(None, 0.1, 64, 1) == 1
    assert closed_trail_s(1, 0.0, 64, 1) == 1
    assert closed_trail_s(1, 0.1, 100, 1) == 10  # exactly 10 s
    assert closed_trail_s(1, 0.1, 101, 1) == 10  # above: capped
    assert closed_trail_s(1, 0.1, 91, 1) == 10  # 9.1 s rounds up to the cap
    assert closed_trail_s(1, 0.1, 90, 1) == 9  # 9.0 s exactly
    assert closed_trail_s(1, 0.1, 400, 12) == 12  # a longer trail of the driver's own: kept


def test_a_cell_is_sized_from_its_variant_and_workload():
    """/upstream and /sleep queue by design on a pool; json does not; a mix, an unknown server or a driver with no
    lead-in keep what they have.  A pool that serves in order (gunicorn's sync workers) is sized in fewer queues than a
    server that serves unevenly (bjoern's event loop, gunicorn's meinheld workers)."""
    upstream, sleep = WORKLOADS["upstream"], WORKLOADS["sleep"]
    assert cell_window_s(VARIANTS["bjoern"], upstream, 64, 5) == 20  # 3 x 6.4 s
    assert cell_window_s(VARIANTS["gunicorn-sync-w2"], sleep, 64, 5) == 7  # 2 x 3.2 s
    assert cell_window_s(VARIANTS["gunicorn-sync-w2"], sleep, 64, 2) == 7
    assert cell_lead_s(VARIANTS["gunicorn-sync-w2"], sleep, 64, 1) == 4  # 1 x 3.2 s, up to whole seconds
    assert cell_trail_s(VARIANTS["gunicorn-sync-w2"], sleep, 64, 0.5) == 0.5  # no queue of trail: the driver's
    assert windows.queues_of(VARIANTS["gunicorn-sync-w2"]) is windows.IN_ORDER
    assert windows.queues_of(VARIANTS["gunicorn-meinheld-w2"]) is windows.ANY_ORDER
    assert windows.queues_of(VARIANTS["bjoern"]) is windows.ANY_ORDER
    assert cell_window_s(VARIANTS["bjoern"], WORKLOADS["json"], 64, 5) == 5
    assert cell_window_s(VARIANTS["bjoern"], WORKLOADS["site"], 64, 5) == 5
    assert cell_window_s(VARIANTS["aiohttp"], upstream, 64, 5) == 5
    assert cell_window_s(None, upstream, 64, 5) == 5
    assert cell_lead_s(VARIANTS["bjoern"], upstream, 64, 2) == 16
    assert cell_lead_s(VARIANTS["gunicorn-meinheld-w2"], upstream, 64, 2) == 8
    assert cell_lead_s(VARIANTS["bjoern"], upstream, 64, 0) == 0  # wrk: no lead-in to size
    assert cell_lead_s(VARIANTS["bjoern"], upstream, 64, 1) == 16  # a driver's 1 s lead-in is sized
    assert cell_lead_s(VARIANTS["bjoern"], WORKLOADS["site"], 64, 2) == 2
    assert cell_lead_s(None, upstream, 64, 2) == 2
    assert cell_trail_s(VARIANTS["bjoern"], upstream, 64, 1) == 7
    assert cell_trail_s(VARIANTS["gunicorn-meinheld-w2"], sleep, 64, 1) == 4
    assert cell_trail_s(VARIANTS["bjoern"], upstream, 64, 0) == 0  # wrk: no trail to size
    assert cell_trail_s(VARIANTS["bjoern"], WORKLOADS["site"], 64, 1) == 1
    assert cell_trail_s(VARIANTS["bjoern"], WORKLOADS["json"], 64, 1) == 1
    assert cell_trail_s(None, upstream, 64, 1) == 1


NO_ERRORS = {"connect": 0, "read": 0, "write": 0, "timeout": 0, "status": 0}


def _edges(carried_in: float | None, carried_out: float | None, first: float | None = 0.0, window: float = 5.0, **load):
    """A steady window of ``window`` s whose connections carried so many connection-seconds in and out of it."""
    from serverbench.records.schema import LoadReport

    return LoadReport(
        "oha",
        1000,
        window,
        0,
        {},
        load.pop("errors", NO_ERRORS),
        window="steady",
        first_wait_s=first,
        carried_in_s=carried_in,
        carried_out_s=carried_out,
        **load,
    )


def test_a_measured_window_is_read_from_a_load_reports_own_fields():
    """Every field the window policy reads (windows.MeasuredWindow) is a records.schema.LoadReport field: the policy
    sits below records and names what it reads, so a renamed field fails here rather than at a trial's end."""
    from serverbench.records.schema import LoadReport

    assert set(windows.MeasuredWindow.__annotations__) <= {f.name for f in fields(LoadReport)}


def test_the_edge_tolerance_precision_and_the_longer_window_are_pinned():
    """Edges that move the ratio by more than 0.03, or a throughput known less precisely than 20%, get one more window,
    at most four times as long, sized with a margin of 1.5."""
    assert (windows.EDGE_TOLERANCE, windows.PRECISION, windows.LONGER_WINDOWS) == (0.03, 0.2, 4)
    assert windows.PRECISION_MARGIN == 1.5
    assert windows.DEFAULT_POLICY == windows.WindowPolicy(0.2, 60)


def test_the_edge_share_is_the_wait_carried_out_less_the_wait_carried_in_and_the_first_waits():
    """64 connections x 5 s = 320 connection-seconds: 36 s out, 4 s in and 16 s of first waits move the ratio by
    +0.05; unknown edges are None, a window of no time or no connection 0."""
    assert windows.edge_share(_edges(4.0, 36.0, 16.0), 64) == pytest.approx(0.05)
    assert windows.edge_share(_edges(36.0, 4.0), 64) == pytest.approx(-0.1)
    assert windows.edge_share(_edges(4.0, 36.0, None), 64) == pytest.approx(0.1)  # no first waits known: none
    assert windows.edge_share(_edges(None, 4.0), 64) is None
    assert windows.edge_share(_edges(4.0, None), 64) is None
    assert windows.edge_share(_edges(4.0, 36.0), 0) == 0.0
    assert windows.edge_share(_edges(4.0, 36.0, window=0.0), 64) == 0.0
    assert windows.edge_share(_edges(0.0, 1.0), 1) == pytest.approx(0.2)  # one connection, 5 s
    assert windows.edge_share(_edges(0.0, 1.6, window=1.0), 64) == pytest.approx(0.025)  # a 1 s window


def test_a_window_whose_edges_miss_is_measured_again_long_enough_for_them_to_weigh_half_the_tolerance():
    """At 0.03 exactly (9.6 s of 320) the edges cancel well enough.  Above it, either way, the window grows as the share
    over half the tolerance (an edge weighs 1 / the window), at least twice and at most four times as long, whole
    seconds, at most a minute; a 60 s window or unknown edges get none."""
    assert windows.longer_window_s(_edges(0.0, 9.6), 64) is None
    assert windows.longer_window_s(_edges(9.6, 0.0), 64) is None
    assert windows.longer_window_s(_edges(0.0, 9.7), 64) == 11  # 5 x 0.0303 / 0.015 = 10.1 s
    assert windows.longer_window_s(_edges(9.7, 0.0), 64) == 11
    assert windows.longer_window_s(_edges(0.0, 0.0, 9.7), 64) == 11  # first waits are carried in too
    assert windows.longer_window_s(_edges(0.0, 12.8), 64) == 14  # 0.04: 13.33 s
    assert windows.longer_window_s(_edges(0.0, 40.0), 64) == 20  # 0.125: 41.7 s, at most 4 x 5
    assert windows.longer_window_s(_edges(0.0, 40.0, window=16.0), 64) == 42  # 0.039: 41.7 s
    assert windows.longer_window_s(_edges(0.0, 80.0, window=16.0), 64) == 60  # 83.3 s: a minute
    assert windows.longer_window_s(_edges(0.0, 40.0, window=2.1), 64) == 9  # 8.4 s (4 x 2.1), up to whole seconds
    assert windows.longer_window_s(_edges(0.0, 400.0, window=60.0), 64) is None
    assert windows.longer_window_s(_edges(0.0, 400.0, window=59.0), 64) == 60
    assert windows.longer_window_s(_edges(None, 40.0), 64) is None
    assert windows.longer_window_s(_edges(0.0, 80.0, window=16.0), 64, policy=windows.WindowPolicy(0.05, 30)) == 30


def test_a_window_less_precise_than_asked_is_measured_again_long_enough_to_reach_it():
    """An interval narrows as 1 / sqrt(the window): (reached / asked)^2 x 1.5 times as long, between twice and four
    times; at the precision asked exactly, with no precision known, or a mean latency alone less precise (it follows
    from the throughput when the edges cancel), none."""
    precise = dict(carried_in=0.0, carried_out=0.0)
    asked = windows.WindowPolicy(precision=0.05)
    assert windows.longer_window_s(_edges(**precise, precision={"rps": 0.05}), 64, policy=asked) is None
    assert windows.longer_window_s(_edges(**precise, precision={"rps": None}), 64, policy=asked) is None
    assert windows.longer_window_s(_edges(**precise, precision={"latency_mean": 0.5}), 64, policy=asked) is None
    assert windows.longer_window_s(_edges(**precise, precision={"rps": 0.06}), 64, policy=asked) == 11  # 10.8 s
    assert windows.longer_window_s(_edges(**precise, precision={"rps": 0.051}), 64, policy=asked) == 10  # 7.8: twice
    assert windows.longer_window_s(_edges(**precise, precision={"rps": 0.2}), 64, policy=asked) == 20  # four times
    assert windows.longer_window_s(_edges(**precise, precision={"rps": 0.2}), 64) is None  # the default, 20%
    assert windows.longer_window_s(_edges(**precise, precision={"rps": 0.25}), 64) == 12  # 5 x 1.5625 x 1.5 = 11.7 s
    assert windows.unconverged(_edges(0.0, 12.8, precision={"rps": 0.21, "latency_mean": 0.5}), 64) == {
        "edges": pytest.approx(0.04),
        "rps": 0.21,
    }


def test_a_run_whose_first_requests_were_answered_after_its_lead_in_is_measured_again_with_a_longer_one():
    """A server that takes its connections in turn holds some of the run's first requests into the window: measured
    again (held connections or not) with a lead-in 1.5 times the time every first request took, at least twice the
    last, whole seconds; not when that lead-in would pass 10 s or a connection was not taken within the window (named
    instead); a run whose first requests were all answered in its lead-in keeps its lead-in."""
    late = dict(carried_in=0.0, carried_out=0.0, first=44.2, held_through=15, lead_s=1.0, first_answered_s=2.6)
    load = _edges(**late)
    assert windows.started_late(load)
    assert windows.longer_window_s(load, 64) == 20  # the first waits moved the ratio by -0.14: four times as long
    assert windows.again_lead_s(load) == 4  # 1.5 x 2.6 = 3.9 s
    assert windows.again_lead_s(_edges(**{**late, "first_answered_s": 1.2})) == 2  # twice the 1 s lead-in
    assert windows.again_lead_s(_edges(**{**late, "first_answered_s": 5.5})) == 9  # 8.25 s
    assert windows.again_lead_s(_edges(**{**late, "first_answered_s": 8.0}, window=20.0)) is None  # 12 s: past 10 s
    starved = _edges(**{**late, "first_answered_s": 7.0})  # after the window's end (1 + 5 s): not taken in it
    assert windows.again_lead_s(starved) is None and windows.longer_window_s(starved, 64) is None
    on_time = _edges(**{**late, "first_answered_s": 0.9})
    assert not windows.started_late(on_time) and windows.again_lead_s(on_time) is None
    assert windows.longer_window_s(on_time, 64) is None  # held for another reason: named, not measured again
    assert not windows.started_late(_edges(**{**late, "first_answered_s": None}))


def test_a_ceiling_shorter_than_a_queue_is_an_error_and_one_under_five_queues_a_notice():
    """ceiling_problems: a cell whose designed queue is longer than the ceiling cannot be measured; one whose five
    queues are longer is measured with heavier edges; the rest are fine."""
    short, capped = windows.ceiling_problems({"a": (6.4, 5), "b": (3.2, 5), "c": (0.5, 5), "d": (12.0, 5)}, 10)
    assert short == ["d (queue 12.0 s)"]
    assert capped == ["a (queue 6.4 s, window 10 s)", "b (queue 3.2 s, window 10 s)"]
    assert windows.ceiling_problems({"a": (6.4, 5)}, 32) == ([], [])
    assert windows.ceiling_problems({"b": (6.4, 2)}, 13) == ([], [])  # a pool: two queues


def test_a_window_with_failed_requests_held_connections_or_dropped_syns_is_not_measured_again():
    """Those connections spent time in no answered request, which the checks name: a timeout or a connect error in the
    window or in its run, one connection held through it, one SYN dropped; a status error is an answer and does not
    count."""
    missed = dict(carried_in=0.0, carried_out=40.0)
    assert windows.longer_window_s(_edges(**missed), 64, listen_drops=0) == 20
    assert windows.longer_window_s(_edges(**missed), 64, listen_drops=1) is None
    assert windows.longer_window_s(_edges(**missed, held_through=1), 64) is None
    assert windows.longer_window_s(_edges(**missed, held_through=0), 64) == 20
    for kind in ("connect", "read", "write", "timeout"):
        assert windows.longer_window_s(_edges(**missed, errors={**NO_ERRORS, kind: 1}), 64) is None, kind
        run = {**NO_ERRORS, kind: 1}  # failed in the lead-in or trail: none of the window's
        assert windows.longer_window_s(_edges(**missed, run_errors=run), 64) is None, kind
    assert windows.longer_window_s(_edges(**missed, errors={**NO_ERRORS, "status": 5}), 64) == 20


def test_a_cells_designed_queue_is_none_where_the_kernel_or_nothing_holds_the_queue():
    """cell_queue_s: bjoern on /upstream at 64 connections queues 6.4 s; wsgiref (a listen backlog of 5) at its backlog
    queues 0.5 s in its own queue, one connection beyond it waits in the kernel (0, as for a URL mix or a server the
    catalog does not describe), and so does every window, lead-in and trail sized for it: the driver's own."""
    upstream, wsgiref = WORKLOADS["upstream"], VARIANTS["wsgiref"]
    assert windows.cell_queue_s(VARIANTS["bjoern"], upstream, 64) == pytest.approx(6.4)
    assert windows.cell_queue_s(wsgiref, upstream, 5) == pytest.approx(0.5)
    assert not windows.kernel_queued(wsgiref, 5) and windows.kernel_queued(wsgiref, 6)
    assert windows.cell_queue_s(wsgiref, upstream, 6) == 0.0
    assert windows.cell_queue_s(wsgiref, upstream, 64) == 0.0
    assert windows.cell_queue_s(VARIANTS["bjoern"], WORKLOADS["site"], 64) == 0.0
    assert windows.cell_queue_s(None, upstream, 64) == 0.0
    assert cell_window_s(wsgiref, upstream, 64, 5) == 5  # 2 x 6.4 s were it its own queue
    assert cell_lead_s(wsgiref, upstream, 64, 1) == 1
    assert cell_trail_s(wsgiref, upstream, 64, 0.25) == 0.25


def test_a_ceiling_exactly_one_queue_long_measures_it_in_fewer_queues_than_sized():
    """A 10 s queue under a 10 s ceiling is measurable (a window one queue long), capped, not refused."""
    assert windows.ceiling_problems({"e": (10.0, 5)}, 10) == ([], ["e (queue 10.0 s, window 10 s)"])


def test_a_run_measured_again_for_its_late_first_requests_at_each_bound():
    """First requests answered exactly as the lead-in ended did not start late; answered exactly as the window closed
    they were taken in it (a lead-in of 1.5 x 6 s = 9 s); twice a 3 s lead-in (6 s) beats 1.5 x 3.1 s; a lead-in of
    exactly 10 s is kept."""
    late = dict(carried_in=0.0, carried_out=0.0, first=44.2, held_through=15, lead_s=1.0)
    assert not windows.started_late(_edges(**late, first_answered_s=1.0))
    assert windows.again_lead_s(_edges(**late, first_answered_s=1.0)) is None
    assert windows.again_lead_s(_edges(**late, first_answered_s=6.0)) == 9  # the window's end: 1 + 5 s
    assert windows.again_lead_s(_edges(**{**late, "lead_s": 3.0}, first_answered_s=3.1)) == 6
    assert windows.again_lead_s(_edges(**late, first_answered_s=6.6, window=20.0)) == 10  # 9.9 s


def test_a_window_or_lead_in_measured_again_ignores_an_excess_under_half_a_microsecond():
    """Whole seconds of measured times rounded to the microsecond first: 1.5 x 4.0000002 s is a 6 s lead-in and twice
    a 5.00000015 s window a 10 s window, not one second more for a float's last digits."""
    late = dict(carried_in=0.0, carried_out=0.0, held_through=15, lead_s=1.0, first_answered_s=4.0000002)
    assert windows.again_lead_s(_edges(**late)) == 6
    precise = dict(carried_in=0.0, carried_out=0.0, precision={"rps": 0.051}, window=5.00000015)
    assert windows.longer_window_s(_edges(**precise), 64, policy=windows.WindowPolicy(precision=0.05)) == 10
