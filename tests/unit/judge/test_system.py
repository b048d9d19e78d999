"""System calls, connections and memory kept judged between two arms, without a server."""

from types import SimpleNamespace

import pytest

from serverbench.judge.system import CALLS_MIN, KEPT_MIN, Move, as_decision, judge_system, peers_line
from serverbench.records.cost import CountSpread, SystemCounts


def counted(calls, sent=154.0, received=39.0, connections=0.005, kept=0.0, spread=None):
    return SimpleNamespace(
        system=SystemCounts(calls, sent, received, connections), kept_per_request=kept, spread=spread
    )


SYNC = {"recvfrom": 1.0, "sendto": 1.0, "poll": 1.0}


def test_one_more_call_per_request_is_a_regression_named_by_the_call():
    """+1.00 clock_nanosleep per request rises beyond the one-call floor and is named."""
    verdict = judge_system([counted(SYNC)], [counted({**SYNC, "clock_nanosleep": 1.0})])
    assert verdict.verdict == "regression"
    assert [m.line() for m in verdict.regressions] == ["+1.00 clock_nanosleep per request (0.00 -> 1.00)"]


def test_less_than_one_call_per_request_passes_and_fewer_calls_improve():
    """A fraction of a call (housekeeping) passes; a call gone per request is an improvement."""
    assert judge_system([counted(SYNC)], [counted({**SYNC, "newfstatat": 0.07})]).verdict == "pass"
    verdict = judge_system([counted(SYNC)], [counted({"recvfrom": 1.0, "sendto": 1.0})])
    assert verdict.verdict == "improvement" and verdict.improvements[0].what == "poll"


def test_a_name_whose_counts_vary_gets_its_tolerance_from_the_spread_and_says_so():
    """epoll_wait 4-5 per request over three base counts: tolerance 3x the spread (3.00), so +2 passes, stated."""
    base = [counted({**SYNC, "epoll_wait": v}) for v in (4.0, 5.0, 4.0)]
    cand = [counted({**SYNC, "epoll_wait": v}) for v in (6.0, 6.0, 6.0)]
    verdict = judge_system(base, cand)
    assert verdict.verdict == "pass"
    assert "epoll_wait varies run to run (its counts' spread 1.00 per request): tolerance ±3.00, 3x its spread" in (
        verdict.message()
    )
    assert judge_system(base, [counted({**SYNC, "epoll_wait": 8.0})]).regressions[0].what == "epoll_wait"


def test_vdso_calls_are_shown_never_judged():
    """clock_gettime is a system call only under valgrind: its rise is shown, the verdict passes."""
    verdict = judge_system([counted({**SYNC, "clock_gettime": 11.0})], [counted({**SYNC, "clock_gettime": 14.0})])
    assert verdict.verdict == "pass" and verdict.shown[0].what == "clock_gettime"
    assert "the vDSO serves them" in verdict.message()


def test_a_connection_per_request_and_a_leak_are_regressions_bytes_only_shown():
    """A connection opened per request and 1 KB kept per request fail; 200 bytes more sent is shown, not judged."""
    verdict = judge_system([counted(SYNC)], [counted(SYNC, sent=354.0, connections=1.005, kept=1065.0)])
    assert [m.what for m in verdict.regressions] == ["connections", "memory kept"]
    assert [m.line() for m in verdict.shown] == ["+200 bytes sent per request (154 -> 354)"]
    assert "+1,065 bytes memory kept per request (0 -> 1,065)" in verdict.message()
    assert judge_system([counted(SYNC)], [counted(SYNC, kept=KEPT_MIN - 1)]).verdict == "pass"


def test_absent_counts_are_said_once_and_never_read_as_zero():
    """One side without system counts: not judged, inconclusive without kept memory, with the reason given."""
    absent = SimpleNamespace(system=None, kept_per_request=None, spread=None)
    verdict = judge_system([absent], [counted(SYNC)], absent="valgrind wrote no system-call trace for pid 7")
    assert verdict.verdict == "inconclusive" and not verdict.regressions
    assert verdict.message() == "system calls and memory kept not judged: valgrind wrote no system-call trace for pid 7"


