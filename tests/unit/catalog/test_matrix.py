"""The variant x app matrix: which cells a selection runs (pure, no servers)."""

import pytest

from serverbench.catalog.apps import APPS, DEFAULT_APPS
from serverbench.catalog.matrix import cells, every_cell
from serverbench.catalog.variants import VARIANTS, registry
from serverbench.errors import ConfigError


def test_every_cell_pairs_each_variant_with_each_app_of_its_interface():
    """The full matrix has a cell for every (variant, app) whose interfaces match, and no other."""
    matrix = every_cell(VARIANTS)
    assert all(c.variant.interface == c.app.interface for c in matrix)
    for v in VARIANTS:
        assert {c.app.name for c in matrix if c.variant is v} == {a.name for a in APPS.values() if v.serves(a)}
    assert len({c.name for c in matrix}) == len(matrix)


def test_without_app_selection_each_variant_serves_its_reference_app():
    """No --perf-apps: one cell per variant, with the reference app of its interface."""
    chosen = cells(VARIANTS, None)
    assert [c.variant for c in chosen] == list(VARIANTS)
    assert all(c.app.name == DEFAULT_APPS[c.variant.interface] for c in chosen)


def test_app_globs_select_the_apps_each_variant_can_serve():
    """--perf-apps 'django*' runs WSGI servers with django and ASGI servers with django-asgi."""
    reg = registry()
    chosen = cells([reg["gunicorn-sync-w2"], reg["uvicorn"], reg["aiohttp"]], ("django*",))
    assert [c.name for c in chosen] == ["gunicorn-sync-w2/django", "uvicorn/django-asgi"]


def test_an_unknown_app_lists_the_known_ones():
    """A typo in --perf-apps is an error naming every known app."""
    with pytest.raises(ConfigError, match="unknown app 'flaks'; known apps: flask, bottle"):
        cells(VARIANTS, ("flaks",))


def test_a_selection_with_no_servable_cell_is_an_error():
    """Only the tornado app with only WSGI servers: nothing can run, and the error says why."""
    with pytest.raises(ConfigError, match="no selected variant can serve the selected apps"):
        cells([registry()["gunicorn-sync-w2"]], ("tornado",))
