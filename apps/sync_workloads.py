"""Each workload's work for the synchronous (WSGI) apps, written once: the Redis counter, the MongoDB
documents and event queues, the upstream call and the sleep, with their clients made on first use and
their errors (the drivers imported on first use too).  Each app is a thin adapter: its framework routes the request, hands the parameters to a
:class:`Workloads` method and shapes the answer (its own response object and JSON); a refusal (a missing
``SERVERBENCH_*_URL``, a bad parameter, an upstream error) is raised through the app's ``refuse``, so it
becomes the framework's own HTTP error.

Redis through redis-py (SERVERBENCH_REDIS_URL), MongoDB through pymongo (SERVERBENCH_MONGO_URL), the
upstream through http.client (SERVERBENCH_UPSTREAM_URL).
"""

import http.client
import json
import os
import threading
import time
from urllib.parse import urlsplit

import injected_work

COUNTER_KEY = "serverbench:counter"
VALUE_KEY = "serverbench:value"
MONGO_DB = "serverbench"
EVENT_QUEUES = ("0", "1k", "64k")
MAX_SLEEP_MS = 10_000
_mongo = None
_mongo_lock = threading.Lock()
# Idle keep-alive connections to the upstream: a request takes one (or opens one) and puts it back after the
# answer, so no two requests share a connection whatever runs them.  Not threading.local: under uWSGI's
# --gevent-monkey-patch that local stayed per OS thread, so concurrent greenlets wrote on one connection and
# http.client raised ResponseNotReady (500s on 62% of /upstream requests, uwsgi-gevent100 at 64 connections).
# list.pop() and list.append() are atomic and never yield, for threads and greenlets alike.
_idle_upstream = []


class Refused(Exception):
    """An answer other than 200: the status and a plain-text reason (for an app whose framework has no
    exception to raise for a status; it catches this one)."""

    def __init__(self, status, text):
        super().__init__(text)
        self.status = status
        self.text = text


def refused(status, text):
    raise Refused(status, text)


def setting(name, needs, refuse=refused):
    """The backend URL from the environment; unset is a 500 that names the variable."""
    value = os.environ.get(name)
    if not value:
        refuse(500, f"{name} is not set: {needs}")
    return value


def sleep_ms(ms, refuse=refused):
    """/sleep's ms (the query's text, or None): a whole number from 0 to 10000."""
    try:
        ms = int(ms)
    except (TypeError, ValueError):
        ms = -1
    if not 0 <= ms <= MAX_SLEEP_MS:
        refuse(400, f"ms must be an integer from 0 to {MAX_SLEEP_MS}")
    return ms


def page_number(page, refuse=refused):
    """/site/search's page (the query's text; None: 1): a whole number >= 1."""
    try:
        page = 1 if page is None else int(page)
    except (TypeError, ValueError):
        page = 0
    if page < 1:
        refuse(400, "page must be an integer >= 1")
    return page


class Workloads:
    """One app's workloads.  ``refuse(status, text)`` raises the app framework's HTTP error."""

    def __init__(self, refuse=refused):
        self.refuse = refuse
        self._redis = None
        self._redis_url = None

    def redis(self):
        """/redis: INCR the counter and GET the seeded value in one pipeline (planted: on a connection of its
        own, SERVERBENCH_REDIS_CONNECT; then more GETs, SERVERBENCH_REDIS_EXTRA_GET)."""
        if self._redis is None:
            self._redis_url = setting("SERVERBENCH_REDIS_URL", "/redis needs a Redis server", self.refuse)
            import redis  # on first use, as the client: a server that serves no /redis never imports it

            self._redis = redis.Redis.from_url(self._redis_url, decode_responses=True)
        if injected_work.REDIS_CONNECT:
            with type(self._redis).from_url(self._redis_url, decode_responses=True) as client:
                return self._redis_work(client)  # closing the client closes its connection
        return self._redis_work(self._redis)

    def _redis_work(self, client):
        pipe = client.pipeline(transaction=False)
        pipe.incr(COUNTER_KEY)
        pipe.get(VALUE_KEY)
        counter, value = pipe.execute()
        for _ in range(injected_work.REDIS_EXTRA_GETS):
            client.get(VALUE_KEY)
        return {"counter": counter, "value": value}

    def _db(self):
        return mongo_db(setting("SERVERBENCH_MONGO_URL", "/mongo/* and /events need a MongoDB server", self.refuse))

    def mongo_doc(self, doc_id):
        """/mongo/small and /mongo/big: the seeded document, without its _id."""
        doc = self._db().docs.find_one({"_id": doc_id}, {"_id": 0})
        if doc is None:
            self.refuse(404, f"no document {doc_id!r} in {MONGO_DB}.docs: is MongoDB seeded?")
        return doc

    def events(self, size):
        """/events?size=0|1k|64k: the queue's events in order; an empty list is a 204."""
        if size not in EVENT_QUEUES:
            self.refuse(400, f"size must be one of {', '.join(EVENT_QUEUES)}")
        return list(self._db().events.find({"queue": size}, {"_id": 0, "queue": 0}).sort("seq", 1))

    def upstream(self):
        """/upstream: the upstream's JSON, wrapped; an answer other than 200 is a 502."""
        status, body = upstream_get(
            setting("SERVERBENCH_UPSTREAM_URL", "/upstream needs an upstream HTTP server", self.refuse)
        )
        if status != 200:
            self.refuse(502, f"the upstream answered {status}")
        return {"upstream": json.loads(body)}

    def sleep(self, ms):
        """/sleep?ms=N (the query's text, or None): sleep N ms."""
        ms = sleep_ms(ms, self.refuse)
        time.sleep(ms / 1000)
        return {"slept_ms": ms}

    def page(self, page):
        return page_number(page, self.refuse)

    def close(self):
        """Close this app's Redis client, the MongoDB client and the idle upstream connections.  A server's
        process just exits with them; a process that outlives the app (the handler benchmarks) calls this."""
        if self._redis is not None:
            self._redis.close()
            self._redis = None
        close()


def mongo_db(url):
    """The pymongo database, the process's client created on first use (after the server forked its workers)."""
    global _mongo
    if _mongo is None:
        with _mongo_lock:
            if _mongo is None:
                import pymongo  # on first use: under valgrind, importing both drivers cost each worker 2 s of CPU

                _mongo = pymongo.MongoClient(url)
    return _mongo[MONGO_DB]


def upstream_get(url):
    """GET the upstream URL on an idle keep-alive connection of this process (or a new one): (status, body)."""
    url = urlsplit(url)
    target = (url.path or "/") + (f"?{url.query}" if url.query else "")
    try:
        conn, reused = _idle_upstream.pop(), True
    except IndexError:
        conn, reused = None, False
    while True:
        if conn is None:
            factory = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
            conn = factory(url.hostname, url.port, timeout=30)
        try:
            conn.request("GET", target)
            response = conn.getresponse()
            answer = response.status, response.read()
        except (http.client.HTTPException, ConnectionError):
            conn.close()
            conn = None
            if not reused:  # a fresh connection failed: the upstream is down, not a stale keep-alive
                raise
            reused = False
            continue
        except BaseException:  # a timeout, a greenlet killed mid-read: the connection's state is unknown
            conn.close()
            raise
        _idle_upstream.append(conn)
        return answer


def close():
    """Close the process's MongoDB client and idle upstream connections."""
    global _mongo
    with _mongo_lock:
        if _mongo is not None:
            _mongo.close()
            _mongo = None
    while _idle_upstream:
        _idle_upstream.pop().close()
