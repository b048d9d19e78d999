"""The deterministic injection knob under real servers: every reference app, served by the reference server of its
interface with SERVERBENCH_WORK_ITERS set, still honours the contract and runs the loop on each request."""

import pytest

from serverbench.catalog.apps import APPS
from serverbench.catalog.contract import ENDPOINTS
from serverbench.catalog.variants import registry
from serverbench.measure.serving.servers import start_variant
from serverbench.measure.serving.verify import fetch, verify

pytestmark = pytest.mark.usefixtures("no_leaks")
REFERENCE_SERVER = {
    "wsgi": "gunicorn-sync-w2",
    "asgi": "uvicorn",
    "aiohttp": "aiohttp",
    "tornado": "tornado",
    "node": "node-http",
    "play": "play-pekko",
}


@pytest.mark.parametrize("app_name", list(APPS))
def test_the_knob_runs_the_loop_under_a_real_server(app_name, apps_dir):
    """With SERVERBENCH_WORK_ITERS=2500, /plaintext and /json keep their contract and every answer carries
    "2500 <sum of 0..2499>"; the sum only comes from that many iterations."""
    app = APPS[app_name]
    server = start_variant(
        registry()[REFERENCE_SERVER[app.interface]], app=app, apps_dir=apps_dir, env={"SERVERBENCH_WORK_ITERS": "2500"}
    )
    try:
        verify(server.url, [ENDPOINTS["plaintext"], ENDPOINTS["json"]], f"{app_name} with the work knob", headers=True)
        for path in ("/plaintext", "/json"):
            status, headers, _ = fetch(server.url, path)
            assert {k.lower(): v for k, v in headers.items()}.get("x-serverbench-work") == "2500 3123750", path
    finally:
        server.stop()