def test_a_moves_line_and_record():
    """A call's change to two places, bytes as whole bytes; the record rounds to three places."""
    assert Move("connect", 0.0, 1.0, CALLS_MIN).line() == "+1.00 connect per request (0.00 -> 1.00)"
    assert Move("x", 0.0, 1 / 3, 1.0).to_record() == {"what": "x", "base": 0.0, "candidate": 0.333, "limit": 1.0}


def test_the_gates_decision_carries_the_largest_move_and_the_message():
    """As the gate's counted system signal: the largest rise per request, n, and the message as its reason."""
    verdict = judge_system([counted(SYNC)], [counted({**SYNC, "clock_nanosleep": 1.0, "connect": 2.0})])
    decision = as_decision(verdict, 2)
    assert (decision.verdict, decision.delta, decision.n, decision.unit) == ("regression", 2.0, 2, "per request")
    assert decision.reason == verdict.message() and "+2.00 connect per request" in decision.reason


def test_memory_kept_over_fewer_than_200_requests_is_shown_not_judged():
    """Over 50 requests (the gate's default) the heap is still settling: a rise is shown, and the note says why."""
    verdict = judge_system([counted(SYNC, kept=0.0)], [counted(SYNC, kept=1065.0)], requests=50)
    assert verdict.verdict == "pass" and verdict.shown[0].what == "memory kept"
    assert "memory kept not judged over 50 requests" in verdict.message()


def test_an_irregular_name_fails_only_when_it_doubles_and_says_so():
    """futex at 2.45 a request (not a whole number: a thread pool's wake-ups) may read 3.52 in another single
    count: a pass, its tolerance its own count, stated; at 5.00 it fails.  A whole count keeps the one-call limit."""
    base = [counted({**SYNC, "futex": 2.45})]
    verdict = judge_system(base, [counted({**SYNC, "futex": 3.52})])
    assert verdict.verdict == "pass"
    assert (
        "futex is irregular (2.45 per request, not a whole number: scheduling or timers) and no spread of it was "
        "counted: tolerance 2.45" in (verdict.message())
    )
    assert judge_system(base, [counted({**SYNC, "futex": 5.0})]).regressions[0].what == "futex"
    assert judge_system([counted({**SYNC, "sendto": 2.0})], [counted({**SYNC, "sendto": 3.0})]).verdict == "regression"


def test_one_more_call_beside_housekeeping_that_fell_is_still_a_regression():
    """newfstatat 0.08 -> 1.06 (an os.stat planted beside the arbiter's ticks, which fell to 0.06) is a regression;
    its limit is 1.00 less the base's fraction (0.92); housekeeping that moves (0.07 -> 0.09) passes, and a whole
    count keeps the one-call limit."""
    verdict = judge_system([counted({**SYNC, "newfstatat": 0.08})], [counted({**SYNC, "newfstatat": 1.06})])
    assert [m.line() for m in verdict.regressions] == ["+0.98 newfstatat per request (0.08 -> 1.06)"]
    assert verdict.regressions[0].limit == CALLS_MIN - 0.08
    assert judge_system([counted({**SYNC, "newfstatat": 0.07})], [counted({**SYNC, "newfstatat": 0.09})]).verdict == (
        "pass"
    )
    (whole,) = judge_system([counted({**SYNC, "read": 2.0})], [counted({**SYNC, "read": 3.0})]).regressions
    assert whole.limit == CALLS_MIN


def test_a_stored_baseline_whose_calls_fell_apart_gives_each_name_three_times_its_spread_and_says_so():
    """futex 3.13-3.55 over the baseline's 5 counts (spread 0.42): its tolerance is ±1.26, stated, not its own
    count; +1.20 passes, +1.30 fails.  A name the counts agreed on keeps its one-call floor."""
    spread = CountSpread(5, 0.001, {"futex": 0.42}, 0.0, 20.5)
    base = [counted({**SYNC, "futex": 3.3}, spread=spread)]
    verdict = judge_system(base, [counted({**SYNC, "futex": 4.5})])
    assert verdict.verdict == "pass"
    assert (
        "futex varies run to run (the baseline's 5 counts' spread 0.42 per request): tolerance ±1.26, 3x its spread"
        in verdict.message()
    )
    assert "irregular" not in verdict.message()
    assert judge_system(base, [counted({**SYNC, "futex": 4.6})]).regressions[0].what == "futex"
    assert judge_system(base, [counted({**SYNC, "futex": 3.3, "sendto": 2.0})]).regressions[0].what == "sendto"


