"""The user's app (``perf_app``) as a server loads it when it cannot load the object itself.

Runs inside the server process, like :mod:`serverbench.serverside.launch`.  Servers of the ``wsgi`` and
``asgi`` interfaces load an attribute (``module:app``); the ``aiohttp`` and ``tornado``
launchers call a factory (``module:factory()``).  A user's app that is the other kind (a WSGI
app made by ``create_app()``, an aiohttp ``Application`` object) is loaded through this module:
``app`` is the object (the factory called once), ``factory()`` returns it.  Which object is named
by the ``SERVERBENCH_APP`` environment variable (``package.module:attribute`` or ``...:factory()``).
"""

from __future__ import annotations

import functools
import importlib
import os

from ..catalog.userapp import TARGET_ENV


def load(target: str):
    """The object ``target`` names, the factory called when it ends in ``()``."""
    module, _, attribute = target.partition(":")
    obj = getattr(importlib.import_module(module), attribute.removesuffix("()"))
    return obj() if attribute.endswith("()") else obj


@functools.cache
def factory():
    """The app object (for servers that call a factory)."""
    return load(os.environ[TARGET_ENV])


if TARGET_ENV in os.environ:  # in a server: a plain attribute, since uWSGI looks it up in the module's dict
    app = factory()
