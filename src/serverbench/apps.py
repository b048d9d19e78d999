"""The reference apps, as data: which file implements the contract, through which interface.

The code lives in the project's ``apps/`` folder (``--perf-apps-dir``); a server variant
serves an app whose interface it speaks.  Adding an app is an entry here plus its file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

INTERFACES = ("wsgi", "asgi", "aiohttp")


@dataclass(frozen=True)
class App:
    """A reference app: its module in the apps folder, the object servers load, what it needs."""

    name: str
    interface: str
    module: str
    callable: str
    requires: tuple[str, ...]
    endpoints: tuple[str, ...] = ("plaintext", "json", "redis")

    @property
    def target(self) -> str:
        return f"{self.module}:{self.callable}"


APPS: Mapping[str, App] = {
    a.name: a
    for a in (
        App("flask", "wsgi", "flask_app", "app", requires=("flask", "redis")),
        App("aiohttp", "aiohttp", "aiohttp_app", "init", requires=("aiohttp", "redis")),
    )
}