def test_a_stored_spread_narrower_than_a_floor_leaves_the_floor():
    """Memory kept 0-20.5 bytes over the baseline's counts: 3x is below the 256-byte floor, which stays, unstated."""
    base = [counted(SYNC, kept=0.0, spread=CountSpread(5, 0.001, {}, 0.0, 20.5))]
    verdict = judge_system(base, [counted(SYNC, kept=250.0)])
    assert verdict.verdict == "pass" and "memory kept varies" not in verdict.message()
    assert judge_system(base, [counted(SYNC, kept=KEPT_MIN)]).regressions[0].what == "memory kept"


def test_the_message_names_each_rise_each_fall_and_each_shown_move_then_the_notes():
    """Rises, falls and bytes that moved, each joined by commas, the parts and the notes by semicolons."""
    base = counted({"sendto": 1.0, "recvfrom": 1.0, "poll": 3.0, "read": 3.0}, kept=None)
    cand = counted({"sendto": 2.0, "recvfrom": 3.0, "poll": 1.0, "read": 2.0}, received=539.0, kept=None)
    verdict = judge_system([base], [cand])
    assert verdict.verdict == "regression"
    assert verdict.message() == (
        "rose: +2.00 recvfrom per request (1.00 -> 3.00), +1.00 sendto per request (1.00 -> 2.00); "
        "fell: -2.00 poll per request (3.00 -> 1.00), -1.00 read per request (3.00 -> 2.00); "
        "moved (not judged): +500 bytes received per request (39 -> 539); "
        "memory kept not judged: not counted on one side"
    )


def test_nothing_moved_says_so_in_one_sentence():
    """Equal counts on both sides: a pass whose message is the one sentence, with no tolerance note."""
    verdict = judge_system([counted(SYNC)], [counted(SYNC)])
    assert verdict.verdict == "pass"
    assert verdict.message() == "no system call, connection or kept memory moved beyond its limit"


def test_memory_kept_is_judged_when_only_the_system_calls_are_absent():
    """No system-call trace on either side but memory kept on both: the leak is judged, the calls' absence said."""
    base = SimpleNamespace(system=None, kept_per_request=0.0, spread=None)
    verdict = judge_system([base], [SimpleNamespace(system=None, kept_per_request=1065.0, spread=None)])
    assert verdict.verdict == "regression"
    assert verdict.message() == (
        "rose: +1,065 bytes memory kept per request (0 -> 1,065); system calls not judged: not counted on one side"
    )


def test_an_arm_without_counted_windows_is_not_judged():
    """An empty arm has nothing to compare: inconclusive, never an error and never read as zero."""
    for base, cand in (([], [counted(SYNC)]), ([counted(SYNC)], [])):
        verdict = judge_system(base, cand)
        assert verdict.verdict == "inconclusive"
        assert verdict.message() == "system calls and memory kept not judged: not counted on one side"


def test_a_vdso_call_is_shown_from_one_call_per_request_and_not_when_unchanged():
    """clock_gettime +1.00 a request is shown beside the bytes that moved (the limit is inclusive), with why it is not
    judged; the same count on both sides is not shown."""
    cand = counted({**SYNC, "clock_gettime": 12.0}, sent=654.0)
    verdict = judge_system([counted({**SYNC, "clock_gettime": 11.0})], [cand])
    assert verdict.verdict == "pass"
    assert verdict.message() == (
        "moved (not judged): +1.00 clock_gettime per request (11.00 -> 12.00), +500 bytes sent per request "
        "(154 -> 654); clock_gettime and the like are system calls under valgrind only (the vDSO serves them)"
    )
    same = judge_system([counted({**SYNC, "clock_gettime": 11.0})], [counted({**SYNC, "clock_gettime": 11.0})])
    assert same.shown == () and "valgrind" not in same.message()


