"""A user's own app as data: parsing perf_app, its env, backends and endpoints; the matrix and
workloads built from them.  No servers."""

from __future__ import annotations

from pathlib import Path

import pytest

from serverbench.catalog.contract import Request, check_response
from serverbench.catalog.matrix import user_cells
from serverbench.catalog.userapp import (
    AppTarget,
    endpoint,
    entries,
    parse_backends,
    parse_endpoint,
    parse_endpoints,
    parse_env,
    user_app,
)
from serverbench.catalog.variants import registry
from serverbench.config import options as cfg
from serverbench.drivers.oha import OhaDriver
from serverbench.drivers.wrk import lua_string, mix_script
from serverbench.errors import ConfigError

SHOP = "home GET / status=200 type=text/html contains=Welcome"
CREATE = (
    'create POST /api/items header=Content-Type:application/json status=201 type=application/json body={"name": "x y"}'
)


def _app(interface="wsgi", target="shop:app", endpoints=(SHOP, CREATE), backends=()):
    return user_app(
        AppTarget.parse(target),
        interface,
        Path("/proj"),
        parse_endpoints("\n".join(endpoints)),
        backends=backends,
        known_backends=("redis", "mongo", "upstream"),
    )


def test_target_parses_attribute_and_factory():
    """perf_app is module:attribute, or module:factory() for a factory; anything else is refused."""
    assert AppTarget.parse("mysite.wsgi:application") == AppTarget("mysite.wsgi", "application", False)
    assert AppTarget.parse(" app:create_app() ").factory is True
    for bad in ("mysite.wsgi", "my site:app", "m:", "m:a.b", ":app"):
        with pytest.raises(ValueError, match="import path"):
            AppTarget.parse(bad)


def test_env_entries_split_on_lines_and_on_commas_before_a_name():
    """One entry per line, or comma-separated; a comma inside a value stays when no NAME= follows."""
    assert entries("A=1,B=2\nC=x?a=1,2") == ["A=1", "B=2", "C=x?a=1,2"]
    assert parse_env("\nDJANGO_SETTINGS_MODULE=mysite.settings\nDEBUG=") == (
        ("DJANGO_SETTINGS_MODULE", "mysite.settings"),
        ("DEBUG", ""),
    )
    with pytest.raises(ValueError, match="NAME=value"):
        parse_env("no-equals")


def test_backends_parse_and_unknown_ones_are_named():
    """perf_app_backends pairs a backend with the variable its URL goes in; an unknown backend lists the known."""
    assert parse_backends("redis=REDIS_URL,mongo=MONGO_URL") == (("redis", "REDIS_URL"), ("mongo", "MONGO_URL"))
    with pytest.raises(ValueError, match="BACKEND=ENV_VAR"):
        parse_backends("redis=not a var")
    with pytest.raises(ValueError, match="unknown backend.*'postgres'.*known backends: redis, mongo, upstream"):
        _app(backends=(("postgres", "DATABASE_URL"),))


def test_endpoint_line_gives_method_headers_body_and_checks():
    """A line carries the method, headers, body (rest of the line), status, type and body checks."""
    home, create = parse_endpoint(SHOP), parse_endpoint(CREATE)
    assert (home.name, home.path, home.status, home.content_type, home.request) == (
        "home",
        "/",
        200,
        "text/html",
        Request(),
    )
    assert create.request == Request("POST", (("Content-Type", "application/json"),), b'{"name": "x y"}')
    assert create.status == 201
    assert check_response(home, 200, {"Content-Type": "text/html; charset=utf-8"}, b"Welcome!") == []
    assert check_response(home, 200, {"Content-Type": "text/html"}, b"Bye") == ["body b'Bye' lacks ['Welcome']"]
    quoted = parse_endpoint('q /s contains="Hello, World" contains=x')
    assert quoted.request.plain and quoted.check_body(b"Hello, World x") is None


