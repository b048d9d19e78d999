"""The framework-neutral backend clients of the synchronous (WSGI) apps: MongoDB through pymongo, the upstream through
http.client.  Each app reads its own setting and answers its own errors; these take the URL."""
import http.client
import threading
from urllib.parse import urlsplit

import pymongo

MONGO_DB = "serverbench"
_mongo = None
_mongo_lock = threading.Lock()
# Idle keep-alive connections to the upstream: a request takes one (or opens one) and puts it back after the
# answer, so no two requests share a connection whatever runs them.  Not threading.local: under uWSGI's
# --gevent-monkey-patch that local stayed per OS thread, so concurrent greenlets wrote on one connection and
# http.client raised ResponseNotReady (500s on 62% of /upstream requests, uwsgi-gevent100 at 64 connections).
# list.pop() and list.append() are atomic and never yield, for threads and greenlets alike.
_idle_upstream = []


def mongo_db(url):
    """The pymongo database, the process's client created on first use (after the server forked its workers)."""
    global _mongo
    if _mongo is None:
        with _mongo_lock:
            if _mongo is None:
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


def close(redis_client=None):
    """Close an app's Redis client, the MongoDB client and the idle upstream connections.  A server's process
    just exits with them; a process that outlives the app (the in-process handler benchmarks) calls this."""
    global _mongo
    if redis_client is not None:
        redis_client.close()
    with _mongo_lock:
        if _mongo is not None:
            _mongo.close()
            _mongo = None
    while _idle_upstream:
        _idle_upstream.pop().close()
