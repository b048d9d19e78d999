"""A project's own app (perf_app) end to end through pytester: a WSGI app with a GET and a POST
endpoint and an ASGI app, each under two variants, their records; and the usage errors."""

import json

import pytest

pytestmark = pytest.mark.usefixtures("no_leaks")

PERF_TEST = '''
import pytest

@pytest.mark.perf
def test_throughput(perf_trial):
    """The app serves the endpoint."""
    perf_trial()
'''

SHOP = """
import json

def app(environ, start_response):
    path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
    if path == "/" and method == "GET":
        body, status, ctype = b"<h1>Welcome to the shop</h1>", "200 OK", "text/html; charset=utf-8"
    elif path == "/items" and method == "POST":
        item = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
        allowed = environ.get("HTTP_X_TOKEN") == "t0k"
        body = json.dumps({"created": item["name"]}).encode()
        status, ctype = ("201 Created" if allowed else "403 Forbidden"), "application/json"
    else:
        body, status, ctype = b"not found", "404 Not Found", "text/plain"
    start_response(status, [("Content-Type", ctype), ("Content-Length", str(len(body)))])
    return [body]
"""

SHOP_INI = """[pytest]
perf_app = shop:app
perf_endpoints =
    home GET / status=200 type=text/html contains=Welcome
    create POST /items header=X-Token:{token} header=Content-Type:application/json status=201 type=application/json body={{"name": "a b"}}
"""

# The ASGI service checks its body in Python (the conftest hook) and reads a setting from perf_app_env.
SERVICE = """
import json, os

async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["method"] == "POST":
        answer = {"echo": json.loads(body)["n"] * 2}
    else:
        answer = {"greeting": os.environ["GREETING"]}
    data = json.dumps(answer).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})
"""

SERVICE_CONFTEST = """
import json
from serverbench.catalog.userapp import endpoint

def pytest_perf_endpoints(config):
    return [endpoint("double", "/double", method="POST", body='{"n": 21}', content_type="application/json",
                     check=lambda body: json.loads(body) == {"echo": 42} or f"wrong echo {body!r}")]
"""

SERVICE_INI = """[pytest]
perf_app = service:app
perf_app_env = GREETING=hello
perf_endpoints = greet /greet type=application/json contains=hello
"""

FAST = [
    "-m",
    "perf",
    "--perf-duration=1",
    "--perf-warmup=0",
    "--perf-connections=4",
    "--perf-threads=1",
    "-p",
    "no:cacheprovider",
]


def _project(pytester, files, ini):
    pytester.makeini(ini)
    pytester.makepyfile(test_perf=PERF_TEST, **files)
    return pytester


def _records(pytester):
    data = json.loads((pytester.path / "records.json").read_text())
    return data["results"], data.get("failures", [])


def test_wsgi_app_get_and_post_under_two_variants(pytester):
    """The WSGI app's GET and POST endpoints run under two variants with no error, named in the records."""
    _project(pytester, {"shop": SHOP}, SHOP_INI.format(token="t0k"))
    result = pytester.runpytest_subprocess(
        *FAST, "--perf-variants=gunicorn-sync-w2,waitress-t4", "--perf-json=records.json"
    )
    result.assert_outcomes(passed=4)
    results, failures = _records(pytester)
    assert not failures
    cells = {(r["variant"], r["app"], r["workload"]) for r in results}
    assert cells == {(v, "shop", w) for v in ("gunicorn-sync-w2", "waitress-t4") for w in ("home", "create")}
    for r in results:
        assert r["requests"] > 0 and sum(r["errors"].values()) == 0, r


@pytest.mark.oha
def test_asgi_app_with_hook_endpoint_closed_and_open_model(pytester):
    """The ASGI app's ini and conftest endpoints run under two variants, by wrk and by oha, with no error."""
    _project(pytester, {"service": SERVICE, "conftest": SERVICE_CONFTEST}, SERVICE_INI)
    result = pytester.runpytest_subprocess(
        *FAST,
        "--perf-variants=uvicorn,hypercorn",
        "--perf-rates=50",
        "--perf-closed-driver=wrk",
        "--perf-json=records.json",
    )
    result.assert_outcomes(passed=8)
    results, failures = _records(pytester)
    assert not failures
    assert {(r["variant"], r["workload"], r["generator"]["name"]) for r in results} == {
        (v, w, d) for v in ("uvicorn", "hypercorn") for w in ("greet", "double") for d in ("wrk", "oha")
    }
    for r in results:
        assert r["app"] == "service" and r["requests"] > 0 and sum(r["errors"].values()) == 0, r


