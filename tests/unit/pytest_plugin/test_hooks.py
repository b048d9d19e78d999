"""The hook serverbench adds to pytest (pytest_plugin.hooks), implemented in a conftest and called by the plugin
(pytester, no server)."""

CONFTEST = """
from serverbench.catalog.userapp import endpoint


def pytest_perf_endpoints(config):
    return [endpoint("items", "/api/items", content_type="application/json")]
"""

INI = "[pytest]\nperf_app = shop:app\nperf_app_interface = wsgi\nperf_variants = waitress-t4\nperf_endpoints = home /\n"

WORKLOADS_TEST = '''
def test_workloads(request):
    """Print the session's workloads: the ini's endpoints, then the hook's."""
    from serverbench.pytest_plugin.fixtures import perf_session_of

    session = perf_session_of(request.config)
    print("WORKLOADS", session.workloads, session.workload("items").path)
'''


def test_the_endpoints_a_conftest_returns_from_the_hook_join_the_inis(pytester):
    """A rootdir conftest's pytest_perf_endpoints(config) is called when the session starts: its endpoint follows the
    ini's perf_endpoints among the user app's workloads."""
    pytester.makeini(INI)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_workloads=WORKLOADS_TEST)
    result = pytester.runpytest("-s", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*WORKLOADS ('home', 'items') /api/items"])


def test_an_implementation_with_an_argument_the_hook_does_not_have_is_refused(pytester):
    """pluggy checks an implementation against the hook's declaration: an argument named ``cfg`` is refused, naming
    the hook and the argument."""
    pytester.makeconftest("def pytest_perf_endpoints(cfg):\n    return []\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret != 0
    text = result.stdout.str() + result.stderr.str()
    assert "hook 'pytest_perf_endpoints'" in text
    assert "Argument(s) {'cfg'} are declared in the hookimpl but can not be found in the hookspec" in text
