"""Each locust user's time from an answer to its next request, measured inside locust (loaded beside the
locustfile: ``-f bookshop.py,gaps.py``; drivers/locust.py does it for every locustfile).

A user's response time runs from just before its request is sent to its answer's last byte; what the user does
between that answer and its next request (its think time, the answer's checks, locust's statistics, its turn on
locust's one event loop) is in no response time.  Little's law for a closed model counts every user's whole
cycle, so this is what the law needs besides the latencies: the mean gap per request, by the users themselves.

Every request event fires in its user's greenlet, so the greenlet names the user; a gap is the next request's
``start_time`` less the last one's ``start_time + response_time``.  At exit (``quitting``) each process that ran
users writes ``{"pairs": N, "gap_s": S, "users": U}`` to ``$SERVERBENCH_LOCUST_GAPS/gaps-<pid>.json``, U the users
that had any request answered (a user the server never answered, as uWSGI's --http-socket leaves most connections,
shows as one missing); a worker and the single process write one each, the master (no users) none.

Each file also keeps every request's response time as a count per microsecond (``latency_us``): the
processes' histograms add up to one of all their requests (drivers.histogram), which locust's own statistics, rounded
to two significant digits above 100 ms as its master merges them, are not.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import gevent
from locust import events

GAPS_ENV = "SERVERBENCH_LOCUST_GAPS"  # the folder the files go to; unset: nothing is written

_answered: dict[int, float] = {}  # a user's greenlet -> the wall-clock time its last answer came in
_pairs = 0
_gap_s = 0.0
_latency_us: Counter = Counter()  # answered requests' response times, a count per microsecond


@events.request.add_listener
def _on_request(start_time: float, response_time: float, **_: object) -> None:
    global _pairs, _gap_s
    _latency_us[round(response_time * 1000.0)] += 1  # every request, as locust's own statistics count them
    user = id(gevent.getcurrent())
    last = _answered.get(user)
    if last is not None:
        _pairs += 1
        _gap_s += start_time - last
    _answered[user] = start_time + response_time / 1000.0


@events.quitting.add_listener
def _on_quitting(**_: object) -> None:
    folder = os.environ.get(GAPS_ENV)
    if folder and _answered:
        record = {"pairs": _pairs, "gap_s": _gap_s, "users": len(_answered), "latency_us": dict(_latency_us)}
        (Path(folder) / f"gaps-{os.getpid()}.json").write_text(json.dumps(record))