FACTORY = """
import os

def create_app():
    greeting = os.environ["GREETING"].encode()

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(greeting)))])
        return [greeting]
    return app
"""

AIOHTTP_OBJECT = """
from aiohttp import web

async def hello(request):
    return web.json_response({"hi": "aiohttp"})

app = web.Application()
app.router.add_get("/hi", hello)
"""


@pytest.mark.parametrize(
    "module, ini, variants",
    [
        (
            FACTORY,
            "perf_app = made:create_app()\nperf_app_env = GREETING=hello from a factory\n"
            "perf_endpoints = hello / type=text/plain contains='from a factory'\n",
            "uwsgi-p2t2,waitress-t4",
        ),
        (
            AIOHTTP_OBJECT,
            "perf_app = made:app\nperf_endpoints = hi /hi type=application/json contains=aiohttp\n",
            "aiohttp,gunicorn-aiohttp-w2",
        ),
    ],
    ids=["wsgi-factory", "aiohttp-object"],
)
def test_factories_and_framework_objects_are_served(pytester, module, ini, variants):
    """A WSGI factory and an aiohttp Application object are served (through serverbench.serverside.appentry)."""
    _project(pytester, {"made": module}, "[pytest]\n" + ini)
    result = pytester.runpytest_subprocess(*FAST, f"--perf-variants={variants}", "--perf-json=records.json")
    result.assert_outcomes(passed=2)
    results, failures = _records(pytester)
    assert not failures and {r["variant"] for r in results} == set(variants.split(","))
    assert all(r["app"] == "made" and r["requests"] > 0 and sum(r["errors"].values()) == 0 for r in results)


def test_wrong_answer_fails_verification_naming_the_endpoint(pytester):
    """An endpoint that answers otherwise than declared fails before load, naming its method and path."""
    _project(pytester, {"shop": SHOP}, SHOP_INI.format(token="wrong"))
    result = pytester.runpytest_subprocess(*FAST, "--perf-variants=gunicorn-sync-w2", "--perf-workloads=create")
    result.assert_outcomes(errors=1)  # the server fixture fails: an error at setup, like the reference apps'
    result.stdout.fnmatch_lines(["*POST /items: status 403 != expected 201*"])


@pytest.mark.parametrize(
    "ini, args, message",
    [
        ("perf_app = shop:app\n", [], "*has no endpoints: list them in the ini key perf_endpoints*"),
        (
            "perf_app = shop:app\nperf_endpoints = home /\n",
            ["--perf-apps=flask"],
            "*--perf-apps selects reference apps*",
        ),
        (
            "perf_app = shop:app\nperf_endpoints = home /\n",
            ["--perf-variants=uvicorn"],
            "*offers the wsgi interface (perf_app_interface), but uvicorn loads another interface*",
        ),
        ("perf_app = shopp:app\nperf_endpoints = home /\n", [], "*No module named 'shopp'*"),
        ("perf_app = shop:json\nperf_endpoints = home /\n", [], "*found builtins.module*perf_app_interface*"),
        (
            "perf_app = shop:app\nperf_app_backends = postgres=DB_URL\nperf_endpoints = home /\n",
            [],
            "*unknown backend(s) 'postgres'; known backends: redis, mongo, upstream*",
        ),
        ("perf_app = shop:app\nperf_endpoints = home GET\n", [], "*line 1 'home GET': the path is missing*"),
    ],
)
def test_usage_errors_name_the_setting(pytester, ini, args, message):
    """Each mistake in the user app's settings stops the run before any server starts, naming the fix."""
    _project(pytester, {"shop": SHOP}, "[pytest]\n" + ini)
    result = pytester.runpytest("-m", "perf", "--collect-only", "-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