def test_endpoint_errors_name_the_line_and_the_form():
    """A bad line is reported with its number, what is wrong, and how to write it."""
    for line, problem in (
        ("home", "at least a name and a path"),
        ("home GET", "path is missing"),
        ("home GET / status=ok", "status='ok'"),
        ("home / colour=red", "'colour=red'"),
        ("home / header=NoColon", "Name:value"),
        ("home GET items", "must start with '/'"),
        ('home / contains="open', "close the quote"),
    ):
        with pytest.raises(ValueError) as info:
            parse_endpoints(f"ok GET /\n{line}")
        assert f"line 2 {line!r}" in str(info.value) and problem in str(info.value), str(info.value)
        assert "NAME [METHOD] PATH" in str(info.value)


def test_public_endpoint_runs_the_users_check():
    """endpoint(check=...) passes on None/True, fails with the message, on False, or on an exception."""
    messages = {b"ok": None, b"yes": True, b"msg": "wrong thing", b"no": False}
    e = endpoint("x", "/x", method="PUT", headers={"A": "1"}, body="b", check=lambda body: messages[body])
    assert e.request == Request("PUT", (("A", "1"),), b"b")
    assert e.check_body(b"ok") is None and e.check_body(b"yes") is None
    assert e.check_body(b"msg") == "wrong thing"
    assert "rejected b'no'" in e.check_body(b"no")
    assert "raised KeyError" in e.check_body(b"other")


def test_user_app_workloads_and_app():
    """One workload per endpoint named by it, using every backend; the app is named by its module."""
    app = _app(backends=(("redis", "REDIS_URL"),))
    assert list(app.workloads) == ["home", "create"]
    create = app.workloads["create"]
    assert create.spec.backends == ("redis",) and create.backends == ("redis",)
    assert create.request.method == "POST" and app.workloads["home"].request is None
    assert (app.app.name, app.app.target, app.app.endpoints) == ("shop", "shop:app", ("home", "create"))
    assert app.ready_path == "/"
    assert app.server_env({"redis": "redis://127.0.0.1:1/0"}) == {"REDIS_URL": "redis://127.0.0.1:1/0"}


def test_factories_and_framework_objects_load_through_the_entry_module():
    """A WSGI factory or an aiohttp Application object is loaded by serverbench.serverside.appentry, named by env."""
    factory = _app(target="shop:create_app()")
    assert factory.app.target == "serverbench.serverside.appentry:app"
    assert factory.server_env({}) == {"SERVERBENCH_APP": "shop:create_app()"}
    aio_object = _app("aiohttp", target="svc:app")
    assert (aio_object.app.module, aio_object.app.callable) == ("serverbench.serverside.appentry", "factory")
    aio_factory = _app("aiohttp", target="svc:init()")
    assert aio_factory.app.target == "svc:init" and aio_factory.server_env({}) == {}


def test_user_app_problems_are_reported_together():
    """No endpoint names perf_endpoints; a name given twice and a bad interface are reported with it."""
    with pytest.raises(ValueError, match="perf_endpoints") as info:
        user_app(AppTarget.parse("a:b"), "cgi", Path("/p"), [], known_backends=())
    assert "perf_app_interface 'cgi'" in str(info.value)
    with pytest.raises(ValueError, match="home given twice"):
        _app(endpoints=(SHOP, SHOP))


def test_no_ready_path_without_a_plain_get():
    """An app whose endpoints all send a body or expect an error is made ready by a TCP check."""
    assert _app(endpoints=(CREATE, "gone /gone status=404")).ready_path is None


def test_user_cells_are_the_variants_of_the_apps_interface():
    """Every Python variant of the app's interface; a named variant of another interface is refused."""
    variants = list(registry().values())
    asgi = _app("asgi")
    found = user_cells(variants, ("*",), asgi.app, asgi.ready_path)
    assert {c.variant.name for c in found} >= {"uvicorn", "hypercorn", "granian-asgi", "gunicorn-asgi-w2"}
    assert all(c.variant.interface == "asgi" and c.variant.ready_path == "/" for c in found)
    assert [c.variant.name for c in user_cells(variants, ("uvicorn", "waitress-*"), asgi.app, "/")] == ["uvicorn"]
    with pytest.raises(ConfigError, match="offers the asgi interface.*gunicorn-sync-w2 loads another interface"):
        user_cells(variants, ("uvicorn", "gunicorn-sync-w2"), asgi.app, "/")
    with pytest.raises(ConfigError, match="no variant selected by --perf-variants waitress-\\*"):
        user_cells(variants, ("waitress-*",), asgi.app, "/")


