"""The Python tracer's module names (measure.counting.pytrace)."""

from serverbench.measure.counting.pytrace import _module_of_path


def test_module_of_a_file_no_module_claims():
    """A file under site-packages gets its dotted module name; others their stem."""
    assert _module_of_path("/v/lib/python3.11/site-packages/werkzeug/routing/map.py") == "werkzeug.routing.map"
    assert _module_of_path("/v/lib/python3.11/site-packages/gunicorn/__init__.py") == "gunicorn"
    assert _module_of_path("<frozen importlib._bootstrap>") == "importlib._bootstrap"
