"""Real backing services: Redis, MongoDB (SecantusDB or mongod) and the nginx upstream.  No load."""

import time
import urllib.request

import pytest

from serverbench.backends.mongo import connect_mongo, start_mongo
from serverbench.backends.redis import RedisService, start_redis
from serverbench.backends.upstream import connect_upstream, start_upstream
from serverbench.catalog.contract import BIG_DOC, MONGO_DB, SMALL_DOC
from serverbench.errors import BackendUnreachable
from serverbench.processes.executors import free_port
from tests.integration.processes import gone

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_mongo_starts_seeded_counts_queries_and_stops():
    """The embedded MongoDB answers the seeded documents over the wire, counts queries, and is gone after stop."""
    service = start_mongo()
    pid = service.pid
    try:
        with service.client() as client:
            docs = client[MONGO_DB].docs
            before = service.count()
            assert docs.find_one({"_id": "small"}) == SMALL_DOC
            assert len(docs.find_one({"_id": "big"}, {"_id": 0})) == len(BIG_DOC) - 1 == 300
            assert service.count() - before == 2
            assert client[MONGO_DB].events.count_documents({"queue": "64k"}) == 440
    finally:
        service.stop()
    assert gone(pid)


def test_a_redis_reached_by_url_reports_the_cpu_it_used():
    """A Redis serverbench reaches by URL only (a --redis-url, a backends host's) has no pid to sample: its own INFO
    cpu says how much CPU it used, and work it did shows as more."""
    service = start_redis()
    pid = service.pid
    try:
        by_url = RedisService(service.url)
        before = by_url.cpu_s()
        with by_url.client() as client:
            for _ in range(3000):
                client.incr("serverbench:cpu-probe")
        after = by_url.cpu_s()
        assert by_url.pid is None and before is not None and after > before
    finally:
        service.stop()
    assert gone(pid) and RedisService(service.url).cpu_s() is None


def test_unreachable_mongo_url_names_the_fix():
    """--mongo-url pointing at nothing is a clear error with the remedy."""
    with pytest.raises(BackendUnreachable, match=r"--mongo-url .* did not answer.*drop --mongo-url"):
        connect_mongo(f"mongodb://127.0.0.1:{free_port()}/?serverSelectionTimeoutMS=500")


def test_upstream_answers_after_100_ms_and_counts_requests():
    """nginx's echo module answers the contract's body no sooner than 100 ms; stub_status counts it."""
    service = start_upstream()
    try:
        before = service.count()
        started = time.monotonic()
        with urllib.request.urlopen(service.url, timeout=5) as response:
            body = response.read()
        elapsed = time.monotonic() - started
        assert body.strip() == b'{"message": "upstream"}'
        assert 0.1 <= elapsed < 1.0
        assert service.count() - before == 1
        assert connect_upstream(service.url).count() is None  # external: no counter claimed
    finally:
        service.stop()


def test_unreachable_upstream_url_names_the_fix():
    """--upstream-url pointing at nothing is a clear error with the remedy."""
    with pytest.raises(BackendUnreachable, match=r"--upstream-url: .*drop --upstream-url"):
        connect_upstream(f"http://127.0.0.1:{free_port()}/delay")