def test_a_whole_count_with_a_little_housekeeping_lowers_its_limit_by_that_fraction_only():
    """newfstatat 1.04 (one stat a request and the arbiter's ticks): the limit is 0.96; +0.97 fails, +0.95 passes."""
    base = [counted({**SYNC, "newfstatat": 1.04})]
    (rise,) = judge_system(base, [counted({**SYNC, "newfstatat": 2.01})]).regressions
    assert rise.limit == pytest.approx(0.96)
    assert judge_system(base, [counted({**SYNC, "newfstatat": 1.99})]).verdict == "pass"


def test_a_call_that_falls_to_housekeeping_is_an_improvement_not_an_irregular_name():
    """poll 3.00 -> 0.05 a request: 0.05 is within the whole-number slack, so the one-call limit applies."""
    verdict = judge_system([counted({**SYNC, "poll": 3.0})], [counted({**SYNC, "poll": 0.05})])
    assert verdict.verdict == "improvement" and "irregular" not in verdict.message()


def test_the_gates_decision_of_falls_carries_the_largest_fall_and_no_statistics():
    """Two calls fewer: the delta is the larger fall, the interval that one value, no p, no dispersion, not
    borderline; nothing moved gives a delta of 0."""
    verdict = judge_system([counted({"poll": 3.0, "read": 3.0})], [counted({"poll": 1.0, "read": 2.0})])
    decision = as_decision(verdict, 2)
    assert decision.summary() == "Δ -2.000 per request [-2.000, -2.000 per request] p=n/a n=2 disp=n/a -> improvement"
    record = decision.to_record()
    assert (record["ci"], record["p"], record["borderline"]) == ([-2.0, -2.0], None, False)
    assert as_decision(judge_system([counted(SYNC)], [counted(SYNC)]), 2).delta == 0.0


def test_a_stored_spread_of_connections_and_of_memory_kept_widens_their_tolerance():
    """Connections 0.2 and memory kept 200 bytes apart over the baseline's 5 counts: tolerances ±0.60 and ±600,
    stated, so +0.55 connections and +500 bytes kept pass; beyond them each fails."""
    spread = CountSpread(5, 0.001, {}, 0.2, 200.0)
    base = [counted(SYNC, connections=0.005, kept=100.0, spread=spread)]
    verdict = judge_system(base, [counted(SYNC, connections=0.555, kept=600.0)])
    assert verdict.verdict == "pass"
    assert "connections varies run to run (the baseline's 5 counts' spread 0.20 per request): tolerance ±0.60" in (
        verdict.message()
    )
    assert "memory kept varies run to run (the baseline's 5 counts' spread 200.00 per request): tolerance ±600.00" in (
        verdict.message()
    )
    worse = judge_system(base, [counted(SYNC, connections=0.655, kept=800.0)])
    assert [m.what for m in worse.regressions] == ["connections", "memory kept"]


def test_a_stored_spread_without_system_calls_leaves_an_irregular_name_its_own_count():
    """A baseline whose counts kept no spread of the calls (only memory kept): futex at 2.45 is irregular, its
    tolerance its own count, as without any stored spread."""
    base = [counted({**SYNC, "futex": 2.45}, spread=CountSpread(5, 0.001, None, None, 20.5))]
    verdict = judge_system(base, [counted({**SYNC, "futex": 3.52})])
    assert verdict.verdict == "pass" and "futex is irregular (2.45 per request" in verdict.message()


def test_against_a_baseline_counted_at_another_time_an_irregular_name_is_shown_not_judged():
    """waitress-t4's futex read 2.90 per request in its baseline and 6.88 in CI with tests running beside it, with
    no code changed: against a stored baseline (apart) that name is shown and said, not a regression; a whole call
    planted beside it still fails; the gate (arms counted together) judges the same futex rise."""
    base, cand = counted({**SYNC, "futex": 2.90}), counted({**SYNC, "futex": 6.88})
    verdict = judge_system([base], [cand], apart=True)
    assert verdict.verdict == "pass" and [m.what for m in verdict.shown] == ["futex"]
    assert "futex is irregular (not a whole number per request: scheduling or timers) and follows" in verdict.message()
    planted = counted({**SYNC, "futex": 6.88, "clock_nanosleep": 1.0})
    assert [m.what for m in judge_system([base], [planted], apart=True).regressions] == ["clock_nanosleep"]
    assert judge_system([base], [cand]).verdict == "regression"


