"""Fixtures of the in-process handler benchmarks: each app's caller, and the backends the selected endpoints need."""

from contextlib import ExitStack
from pathlib import Path

import pytest
from callers import Caller, Loaded, load

from serverbench.backends.base import BACKENDS, started
from serverbench.catalog.apps import APPS
from serverbench.catalog.contract import ENDPOINTS
from serverbench.errors import ServerbenchError

APPS_DIR = Path(__file__).resolve().parents[2] / "apps"


class HandlerApps:
    """The reference apps loaded in this process, each once, closed at the end of the session."""

    def __init__(self, apps_dir: Path):
        self.apps_dir = apps_dir
        self._loaded: dict[str, Loaded] = {}

    def caller(self, app_name: str) -> Caller:
        """The app's caller, its module's global state made current (Django's settings)."""
        loaded = self._loaded.get(app_name)
        if loaded is None:
            loaded = self._loaded[app_name] = load(APPS[app_name], self.apps_dir)
        loaded.activate()
        return loaded.caller

    def close(self) -> None:
        for loaded in self._loaded.values():
            loaded.activate()
            loaded.caller.close()


def _backends_of(item: pytest.Item) -> tuple[str, ...]:
    callspec = getattr(item, "callspec", None)
    if callspec is None or item.get_closest_marker("handler") is None:
        return ()
    endpoint = ENDPOINTS.get(callspec.params.get("endpoint"))
    return endpoint.backends if endpoint is not None else ()


@pytest.fixture(scope="session")
def unstartable_backends(request):
    """Start every backend a selected handler test needs (once, before any app is loaded: aiohttp's app reads
    the Redis URL at start-up) and hand the apps its URL; answers {backend: why it could not start}."""
    needed = dict.fromkeys(b for item in request.session.items for b in _backends_of(item))
    failures = {}
    with ExitStack() as services, pytest.MonkeyPatch.context() as env:
        for name in needed:
            try:
                service = services.enter_context(started([name]))[name]
            except ServerbenchError as exc:
                failures[name] = str(exc).splitlines()[0]
                continue
            env.setenv(BACKENDS[name].env_var, service.url)
        yield failures


@pytest.fixture(scope="session")
def handler_apps(unstartable_backends):
    """Every reference app, loaded in process on first use."""
    apps = HandlerApps(APPS_DIR)
    yield apps
    apps.close()
