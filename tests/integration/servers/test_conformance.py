"""Every reference app honours the endpoint contract, TechEmpower-style, before any load.

Each app runs under a reference server of its interface; every endpoint is checked for
status, Content-Type, the Date and Server headers and the exact body.
"""

import pytest

from serverbench.backends.base import BACKENDS
from serverbench.catalog.apps import APPS, App
from serverbench.catalog.contract import ENDPOINTS
from serverbench.catalog.variants import registry
from serverbench.errors import VerificationError
from serverbench.measure.serving.servers import start_variant, unavailable_reason
from serverbench.measure.serving.verify import verify

pytestmark = pytest.mark.usefixtures("no_leaks")
VARIANTS = registry()
REFERENCE_SERVER = {
    "wsgi": "gunicorn-sync-w2",
    "asgi": "uvicorn",
    "aiohttp": "aiohttp",
    "tornado": "tornado",
    "node": "node-http",
    "play": "play-pekko",
}


@pytest.fixture(scope="module")
def services():
    """Every backend of the registry (Redis, the embedded MongoDB, the nginx upstream, ...), as the apps read
    them from the environment: a new backend's endpoints are checked without touching this file."""
    started = []
    try:
        for backend in BACKENDS.values():
            started.append((backend.env_var, backend.start(timeout=max(30.0, backend.min_start_timeout))))
        yield {env_var: service.url for env_var, service in started}
    finally:
        for _, service in reversed(started):
            service.stop()


@pytest.mark.parametrize("app_name", list(APPS))
def test_app_honours_the_contract(app_name, apps_dir, services):
    """The app answers every endpoint (plaintext to the book site) with the right status, Content-Type,
    Date/Server headers and body, and /sleep and /upstream take their 100 ms."""
    app = APPS[app_name]
    serve_and_verify(VARIANTS[REFERENCE_SERVER[app.interface]], app, apps_dir, services, headers=True)


@pytest.mark.parametrize("app_name", [name for name, a in APPS.items() if a.interface == "asgi"])
def test_gunicorns_asgi_worker_serves_every_asgi_app(app_name, apps_dir, services):
    """gunicorn's own ASGI worker (its HTTP parser, not uvicorn's) serves each ASGI app's endpoints with the
    contract's status, Content-Type, Date/Server headers and body."""
    serve_and_verify(VARIANTS["gunicorn-asgi-w2"], APPS[app_name], apps_dir, services, headers=True)


def serve_and_verify(variant, app, apps_dir, services, headers):
    """Start ``app`` under ``variant`` (which the test environment must have installed), verify every endpoint of
    the app, with or without the Date and Server headers, and stop it."""
    reason = unavailable_reason(variant, app, apps_dir)
    assert reason is None, f"the project's test environment must have every app and server installed: {reason}"
    server = start_variant(variant, app=app, apps_dir=apps_dir, env=services)
    try:
        verify(server.url, [ENDPOINTS[e] for e in app.endpoints], f"{variant.name}/{app.name}", headers=headers)
    finally:
        server.stop()


def test_an_app_that_breaks_the_contract_fails_with_a_diff(tmp_path):
    """A wrong body and a wrong Content-Type are reported with what was expected and what came."""
    (tmp_path / "broken_app.py").write_text(
        "def app(environ, start_response):\n"
        "    start_response('200 OK', [('Content-Type', 'text/html')])\n"
        "    return [b'Hello, world']\n"
    )
    broken = App("broken", "wsgi", "broken_app", "app", (), "-")
    server = start_variant(VARIANTS["gunicorn-sync-w2"], app=broken, apps_dir=tmp_path)
    try:
        with pytest.raises(VerificationError) as info:
            verify(server.url, [ENDPOINTS["plaintext"]], "broken", headers=True)
    finally:
        server.stop()
    text = str(info.value)
    assert "Content-Type 'text/html' != expected 'text/plain'" in text
    assert "b'Hello, world' != expected b'Hello, World!'" in text


LAUNCHED = {}  # the first variant of each server that serverbench.serverside.launch starts
for _variant in VARIANTS.values():
    if "serverbench.serverside.launch" in _variant.command and not _variant.unsupported:
        LAUNCHED.setdefault(_variant.server, _variant)


@pytest.mark.parametrize("launcher", [name for name, v in LAUNCHED.items() if v.name not in REFERENCE_SERVER.values()])
def test_every_launcher_serves_the_contract(launcher, apps_dir, services):
    """Each launcher of serverbench.serverside.launch that no reference server above uses (werkzeug, wsgiref,
    gevent's pywsgi, eventlet, meinheld, bjoern, cheroot, paste) starts the first app of its interface, and every
    endpoint passes the check the perf run makes before load (status, Content-Type, body; not the Date and Server
    headers, which the apps owe under their reference servers above and which bjoern, gevent and eventlet do not
    all send): a launcher broken by an upgrade fails here, not in the perf run's cells."""
    variant = LAUNCHED[launcher]
    app = next(a for a in APPS.values() if a.interface == variant.interface)
    serve_and_verify(variant, app, apps_dir, services, headers=False)