def test_config_resolves_user_app_options_and_refuses_perf_apps_with_it(tmp_path):
    """The options resolve from ini lines; --perf-apps with perf_app is a usage error."""
    ini = {
        "perf_app": "shop:app",
        "perf_endpoints": f"\n{SHOP}\n{CREATE}",
        "perf_app_env": "A=1",
        "perf_app_backends": ["redis=REDIS_URL"],
        "perf_app_interface": "WSGI",
    }
    resolved = cfg.resolve({}, ini, tmp_path)
    assert resolved.app == AppTarget("shop", "app") and resolved.app_interface == "wsgi"
    assert [e.name for e in resolved.endpoints] == ["home", "create"]
    assert resolved.app_dir == tmp_path.resolve() and resolved.app_env == (("A", "1"),)
    assert resolved.app_backends == (("redis", "REDIS_URL"),)
    toml_list = cfg.resolve({}, {"perf_endpoints": [SHOP, CREATE]}, tmp_path)
    assert len(toml_list.endpoints) == 2
    with pytest.raises(ConfigError, match="--perf-apps selects reference apps"):
        cfg.resolve({"perf_apps": "flask"}, ini, tmp_path)
    with pytest.raises(ConfigError, match="perf_app_interface.*expected auto or one of wsgi"):
        cfg.resolve({}, {"perf_app_interface": "cgi"}, tmp_path)


def test_drivers_send_method_headers_and_body(tmp_path):
    """wrk's script formats every request with the method, headers and body; oha gets -m, -H and -D."""
    request = Request("POST", (("Content-Type", "application/json"),), b'{"a": "\\"q\\""}\n')
    lua = mix_script([("/api/items", 1)], None, request)
    assert 'local method, body = "POST", "{\\034a\\034: \\034\\092\\034q\\092\\034\\034}\\010"' in lua
    assert 'wrk.format(method, p, {["Content-Type"] = "application/json", }, body)' in lua
    assert lua_string("é") == '"\\195\\169"'
    driver = OhaDriver()
    driver.__dict__["binary"] = "oha"  # cached_property: no oha needed to build its command
    argv = driver.argv("http://127.0.0.1:9/api/items", 8, 1, 100.0, request, tmp_path / "body")
    assert argv[-7:] == [
        "-m",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-D",
        str(tmp_path / "body"),
        "http://127.0.0.1:9/api/items",
    ]


TOML_PROJECT = """
[tool.pytest.ini_options]
filterwarnings = ["error"]
perf_app = "shop:app"
perf_app_interface = "wsgi"
perf_app_env = ["A=1", "B=2"]
perf_variants = "waitress-t4"
perf_endpoints = [
    "home GET / status=200 type=text/html contains=Welcome",
    'create POST /api/items header=Content-Type:application/json status=201 body={"name": "x y"}',
]
"""

LIST_TEST = '''
def test_endpoints(request):
    """The session reads both endpoints and the environment."""
    from serverbench.pytest_plugin.fixtures import perf_session_of
    session = perf_session_of(request.config)
    assert session.workloads == ("home", "create")
    assert session.user_app.env == (("A", "1"), ("B", "2"))
'''


def test_toml_list_endpoints_work_under_filterwarnings_error(pytester):
    """A TOML list for perf_endpoints (and perf_app_env) is read with no PytestRemovedIn10Warning, even as an error."""
    pytester.makepyprojecttoml(TOML_PROJECT)
    pytester.makepyfile(test_list=LIST_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "PytestRemovedIn10Warning" not in result.stdout.str()


def test_ini_lines_endpoints_still_read(pytester):
    """The ini form, one endpoint per line (and env comma-separated on one line), reads the same as the list."""
    pytester.makeini(
        "[pytest]\nfilterwarnings = error\nperf_app = shop:app\nperf_app_interface = wsgi\n"
        "perf_app_env = A=1,B=2\nperf_variants = waitress-t4\nperf_endpoints =\n"
        f"    {SHOP}\n    {CREATE}\n"
    )
    pytester.makepyfile(test_list=LIST_TEST)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
