"""The cost wiring end to end without servers: options, the marker, timed tests refused under xdist."""

PERF_TEST = '''
import pytest

@pytest.mark.perf
def test_timed():
    """A timed test."""
'''


def test_cost_options_are_declared(pytester):
    """The cost options are parsed and checked like the others, and the cost marker is registered."""
    result = pytester.runpytest("--perf-cost-requests=5", "--perf-cost-tolerance=2")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "*--perf-cost-requests='5': expected a whole number from 10*",
            "*--perf-cost-tolerance='2': expected a fraction*",
        ]
    )
    markers = pytester.runpytest("--markers")
    markers.stdout.fnmatch_lines(["*@pytest.mark.cost(tolerance=None)*"])


def test_timed_tests_are_refused_under_xdist(pytester):
    """-m perf with -n stops before any test with an error that says why and what to do."""
    pytester.makepyfile(test_timed=PERF_TEST)
    result = pytester.runpytest("-m", "perf", "-n", "2", "-p", "xdist")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*timed tests (-m perf) cannot run under pytest-xdist*`-m cost`*may use -n*"])


def test_cost_selection_may_use_xdist(pytester):
    """-m cost with -n is accepted (nothing timed is selected)."""
    pytester.makepyfile(test_timed=PERF_TEST)
    result = pytester.runpytest("-m", "cost", "-n", "2", "-p", "xdist")
    assert result.ret == 5  # no tests collected, no usage error
