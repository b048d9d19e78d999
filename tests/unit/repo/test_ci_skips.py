"""With CI=true a test that skips for want of a tool ./run installs fails instead, naming the tool and the
install (issue 22); other skips, and every skip outside CI, stay skips."""

from pathlib import Path

ROOT_CONFTEST = Path(__file__).resolve().parents[3] / "conftest.py"

TESTS = """
import shutil
import pytest

def test_needs_valgrind():
    pytest.skip("valgrind is not installed (`apt-get install valgrind`)")

@pytest.mark.skipif(True, reason="no chromium on PATH: apt-get install -y chromium")
def test_needs_chromium():
    pass

def test_needs_toxiproxy():
    pytest.skip("toxiproxy-server is not installed: go install ...")

def test_not_a_tool():
    pytest.skip("aiohttp does not serve /sleep")

def test_a_tool_name_inside_a_word():
    pytest.skip("the ohana app is not here")

@pytest.mark.xfail(reason="valgrind is flaky here", strict=False)
def test_xfail_naming_a_tool():
    assert False
"""


def _run(pytester, monkeypatch, ci):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    pytester.makepyfile(test_tools=TESTS)
    return pytester.runpytest("-p", "no:cacheprovider", "-rA")


def test_in_ci_a_skip_for_a_missing_tool_fails_naming_the_tool_and_its_install(pytester, monkeypatch):
    """CI=true: the valgrind, chromium and toxiproxy skips fail (chromium's skipif at setup: an error), each naming
    its tool and how ./run installs it; a skip naming no tool, and an xfail, stay as they were."""
    result = _run(pytester, monkeypatch, "true")
    result.assert_outcomes(failed=2, errors=1, skipped=2, xfailed=1)
    result.stdout.fnmatch_lines(
        [
            "*CI=true: this test would skip for want of valgrind (valgrind is not installed*./run installs it (apt-get install valgrind)*",
            "*CI=true: this test would skip for want of chromium*apt-get install chromium*",
            "*want of toxiproxy-server*go install github.com/Shopify/toxiproxy*",
        ]
    )


def test_outside_ci_every_skip_stays_a_skip(pytester, monkeypatch):
    """Negative case: without CI (or CI=false) the same tests skip."""
    for ci in (None, "false"):
        result = _run(pytester, monkeypatch, ci)
        result.assert_outcomes(skipped=5, xfailed=1)
