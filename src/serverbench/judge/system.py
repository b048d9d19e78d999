"""Judging what a counted window asked of the kernel: system calls by name, socket bytes, connections
opened and memory kept, per request.  Pure: counts in, moves and a verdict out.

These count events, not instructions, so they see work done off the CPU that the instruction count misses
or dilutes: a 60 us ``time.sleep`` in a view is +0.8% of instructions and +1.00 ``clock_nanosleep`` per
request.  A sync server makes the same calls for every request on every run, so one call per request more
of one name (``CALLS_MIN``) is a change in what the code does: a sleep, a round trip to a backend
(``sendto``/``recvfrom``), a file looked at (``newfstatat``), a connection opened per call (``connect``).
Where a server's counts vary from run to run (a thread pool's ``futex`` wake-ups, an event loop's timer
ticks), the tolerance of that name is ``SPREAD_FACTOR`` times the spread its counts show: the A/B gate's
repeated counts, or the counts a stored baseline was written from (records/cost.py ``CountSpread``).  A baseline
stored without a spread (from one count, or before spreads were kept) shows none, so there a name whose count
is not a whole number per request gets its own count as tolerance; the verdict says which.  Calls the kernel's vDSO serves without a system call natively (``clock_gettime``) are
system calls only under valgrind: they are shown, never judged.  Bytes on sockets are shown when they move,
not judged: a longer response is not, by itself, a regression.

Where both arms' counts name the peers of their sockets (measure/counting/peers.py), each move is split by peer, and a move
that one peer accounts for reads as that peer's: ``+1.00 sendto per request to redis``; an extra Redis GET is a
round trip to the backend, not a call of the clients'.  The split names; the limits stay the totals'.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..records.cost import CLIENTS, UNSEEN, CountSpread, SystemCounts
from ..records.decisions import Decision

CALLS_MIN = 1.0  # one more call of one name per request
CONNECTIONS_MIN = 0.5  # a connection opened per request reads +1.00; a keep-alive window's one reads 0.005
BYTES_MIN = 64.0  # bytes per request a direction must move by to be shown
# Bytes per request: a window that keeps nothing reads 0 or one page over the window (4096 / 200 = 20.5 at the
# default 200 requests: gunicorn sync, flask /json, 2026-11-28), a leak of 1,000 bytes a request 1,065-1,085.
KEPT_MIN = 256.0
# Memory kept is judged over this many counted requests or more.  Over fewer the heap is still settling after the
# warm-up and its free pages absorb a leak: at the A/B gate's 50 (warm-up 50), servers that keep nothing read
# 328 B/req (gunicorn sync, 4 counts) and 492-573 (waitress-t4), and a leak of 1,000 bytes a request read 328 too.
KEPT_MIN_REQUESTS = 200
# A figure whose counts vary: its tolerance is 3x the widest spread (max - min) its counts show, the arms' or the
# stored baseline's; instructions per request too, against a baseline written from several counts (judge/cost.py).
# With a baseline of 5 counts, 3x their range held all but one of the other counts (a fall) of 20 A/A counts per cell
# (benchmarks/cost_spread.py, docs/lab/cost.md#how-far-counts-fall-apart).
SPREAD_FACTOR = 3.0
# A name whose count per request is not a whole number (off by more than WHOLE_SLACK) is driven by scheduling or
# timers, and a single count of it moves from run to run: waitress-t4's futex read 2.45-3.52 a request over 40
# requests and 3.30-3.86 over 50 (2026-11-28).  Such a name fails only when it rises by its own count (doubles),
# and by one call at least.  A sync server's calls are whole (recvfrom 2.000); a window's one connection adds
# 1/requests (accept4 0.005 at 200), below the slack.
WHOLE_SLACK = 0.05
# A name's time-driven housekeeping (gunicorn's arbiter ticks: newfstatat 0.07-0.09 a request) can fall as a call is
# planted beside it, so one more call reads a little under +1.00: an os.stat planted in gunicorn sync's flask /json
# read newfstatat 0.08 -> 1.06, +0.98 (benchmarks/cost_system.py plants, 2026-11-28).  The one-call limit is lowered
# by the base's fraction of a call, the housekeeping that can be lost, up to HOUSEKEEPING: a whole count keeps 1.00.
HOUSEKEEPING = 0.1
VDSO = frozenset({"clock_gettime", "gettimeofday", "time", "getcpu"})  # no system call natively
# A peer's share of a move is named when it is at least this part of the move's floor: half a call, a quarter of a
# connection, 32 bytes a request.
PEER_SHARE = 0.5


class Counts(Protocol):
    """A counted window's figures: a cost record or a cost baseline."""

    system: SystemCounts | None
    kept_per_request: float | None
    spread: CountSpread | None