def peered(calls, peers, connections=1.0, kept=0.0):
    """A count whose sockets' peers were followed: ``peers`` maps a peer to its calls and connections."""
    by_peer = {p: SystemCounts(c, 0.0, 0.0, n) for p, (c, n) in peers.items()}
    return SimpleNamespace(
        system=SystemCounts(calls, 154.0, 39.0, connections, by_peer), kept_per_request=kept, spread=None
    )


CLIENT = {"accept4": 1.0, "recvfrom": 1.0, "sendto": 1.0}
PIPELINE = {"sendto": 1.0, "recvfrom": 2.0}


def test_a_round_trip_to_a_backend_is_named_by_its_peer():
    """An extra Redis GET (+1 sendto, +2 recvfrom on the pooled connection) reads as calls to redis, the limits
    staying the totals'; the record names the peer's part, and no unseen peer is noted."""
    base = peered(
        {"accept4": 1.0, "recvfrom": 3.0, "sendto": 2.0}, {"clients": (CLIENT, 1.0), "redis": (PIPELINE, 0.0)}
    )
    extra = {"sendto": 2.0, "recvfrom": 4.0}
    cand = peered({"accept4": 1.0, "recvfrom": 5.0, "sendto": 3.0}, {"clients": (CLIENT, 1.0), "redis": (extra, 0.0)})
    verdict = judge_system([base], [cand])
    assert [m.line() for m in verdict.regressions] == [
        "+2.00 recvfrom per request to redis (3.00 -> 5.00)",
        "+1.00 sendto per request to redis (2.00 -> 3.00)",
    ]
    assert verdict.regressions[1].to_record()["to"] == {"redis": 1.0}
    assert "unseen" not in verdict.message()


def test_a_move_shared_by_peers_lists_each_and_a_connection_per_request_names_where_it_went():
    """A rise two peers share lists both parts; a connection opened and closed inside each request is named as
    unseen; counts without peers keep the plain line."""
    base = peered({"read": 2.0}, {"clients": ({"read": 1.0}, 1.0), "redis": ({"read": 1.0}, 0.0)})
    cand = peered(
        {"read": 4.0, "connect": 1.0},
        {"clients": ({"read": 2.0}, 1.0), "redis": ({"read": 2.0}, 0.0), "unseen": ({"connect": 1.0}, 1.0)},
        connections=2.0,
    )
    verdict = judge_system([base], [cand])
    assert [m.line() for m in verdict.regressions] == [
        "+1.00 connect per request to an unseen peer (0.00 -> 1.00)",
        "+2.00 read per request (2.00 -> 4.00, +1.00 with the clients, +1.00 to redis)",
        "+1.00 connections per request to an unseen peer (1.00 -> 2.00)",
    ]
    assert verdict.message().count("an unseen peer: sockets opened and closed inside a request") == 1
    plain = judge_system([counted({"read": 2.0})], [peered({"read": 4.0}, {"redis": ({"read": 4.0}, 0.0)}, 0.005)])
    assert [m.line() for m in plain.regressions] == ["+2.00 read per request (2.00 -> 4.00)"]


def test_memory_kept_read_without_valgrind_is_judged_over_its_own_requests_and_says_so():
    """Memory kept read over 1,000 requests of a run without valgrind is judged, and the note says how it was read."""
    base = SimpleNamespace(**vars(counted(SYNC, kept=4.0)), kept_uninstrumented=True)
    cand = SimpleNamespace(**vars(counted(SYNC, kept=1077.0)), kept_uninstrumented=True)
    verdict = judge_system([base], [cand], requests=1000)
    assert [m.what for m in verdict.regressions] == ["memory kept"]
    assert "memory kept read over 1000 requests of the server without valgrind" in verdict.message()


