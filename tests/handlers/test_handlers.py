"""Per-endpoint handler benchmarks: each reference app called in process (no socket, no server), its answer
checked against the contract, then timed by pytest-benchmark.  Run with ``pytest -m handler``; see docs/handlers.md."""

import os
import time

import pytest

from serverbench.catalog.apps import PYTHON_APPS as APPS
from serverbench.catalog.contract import ENDPOINTS, check_response

pytestmark = [
    pytest.mark.handler,
    # pyramid imports pkg_resources, which setuptools 81+ deprecates with a UserWarning at import: in process (here,
    # not in a served cell's own interpreter) filterwarnings = error made every pyramid handler test fail.
    pytest.mark.filterwarnings("ignore:pkg_resources is deprecated as an API:UserWarning"),
]
ASYNC_APPS = [name for name, app in APPS.items() if app.interface != "wsgi"]


@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
@pytest.mark.parametrize("app_name", list(APPS))
def test_handler(app_name, endpoint, benchmark, handler_apps, unstartable_backends):
    """The app's handler answers this endpoint as the contract says, in process; then its calls are timed."""
    spec = ENDPOINTS[endpoint]
    if endpoint not in APPS[app_name].endpoints:
        pytest.skip(f"{app_name} does not serve {endpoint}")
    missing = [f"{b} ({unstartable_backends[b]})" for b in spec.backends if b in unstartable_backends]
    if missing:
        pytest.skip(f"{spec.path} needs a backend that could not start: {', '.join(missing)}")
    caller = handler_apps.caller(app_name)
    started = time.monotonic()
    answer = caller.get(spec.path)
    elapsed = time.monotonic() - started
    problems = check_response(spec, answer.status, answer.headers, answer.body)
    if elapsed < spec.min_seconds:
        problems.append(
            f"answered in {elapsed * 1000:.0f} ms, sooner than the endpoint's {spec.min_seconds * 1000:.0f} ms"
        )
    assert not problems, f"{app_name} {spec.path} (in process) breaks the contract: " + "; ".join(problems)
    benchmark.group = endpoint
    benchmark.extra_info.update(
        app=app_name,
        interface=APPS[app_name].interface,
        endpoint=endpoint,
        path=spec.path,
        work_iters=os.environ.get("SERVERBENCH_WORK_ITERS", ""),
    )
    benchmark(caller.get, spec.path)


@pytest.mark.parametrize("app_name", ASYNC_APPS)
def test_event_loop_floor(app_name, benchmark, handler_apps):
    """One empty task on the async caller's loop: the scheduling share included in each of its handler calls."""
    benchmark.group = "event-loop floor"
    benchmark.extra_info.update(app=app_name, interface=APPS[app_name].interface, endpoint="floor")
    benchmark(handler_apps.caller(app_name).floor)
