"""The framework-neutral backend clients of the synchronous (WSGI) apps: MongoDB through pymongo, the upstream through
http.client.  Each app reads its own setting and answers its own errors; these take the URL."""
import http.client
import threading
from urllib.parse import urlsplit

import pymongo

MONGO_DB = "serverbench"
_mongo = None
_mongo_lock = threading.Lock()
_upstream = threading.local()  # one keep-alive connection to the upstream per thread


def mongo_db(url):
    """The pymongo database, the process's client created on first use (after the server forked its workers)."""
    global _mongo
    if _mongo is None:
        with _mongo_lock:
            if _mongo is None:
                _mongo = pymongo.MongoClient(url)
    return _mongo[MONGO_DB]


def upstream_get(url):
    """GET the upstream URL on this thread's keep-alive connection: (status, body)."""
    url = urlsplit(url)
    target = (url.path or "/") + (f"?{url.query}" if url.query else "")
    conn = getattr(_upstream, "conn", None)
    reused = conn is not None
    while True:
        if conn is None:
            factory = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
            conn = _upstream.conn = factory(url.hostname, url.port, timeout=30)
        try:
            conn.request("GET", target)
            response = conn.getresponse()
            return response.status, response.read()
        except (http.client.HTTPException, ConnectionError):
            conn.close()
            conn = _upstream.conn = None
            if not reused:  # a fresh connection failed: the upstream is down, not a stale keep-alive
                raise
            reused = False


def close(redis_client=None):
    """Close an app's Redis client, the MongoDB client and this thread's upstream connection.  A server's process
    just exits with them; a process that outlives the app (the in-process handler benchmarks) calls this."""
    global _mongo
    if redis_client is not None:
        redis_client.close()
    with _mongo_lock:
        if _mongo is not None:
            _mongo.close()
            _mongo = None
    conn = getattr(_upstream, "conn", None)
    if conn is not None:
        conn.close()
        _upstream.conn = None
