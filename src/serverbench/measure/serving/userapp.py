"""A user's ``perf_app`` resolved as it will be served: its interface (declared, else detected by importing it in a
child interpreter, :mod:`.appinterface`) and its endpoints (``perf_endpoints``, then those a project's
``pytest_perf_endpoints`` hook adds).

The perf suite (:mod:`serverbench.pytest_plugin.plugin`, with the hook's answers) and the gate and bisect (a user's
project read without pytest, :mod:`serverbench.gate.user`) resolve it here, below both: no pytest import.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...backends.base import BACKENDS
from ...catalog.contract import Endpoint
from ...catalog.userapp import UserApp, user_app
from ...config.options import PerfConfig
from ...errors import ConfigError
from .appinterface import detect


def resolve_user_app(config: PerfConfig, hooked: Iterable[Endpoint]) -> UserApp:
    """perf_app as the session serves it: its interface (declared, else detected by importing it) and
    its endpoints (perf_endpoints, then those of the pytest_perf_endpoints hook)."""
    assert config.app is not None and config.app_dir is not None
    hooked = [e for found in hooked for e in (found if isinstance(found, (list, tuple)) else [found])]
    wrong = [e for e in hooked if not isinstance(e, Endpoint)]
    if wrong:
        raise ConfigError(
            f"pytest_perf_endpoints returned {wrong[0]!r}; return a list of endpoints built with "
            "serverbench.catalog.userapp.endpoint(name, path, ...)"
        )
    interface = config.app_interface
    if interface == "auto":
        interface = detect(config.app.text, config.app_dir, dict(config.app_env), timeout=max(config.start_timeout, 60))
    try:
        return user_app(
            config.app,
            interface,
            config.app_dir,
            config.endpoints + tuple(hooked),
            config.app_env,
            config.app_backends,
            known_backends=BACKENDS,
            reset=config.app_reset,
            setup=config.app_setup,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
