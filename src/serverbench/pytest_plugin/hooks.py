"""The hooks serverbench adds to pytest (registered with ``pluginmanager.add_hookspecs``)."""

from __future__ import annotations

import pytest


@pytest.hookspec
def pytest_perf_endpoints(config: pytest.Config) -> list:
    """Endpoints of your app (``perf_app``), built with ``serverbench.catalog.userapp.endpoint``; they join the
    ini's ``perf_endpoints``.  Implement it in the conftest.py at the rootdir (loaded before the session
    starts)::

        from serverbench.catalog.userapp import endpoint

        def pytest_perf_endpoints(config):
            return [endpoint("items", "/api/items", content_type="application/json",
                             check=lambda body: b'"items"' in body)]
    """
