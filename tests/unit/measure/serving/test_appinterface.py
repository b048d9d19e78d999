"""measure.serving.appinterface: the interface an app object offers (WSGI, ASGI, aiohttp, tornado), and detect() importing a
user's app in a child interpreter."""

from __future__ import annotations

import pytest

from serverbench.errors import ConfigError
from serverbench.measure.serving.appinterface import _positional, classify, detect


async def _asgi(scope, receive, send):
    pass


class _AsgiApp:
    async def __call__(self, scope, receive, send):
        pass


def _wsgi(environ, start_response):
    return []


async def _factory():
    return None


def test_classify_finds_the_interface_of_an_object():
    """A coroutine callable is ASGI, two positional parameters WSGI; framework apps by their class."""
    aiohttp_web = pytest.importorskip("aiohttp.web")
    tornado_web = pytest.importorskip("tornado.web")
    assert classify(_asgi) == classify(_AsgiApp()) == "asgi"
    assert classify(_wsgi) == "wsgi"
    assert classify(aiohttp_web.Application()) == "aiohttp"
    assert classify(tornado_web.Application()) == "tornado"
    pending = _factory()
    assert classify(pending) == "aiohttp"
    pending.close()
    assert classify(object()) is None and classify(lambda: 1) is None and classify(dict) is None


def test_detect_imports_the_app_in_a_child_with_its_folder_and_env(tmp_path):
    """detect() imports from perf_app_dir with perf_app_env set; a failure shows the traceback and the fix."""
    (tmp_path / "shopmod.py").write_text(
        "import os\nif os.environ.get('SHOP_SETTINGS') != 'on':\n    raise RuntimeError('settings missing')\n"
        "def app(environ, start_response):\n    return []\nthing = 42\n"
    )
    assert detect("shopmod:app", tmp_path, {"SHOP_SETTINGS": "on"}) == "wsgi"
    with pytest.raises(ConfigError, match="(?s)settings missing.*perf_app_env"):
        detect("shopmod:app", tmp_path, {})
    with pytest.raises(ConfigError, match="found builtins.int.*perf_app_interface"):
        detect("shopmod:thing", tmp_path, {"SHOP_SETTINGS": "on"})


def _wsgi_with_options(environ, start_response, extra=None, *args, flag=False, **kwargs):
    return []


class _WsgiApp:
    def __call__(self, environ, start_response):
        return []


class _TakesEnviron:
    def __init__(self, environ, start_response):
        pass


def _asgi2(scope, receive, send):  # a plain function of three parameters: ASGI without async def
    pass


def test_positional_counts_only_required_positional_parameters():
    """Defaults, *args, keyword-only and **kwargs are not counted, nor a bound self; no signature reads as None."""
    assert _positional(_wsgi_with_options) == 2
    assert _positional(_WsgiApp()) == 2
    assert _positional(lambda a, /, b, c=1: None) == 2
    assert _positional(lambda: None) == 0
    assert _positional(1) is None


def test_classify_reads_the_count_of_required_parameters():
    """Two required positional parameters is WSGI (options after them too), three is ASGI, one or four is neither."""
    assert classify(_wsgi_with_options) == "wsgi"
    assert classify(_WsgiApp()) == "wsgi"
    assert classify(_asgi2) == "asgi"
    assert classify(lambda environ: None) is None
    assert classify(lambda a, b, c, d: None) is None
    assert classify(_WsgiApp) is None  # the class itself, not an app
    assert classify(_TakesEnviron) is None  # a class is never taken for an app, whatever its __init__ takes