@dataclass(frozen=True)
class Move:
    """One figure's change per request between base and candidate, and the limit it was judged by."""

    what: str  # a system call's name, "connections", "memory kept", "bytes sent", "bytes received"
    base: float
    candidate: float
    limit: float
    to: tuple[tuple[str, float], ...] = ()  # the peers that moved, with their part of the change, largest first

    @property
    def delta(self) -> float:
        return self.candidate - self.base

    @property
    def peer(self) -> str | None:
        """The one peer the whole move belongs to (within half the smallest share named), else None."""
        if len(self.to) != 1:
            return None
        peer, delta = self.to[0]
        return peer if abs(delta - self.delta) <= abs(self.delta) * 0.05 else None

    def line(self) -> str:
        """``+1.00 clock_nanosleep per request``; ``+1,065 bytes memory kept per request``; ``+2.00 recvfrom per
        request to redis``; ``+2.00 read per request (... ; +1.00 to redis)``."""
        amount = (
            f"{self.delta:+,.0f} {'' if self.what.startswith('bytes') else 'bytes '}{self.what}"
            if self.what.startswith(("bytes", "memory"))
            else f"{self.delta:+.2f} {self.what}"
        )
        number = "{:,.0f}" if self.what.startswith(("bytes", "memory")) else "{:.2f}"
        values = f"{number.format(self.base)} -> {number.format(self.candidate)}"
        if self.peer is not None:
            return f"{amount} per request {peer_phrase(self.peer)} ({values})"
        parts = "".join(
            f", {number.format(d) if d < 0 else '+' + number.format(d)} {peer_phrase(p)}" for p, d in self.to
        )
        return f"{amount} per request ({values}{parts})"

    def to_record(self) -> dict[str, Any]:
        record = {
            "what": self.what,
            "base": round(self.base, 3),
            "candidate": round(self.candidate, 3),
            "limit": round(self.limit, 3),
        }
        if self.to:
            record["to"] = {peer: round(delta, 3) for peer, delta in self.to}
        return record


def peer_phrase(peer: str) -> str:
    """How a verdict names a peer: ``to redis``, ``to 127.0.0.1:8125``, ``with the clients``."""
    if peer == CLIENTS:
        return "with the clients"
    if peer == UNSEEN:
        return "to an unseen peer"
    return f"to {peer}"


def peers_line(system: Mapping[str, Any]) -> str:
    """``clients 8.00, redis 6.00``: a count's system calls per request on each peer's sockets (a record's
    ``system``), most first; empty where its peers were not followed."""
    peers = system.get("peers") or {}
    totals = {peer: sum(v for k, v in counts["calls"].items() if k not in VDSO) for peer, counts in peers.items()}
    return ", ".join(f"{peer} {n:.2f}" for peer, n in sorted(totals.items(), key=lambda pn: (-pn[1], pn[0])))


def by_peer(
    base: Sequence[SystemCounts],
    candidate: Sequence[SystemCounts],
    figure: Callable[[SystemCounts], float],
    floor: float,
) -> tuple[tuple[str, float], ...]:
    """Each peer's change in ``figure`` (median per arm), those of at least PEER_SHARE of ``floor``, largest first;
    empty where a count did not follow its peers."""
    if any(s.peers is None for s in (*base, *candidate)):
        return ()
    names = sorted({p for s in (*base, *candidate) for p in s.peers})
    moved = []
    for peer in names:
        b, c = ([figure(s.peers[peer]) if peer in s.peers else 0.0 for s in arm] for arm in (base, candidate))
        delta = statistics.median(c) - statistics.median(b)
        if abs(delta) >= PEER_SHARE * floor:
            moved.append((peer, delta))
    return tuple(sorted(moved, key=lambda pd: -abs(pd[1])))


