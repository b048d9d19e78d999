"""measure.serving.userapp: a user's perf_app resolved as it will be served, by the perf suite and by the gate and bisect
without pytest: its declared interface, the ini's endpoints and the hook's, in order (no server, no import of the
app)."""

import pytest

from serverbench.catalog.userapp import endpoint
from serverbench.config import options as cfg
from serverbench.errors import ConfigError
from serverbench.measure.serving.userapp import resolve_user_app


def test_the_hooks_endpoints_are_flattened_and_anything_else_is_a_usage_error_naming_it(tmp_path):
    """pytest_perf_endpoints' answers (a list per conftest, or one endpoint) join the ini's endpoints in order; a value
    that is not an endpoint is a ConfigError naming it and how to build one."""
    config = cfg.resolve(
        {"perf_app": "shop:app", "perf_app_interface": "wsgi", "perf_endpoints": "home /"}, {}, tmp_path
    )
    user = resolve_user_app(config, [[endpoint("a", "/a"), endpoint("b", "/b")], endpoint("c", "/c")])
    assert list(user.workloads) == ["home", "a", "b", "c"]
    with pytest.raises(ConfigError) as info:
        resolve_user_app(config, [[endpoint("a", "/a")], "items /api/items"])
    assert str(info.value) == (
        "pytest_perf_endpoints returned 'items /api/items'; return a list of endpoints built with "
        "serverbench.catalog.userapp.endpoint(name, path, ...)"
    )
