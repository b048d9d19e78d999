"""The app × server matrix: which (variant, app) cells a session runs.  Pure data logic.

A variant serves every app whose interface it loads (WSGI, ASGI or a framework's own
server); without an app selection each variant serves its interface's reference app.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .apps import APPS, App
from ..config import select
from ..errors import ConfigError
from .variants import Variant


@dataclass(frozen=True)
class Cell:
    """One server variant serving one app: the unit that is started, verified and loaded."""

    variant: Variant
    app: App

    @property
    def name(self) -> str:
        return f"{self.variant.name}/{self.app.name}"


def every_cell(variants: Iterable[Variant], apps: Mapping[str, App] = APPS) -> list[Cell]:
    """Every compatible (variant, app) pair, in declaration order."""
    return [Cell(v, a) for v in variants for a in apps.values() if v.serves(a)]


def cells(variants: Sequence[Variant], app_patterns: Sequence[str] | None,
          apps: Mapping[str, App] = APPS) -> list[Cell]:
    """The cells to run: each variant with its reference app, or with every selected app it can serve."""
    if app_patterns is None:
        return [Cell(v, v.default_app) for v in variants]
    chosen = [apps[name] for name in select(list(apps), app_patterns, "app")]
    out = [Cell(v, a) for v in variants for a in chosen if v.serves(a)]
    if not out:
        raise ConfigError(
            f"no selected variant can serve the selected apps ({', '.join(a.name for a in chosen)}: "
            f"interfaces {', '.join(sorted({a.interface for a in chosen}))}); the selected variants load "
            f"{', '.join(sorted({v.interface for v in variants}))}. Widen --perf-variants or --perf-apps.")
    return out
