"""A project's own app (perf_app) counted under valgrind through pytester: `pytest -m cost` counts every
endpoint (a GET and a POST with headers and body), stores the cost baselines in the project, and a
change to the user's own function fails naming it with role ``app``.  Counting needs no load lock."""

import json
import shutil

import pytest

pytestmark = [
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.skipif(
        shutil.which("valgrind") is None, reason="valgrind is not installed (`apt-get install valgrind`)"
    ),
]

COST_TEST = '''
import pytest

@pytest.mark.cost
def test_cost(perf_cost):
    """Each endpoint keeps its stored instructions per request."""
    perf_cost()
'''

SHOP = """
import json

def render_home(extra):
    page = "<h1>Welcome to the shop</h1>"
    for _ in range(extra):
        page += json.dumps({{"items": list(range(50))}})[:0]
    return page.encode()

def app(environ, start_response):
    path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
    if path == "/" and method == "GET":
        body, status, ctype = render_home({extra}), "200 OK", "text/html; charset=utf-8"
    elif path == "/items" and method == "POST":
        item = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
        allowed = environ.get("HTTP_X_TOKEN") == "t0k"
        body = json.dumps({{"created": item["name"]}}).encode()
        status, ctype = ("201 Created" if allowed else "403 Forbidden"), "application/json"
    else:
        body, status, ctype = b"not found", "404 Not Found", "text/plain"
    start_response(status, [("Content-Type", ctype), ("Content-Length", str(len(body)))])
    return [body]
"""

INI = """[pytest]
perf_app = shop:app
perf_variants = waitress-t4
perf_cost_requests = 40
perf_cost_baseline_counts = 2
perf_endpoints =
    home GET / status=200 type=text/html contains=Welcome
    create POST /items header=X-Token:t0k header=Content-Type:application/json status=201 type=application/json body={"name": "a b"}
"""

COUNT = ["-m", "cost", "-p", "no:cacheprovider", "--perf-json=records.json"]


def test_cost_counts_user_endpoints_and_names_the_users_function(pytester):
    """Both endpoints are counted (twice each, perf_cost_baseline_counts) and saved in the project's baselines with
    the spread of their two counts; an extra serialization in the user's render_home fails the home cell naming
    render_home with role app, while create still passes."""
    pytester.makeini(INI)
    pytester.makepyfile(test_cost=COST_TEST, shop=SHOP.format(extra=0))
    saved = pytester.runpytest_subprocess(*COUNT, "--perf-save-baseline")
    saved.assert_outcomes(passed=2)
    stored = list((pytester.path / "baselines" / "cost").glob("*.json"))
    assert len(stored) == 1, "the cost baseline is stored in the project's baselines/cost"
    entries = json.loads(stored[0].read_text())["entries"]
    assert {e["spread"]["counts"] for e in entries.values()} == {2}, entries
    keys = set(json.loads(stored[0].read_text())["cells"]) if "cells" in json.loads(stored[0].read_text()) else set()
    records = json.loads((pytester.path / "records.json").read_text())["cost"]
    assert {(r["variant"], r["app"], r["workload"]) for r in records} == {
        ("waitress-t4", "shop", "home"),
        ("waitress-t4", "shop", "create"),
    }, keys

    pytester.makepyfile(shop=SHOP.format(extra=20))
    again = pytester.runpytest_subprocess(*COUNT)
    again.assert_outcomes(passed=1, failed=1)
    again.stdout.fnmatch_lines(["*waitress-t4/shop/home*cost rose beyond tolerance*", "*app: shop*shop.render_home*"])
