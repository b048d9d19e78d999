"""The WSGI apps' upstream client under concurrent requests on greenlet servers (real nginx, real uWSGI)."""

import collections
import concurrent.futures
import http.client
from urllib.parse import urlsplit

import pytest

from serverbench.backends.upstream import start_upstream
from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.measure.serving.servers import start_variant, unavailable_reason

pytestmark = pytest.mark.usefixtures("no_leaks")


def statuses(url: str, clients: int, requests: int) -> collections.Counter:
    """The statuses of ``requests`` /upstream GETs on each of ``clients`` concurrent keep-alive connections."""
    parts = urlsplit(url)

    def client(_):
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        try:
            out = []
            for _ in range(requests):
                conn.request("GET", "/upstream")
                response = conn.getresponse()
                response.read()
                out.append(response.status)
            return out
        finally:
            conn.close()

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        return collections.Counter(s for answers in pool.map(client, range(clients)) for s in answers)


@pytest.mark.parametrize("name", ["uwsgi-gevent100", "gunicorn-gevent-w2"])
def test_concurrent_upstream_calls_never_share_a_connection(name, apps_dir):
    """32 concurrent /upstream requests on a greenlet server all answer 200 (a thread-local connection once
    stayed per OS thread under uWSGI's monkey-patching: two greenlets on one connection, 500s on 56%)."""
    variant, app = registry()[name], APPS["flask"]
    reason = unavailable_reason(variant, app, apps_dir)
    if reason:
        pytest.skip(reason)
    upstream = start_upstream()
    try:
        server = start_variant(
            variant, app=app, apps_dir=apps_dir, env={"SERVERBENCH_UPSTREAM_URL": upstream.url}, timeout=30
        )
        try:
            assert statuses(server.url, clients=32, requests=3) == {200: 96}
        finally:
            server.stop()
    finally:
        upstream.stop()