@dataclass(frozen=True)
class SystemVerdict:
    """Moves beyond their limits (rises: regressions; falls: improvements), bytes that moved (shown only), and
    notes: the tolerances taken from a measured spread, calls not judged, figures absent and why."""

    regressions: tuple[Move, ...] = ()
    improvements: tuple[Move, ...] = ()
    shown: tuple[Move, ...] = ()
    notes: tuple[str, ...] = ()
    judged: bool = True  # False: absent on a side, nothing was compared

    @property
    def verdict(self) -> str:
        if not self.judged:
            return "inconclusive"
        return "regression" if self.regressions else "improvement" if self.improvements else "pass"

    def message(self) -> str:
        """One line: what rose, what fell, what else moved, then the notes."""
        parts = []
        if self.regressions:
            parts.append("rose: " + ", ".join(m.line() for m in self.regressions))
        if self.improvements:
            parts.append("fell: " + ", ".join(m.line() for m in self.improvements))
        if self.shown:
            parts.append("moved (not judged): " + ", ".join(m.line() for m in self.shown))
        if not parts and self.judged:
            parts.append("no system call, connection or kept memory moved beyond its limit")
        return "; ".join(parts + list(self.notes))

    def to_record(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "message": self.message(),
            "regressions": [m.to_record() for m in self.regressions],
            "improvements": [m.to_record() for m in self.improvements],
        }


def judge_system(
    base: Sequence[Counts],
    candidate: Sequence[Counts],
    absent: str = "",
    requests: int = KEPT_MIN_REQUESTS,
    apart: bool = False,
) -> SystemVerdict:
    """Each arm's counted windows (one or more each: a stored baseline and a fresh count, or an A/B gate's
    repeated counts): the median of each figure per arm, judged against a limit, the larger of its floor and
    SPREAD_FACTOR x the widest spread shown: an arm's, or the one a stored baseline keeps of the counts it was written
    from.  ``absent``: why a side has no system counts (said once).
    ``requests``: how many requests memory kept was read over (shown, not judged, below KEPT_MIN_REQUESTS): each
    window's, or a run's without valgrind (``kept_uninstrumented``, measure/counting/keptmemory.py).
    ``apart``: the base was counted at another time (a stored baseline), so a name driven by scheduling or timers is
    shown, not judged: its count follows the machine's load, not the code."""
    judging = _Judging(base, candidate)
    systems = [[r.system for r in arm] for arm in (base, candidate)]
    kept = [[r.kept_per_request for r in arm] for arm in (base, candidate)]
    has_system = bool(base and candidate) and all(s is not None for arm in systems for s in arm)
    has_kept = bool(base and candidate) and all(k is not None for arm in kept for k in arm)
    if has_system:
        judging.system(apart)
    reason = absent or "not counted on one side"
    if not has_system and not has_kept:  # one reason, said once
        judging.notes.append(f"system calls and memory kept not judged: {reason}")
    elif not has_system:
        judging.notes.append(f"system calls not judged: {reason}")
    elif not has_kept:
        judging.notes.append(f"memory kept not judged: {reason}")
    if has_kept:
        judging.kept(kept, requests)
    return SystemVerdict(
        tuple(judging.regressions),
        tuple(judging.improvements),
        tuple(judging.shown),
        tuple(judging.notes),
        judging.judged,
    )


