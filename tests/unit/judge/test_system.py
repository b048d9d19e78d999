"""System calls, connections and memory kept judged between two arms, without a server."""

from types import SimpleNamespace

from serverbench.judge.system import CALLS_MIN, KEPT_MIN, Move, as_decision, judge_system
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
    assert [m.what for m in verdict.shown] == ["bytes sent"]
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
