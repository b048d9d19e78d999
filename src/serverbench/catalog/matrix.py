"""The app × server matrix: which (variant, app) cells a session runs.  Pure data logic.

A variant serves every app whose interface it loads (WSGI, ASGI or a framework's own
server); without an app selection each variant serves its interface's reference app.  A user's
app (``perf_app``) is served by every Python variant of its interface (:func:`user_cells`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase

from ..errors import ConfigError
from .apps import APPS, INTERFACE_RUNTIMES, App
from .variants import Variant


def select(names: Sequence[str], patterns: Sequence[str], kind: str) -> list[str]:
    """Names matching any glob, in declaration order; a pattern that matches nothing is an error."""
    unmatched = [p for p in patterns if not any(fnmatchcase(n, p) for n in names)]
    if unmatched:
        raise ConfigError(f"unknown {kind} {', '.join(repr(p) for p in unmatched)}; known {kind}s: {', '.join(names)}")
    return [n for n in names if any(fnmatchcase(n, p) for p in patterns)]


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


def cells(
    variants: Sequence[Variant], app_patterns: Sequence[str] | None, apps: Mapping[str, App] = APPS
) -> list[Cell]:
    """The cells to run: each variant with its reference app, or with every selected app it can serve."""
    if app_patterns is None:
        return [Cell(v, v.default_app) for v in variants]
    chosen = [apps[name] for name in select(list(apps), app_patterns, "app")]
    out = [Cell(v, a) for v in variants for a in chosen if v.serves(a)]
    if not out:
        raise ConfigError(
            f"no selected variant can serve the selected apps ({', '.join(a.name for a in chosen)}: "
            f"interfaces {', '.join(sorted({a.interface for a in chosen}))}); the selected variants load "
            f"{', '.join(sorted({v.interface for v in variants}))}. Widen --perf-variants or --perf-apps."
        )
    return out


def user_cells(variants: Sequence[Variant], patterns: Sequence[str], app: App, ready_path: str | None) -> list[Cell]:
    """Every Python variant of the user's app's interface that ``patterns`` (--perf-variants) select,
    each made ready on ``ready_path`` (None: a TCP check), since the app has no /plaintext.

    A variant named outright (no glob) that loads another interface is a usage error."""
    names = select([v.name for v in variants], patterns, "variant")
    by_name = {v.name: v for v in variants}
    fits = [n for n in names if INTERFACE_RUNTIMES.get(by_name[n].interface) == "python" and by_name[n].serves(app)]
    named = [p for p in patterns if not any(c in p for c in "*?[")]
    wrong = [p for p in named if p in by_name and p not in fits]
    if wrong or not fits:
        found = (
            f"{', '.join(wrong)} load{'s' if len(wrong) == 1 else ''} another interface"
            if wrong
            else f"no variant selected by --perf-variants {','.join(patterns)} loads it"
        )
        offered = ", ".join(v.name for v in variants if v.serves(app)) or "none"
        raise ConfigError(
            f"your app {app.name} ({app.notes}) offers the {app.interface} interface "
            f"(perf_app_interface), but {found}; its variants: {offered}"
        )
    return [Cell(replace(by_name[n], ready_path=ready_path), app) for n in fits]