class _Judging:
    """One judgement's moves and notes as each figure is judged (judge_system): the calls by name, connections and
    bytes, then memory kept."""

    def __init__(self, base: Sequence[Counts], candidate: Sequence[Counts]):
        self.base, self.candidate = base, candidate
        self.stored = [r.spread for r in (*base, *candidate) if r.spread is not None]  # a baseline's counts
        self.notes: list[str] = []
        self.regressions: list[Move] = []
        self.improvements: list[Move] = []
        self.shown: list[Move] = []
        self.judged = False

    def judge(
        self,
        what: str,
        b: list[float],
        c: list[float],
        floor: float,
        shown_only: bool = False,
        figure: Callable[[SystemCounts], float] | None = None,
    ) -> None:
        """One figure: its limit the larger of ``floor`` and SPREAD_FACTOR x the widest spread shown (said when it
        is); a move beyond it is a regression, an improvement, or (``shown_only``) shown; named by peer with
        ``figure``."""
        spread, whose = max(max(b) - min(b), max(c) - min(c)), "its counts'"
        for counted in self.stored:
            value = stored_spread(counted, what)
            if value is not None and value > spread:
                spread, whose = value, f"the baseline's {counted.counts} counts'"
        limit = max(floor, SPREAD_FACTOR * spread)
        move = Move(what, statistics.median(b), statistics.median(c), limit)
        if figure is not None and abs(move.delta) >= limit:
            systems = [[r.system for r in arm] for arm in (self.base, self.candidate)]
            move = replace(move, to=by_peer(*systems, figure, floor))
        if limit > floor:
            self.notes.append(
                f"{what} varies run to run ({whose} spread {spread:.2f} per request): tolerance "
                f"±{limit:.2f}, {SPREAD_FACTOR:g}x its spread"
            )
        if abs(move.delta) < limit:
            return
        (self.shown if shown_only else self.regressions if move.delta > 0 else self.improvements).append(move)

    def system(self, apart: bool) -> None:
        """Each system call by name (the vDSO's shown; an irregular one shown when ``apart``, else its own count its
        tolerance where no spread of it was kept), then connections and bytes."""
        b_sys, c_sys = [r.system for r in self.base], [r.system for r in self.candidate]
        for name in sorted({n for s in b_sys + c_sys for n in s.calls}):
            b = [s.calls.get(name, 0.0) for s in b_sys]
            c = [s.calls.get(name, 0.0) for s in c_sys]
            if name in VDSO:
                if abs(statistics.median(c) - statistics.median(b)) >= CALLS_MIN:
                    self.shown.append(Move(name, statistics.median(b), statistics.median(c), CALLS_MIN))
                continue
            floor = CALLS_MIN - min(statistics.median(b) % 1, HOUSEKEEPING)
            irregular = any(abs(v - round(v)) > WHOLE_SLACK for v in b + c) and statistics.median(b) > CALLS_MIN
            if irregular and apart:
                if abs(statistics.median(c) - statistics.median(b)) >= floor:
                    self.shown.append(Move(name, statistics.median(b), statistics.median(c), floor))
                    self.notes.append(
                        f"{name} is irregular (not a whole number per request: scheduling or timers) and follows the "
                        "machine's load: shown, not judged against a baseline counted at another time (the A/B gate, "
                        "whose arms are counted together, judges it)"
                    )
                continue
            if irregular and not any(s.calls is not None for s in self.stored):
                floor = statistics.median(b)
                self.notes.append(
                    f"{name} is irregular ({floor:.2f} per request, not a whole number: scheduling or timers) and "
                    f"no spread of it was counted: tolerance {floor:.2f}, its own count"
                )
            self.judge(name, b, c, floor, figure=lambda s, name=name: s.calls.get(name, 0.0))
        for what, figure, floor in (
            ("connections", lambda s: s.connections, CONNECTIONS_MIN),
            ("bytes sent", lambda s: s.sent, BYTES_MIN),
            ("bytes received", lambda s: s.received, BYTES_MIN),
        ):
            self.judge(
                what, [figure(s) for s in b_sys], [figure(s) for s in c_sys], floor, what != "connections", figure
            )
        moved = self.regressions + self.improvements + self.shown
        if any(p == UNSEEN for m in moved for p, _ in m.to):
            self.notes.append(
                "an unseen peer: sockets opened and closed inside a request, never open when their peers were read "
                "(valgrind's trace does not show a connect's address)"
            )
        if any(m.what in VDSO for m in self.shown):
            self.notes.append("clock_gettime and the like are system calls under valgrind only (the vDSO serves them)")
        self.judged = True

    def kept(self, kept: list[list[float]], requests: int) -> None:
        """Memory kept per request: shown only over fewer than KEPT_MIN_REQUESTS requests (the heap still settling)."""
        if requests < KEPT_MIN_REQUESTS:
            self.judge("memory kept", *kept, KEPT_MIN, shown_only=True)
            self.notes.append(
                f"memory kept not judged over {requests} requests (the heap is still settling; "
                f"judged over {KEPT_MIN_REQUESTS} or more)"
            )
            return
        self.judge("memory kept", *kept, KEPT_MIN)
        self.judged = True
        if any(getattr(r, "kept_uninstrumented", False) for r in (*self.base, *self.candidate)):
            self.notes.append(f"memory kept read over {requests} requests of the server without valgrind")


def stored_spread(spread: CountSpread, what: str) -> float | None:
    """A stored baseline's spread of one figure per request (a system call's name, connections, memory kept); None
    where its counts did not read it."""
    if what == "connections":
        return spread.connections
    if what == "memory kept":
        return spread.kept
    if what.startswith("bytes"):
        return None  # shown, never judged: no spread kept
    return None if spread.calls is None else spread.calls.get(what, 0.0)


def as_decision(verdict: SystemVerdict, n: int) -> Decision:
    """The A/B gate's counted system signal: the largest rise (else the largest fall) per request, the message as
    its reason; inconclusive where it was not judged (the gate then shows the reason and does not gate on it)."""
    moves = verdict.regressions or verdict.improvements
    delta = max((m.delta for m in moves), key=abs, default=0.0)
    return Decision(
        verdict.verdict, delta, (delta, delta), math.nan, n, math.nan, False, verdict.message(), "per request"
    )
