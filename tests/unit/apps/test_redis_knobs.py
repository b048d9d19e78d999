"""The planted /redis changes (apps/sync_workloads.py, apps/async_workloads.py), against a real redis-server: one
more GET round trip, and a connection opened and closed per request."""

import asyncio
import importlib
import shutil

import pytest

from serverbench.backends.redis import start_redis
from tests.unit.apps.test_work_knob import APPS_DIR, _knobs

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


@pytest.fixture(scope="module")
def redis_service():
    service = start_redis()
    yield service
    service.stop()


def _workloads(monkeypatch, environ, url):
    """apps' sync and async workloads modules, as imported with these knobs and SERVERBENCH_REDIS_URL."""
    monkeypatch.syspath_prepend(str(APPS_DIR))
    monkeypatch.setenv("SERVERBENCH_REDIS_URL", url)
    knobs = _knobs(environ)
    sync, asynchronous = importlib.import_module("sync_workloads"), importlib.import_module("async_workloads")
    monkeypatch.setattr(sync, "injected_work", knobs)
    monkeypatch.setattr(asynchronous, "injected_work", knobs)
    return sync, asynchronous


def _served(service, requests):
    """(GET calls, connections received) the Redis served while ``requests()`` ran."""
    with service.client() as client:
        before = client.info("commandstats").get("cmdstat_get", {}).get("calls", 0), client.info("stats")
        requests()
        after = client.info("commandstats").get("cmdstat_get", {}).get("calls", 0), client.info("stats")
    return after[0] - before[0], after[1]["total_connections_received"] - before[1]["total_connections_received"]


def _both(sync, asynchronous, n):
    """n /redis requests through the sync workloads, then n through the async ones (each on its own app object)."""
    app, async_app = sync.Workloads(), asynchronous.AsyncWorkloads()

    def run():
        for _ in range(n):
            assert app.redis()["value"]

        async def serve():
            for _ in range(n):
                assert (await async_app.redis())["value"]
            await async_app.close()

        asyncio.run(serve())
        app.close()

    return run


def test_the_extra_get_knob_sends_one_more_get_per_request(redis_service, monkeypatch):
    """SERVERBENCH_REDIS_EXTRA_GET=1: each /redis request GETs twice (the pipeline's and one more), on the
    app's one pooled connection (sync and async)."""
    sync, asynchronous = _workloads(monkeypatch, {"SERVERBENCH_REDIS_EXTRA_GET": "1"}, redis_service.url)
    gets, connections = _served(redis_service, _both(sync, asynchronous, 5))
    assert (gets, connections) == (20, 2)


def test_the_connect_knob_opens_and_closes_a_connection_per_request(redis_service, monkeypatch):
    """SERVERBENCH_REDIS_CONNECT=1: each /redis request opens a connection of its own and closes it after; unset,
    the app's pooled connection serves every request."""
    sync, asynchronous = _workloads(monkeypatch, {"SERVERBENCH_REDIS_CONNECT": "1"}, redis_service.url)
    gets, connections = _served(redis_service, _both(sync, asynchronous, 5))
    assert (gets, connections) == (10, 10)
    with redis_service.client() as client:
        assert client.info("clients")["connected_clients"] == 1  # ours: none of the per-request ones stays open
    sync, asynchronous = _workloads(monkeypatch, {}, redis_service.url)
    assert _served(redis_service, _both(sync, asynchronous, 5)) == (10, 2)