def test_a_peer_is_named_from_half_the_floor_and_the_largest_part_comes_first():
    """read +3.00 a request: +2.50 to redis listed before +0.50 with the clients, which is exactly half the one-call
    floor and so still named."""
    base = peered({"read": 2.0}, {"clients": ({"read": 1.0}, 1.0), "redis": ({"read": 1.0}, 0.0)})
    cand = peered({"read": 5.0}, {"clients": ({"read": 1.5}, 1.0), "redis": ({"read": 3.5}, 0.0)})
    assert [m.line() for m in judge_system([base], [cand]).regressions] == [
        "+3.00 read per request (2.00 -> 5.00, +2.50 to redis, +0.50 with the clients)"
    ]


def test_a_connections_share_is_named_from_a_quarter_of_a_connection():
    """A connection more per request, three quarters with the clients and one to redis every fourth request: both
    named, the share scaled by the connections' floor (0.5), not the calls'."""
    base = peered({"accept4": 1.0}, {"clients": ({}, 1.0), "redis": ({}, 0.0)}, connections=1.0)
    cand = peered({"accept4": 1.0}, {"clients": ({}, 1.75), "redis": ({}, 0.25)}, connections=2.0)
    assert [m.line() for m in judge_system([base], [cand]).regressions] == [
        "+1.00 connections per request (1.00 -> 2.00, +0.75 with the clients, +0.25 to redis)"
    ]


def test_a_moves_record_rounds_each_peers_part_to_three_places():
    """A peer's part of a third of a call is recorded as 0.333, as the move's own figures are."""
    move = Move("sendto", 0.0, 1 / 3, CALLS_MIN, to=(("redis", 1 / 3),))
    assert move.to_record()["to"] == {"redis": 0.333}


def test_the_peers_line_puts_the_most_calls_first_ties_by_name_without_the_vdso():
    """statsd's 3 calls first (its clock_gettime left out), then clients and redis at 2 each, by name."""
    system = {
        "peers": {
            "redis": {"calls": {"sendto": 1.0, "recvfrom": 1.0}},
            "statsd": {"calls": {"sendto": 3.0, "clock_gettime": 5.0}},
            "clients": {"calls": {"recvfrom": 1.0, "sendto": 1.0}},
        }
    }
    assert peers_line(system) == "statsd 3.00, clients 2.00, redis 2.00"


def test_against_a_baseline_counted_at_another_time_an_irregular_name_is_shown_from_its_floor_and_not_unchanged():
    """futex 2.0625 -> 3.00 (apart): +0.9375 is exactly its floor (one call less the base's fraction), so shown;
    the same irregular count on both sides is neither shown nor noted."""
    base = counted({**SYNC, "futex": 2.0625})
    verdict = judge_system([base], [counted({**SYNC, "futex": 3.0})], apart=True)
    assert verdict.verdict == "pass" and [m.what for m in verdict.shown] == ["futex"]
    same = judge_system([base], [base], apart=True)
    assert same.shown == () and "irregular" not in same.message()


def test_against_a_baseline_counted_at_another_time_the_names_after_an_irregular_one_are_judged():
    """futex irregular (shown, apart) does not stop the names sorted after it: sendto +1.00 is still a regression."""
    base = counted({**SYNC, "futex": 2.90})
    cand = counted({**SYNC, "futex": 6.88, "sendto": 2.0})
    assert [m.what for m in judge_system([base], [cand], apart=True).regressions] == ["sendto"]


def test_a_name_at_exactly_one_call_in_the_baseline_is_judged_not_shown_as_irregular():
    """One futex per request in a baseline counted at another time, 2.50 now: a base of one call is not above
    CALLS_MIN, so the name is judged (a regression), not shown as irregular."""
    verdict = judge_system([counted({**SYNC, "futex": 1.0})], [counted({**SYNC, "futex": 2.5})], apart=True)
    assert [m.what for m in verdict.regressions] == ["futex"] and "irregular" not in verdict.message()
