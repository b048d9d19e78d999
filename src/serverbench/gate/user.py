"""The A/B gate on a user's own app: their project, their endpoints, their code at a git ref.

In a project whose pytest configuration names ``perf_app`` (read by :mod:`serverbench.config.project`,
without pytest), ``serverbench gate --base-ref origin/main`` compares the app's folder (``perf_app_dir``) in a
worktree of *their* repository at the ref (the base arm) with the working tree (the candidate), one
decision per endpoint of ``perf_endpoints`` (``--endpoint NAME``, repeatable; default: every one),
under one variant (``--variant``; default the first of ``perf_variants`` that can run here).  Both arms
get the working tree's ``perf_app_env`` and the URLs of its ``perf_app_backends``.  This module resolves
all that for :mod:`.served`, which both doors (the gate and bisect) resolve what they serve with.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..catalog.matrix import Cell, user_cells
from ..catalog.userapp import UserApp
from ..catalog.variants import registry
from ..catalog.workloads import Workload
from ..config.options import PerfConfig, resolve
from ..config.project import ProjectConfig, find
from ..errors import ConfigError
from ..measure.serving.servers import unavailable_reason
from ..measure.serving.userapp import resolve_user_app


@dataclass(frozen=True)
class UserProject:
    """A user's project as the gate sees it: its configuration file, settings, app and git checkout."""

    config_file: ProjectConfig
    settings: PerfConfig
    app: UserApp
    git_top: Path  # the top of the git checkout holding the project (the project may be a sub-folder)


def names_app(folder: Path) -> bool:
    """Whether the pytest configuration around ``folder`` names ``perf_app`` (nothing is imported)."""
    try:
        return bool(find(folder).ini.get("perf_app"))
    except ConfigError:
        return False


def project(folder: Path) -> UserProject | None:
    """The user's project around ``folder``, or None when its pytest configuration names no ``perf_app``
    (the gate then compares serverbench's own reference apps)."""
    try:
        found = find(folder)
    except ConfigError:  # no pytest configuration: not a user's project (the reference apps' checkout says why)
        return None
    if not found.ini.get("perf_app"):
        return None
    settings = resolve({}, found.ini, found.rootdir)
    app = resolve_user_app(settings, [])
    top = subprocess.run(
        ["git", "-C", str(found.rootdir), "rev-parse", "--show-toplevel"], capture_output=True, text=True
    )
    if top.returncode != 0:
        raise ConfigError(
            f"{found.rootdir} is not in a git checkout ({top.stderr.strip()}): the gate compares "
            "your code at a git ref; `git init` and commit it first"
        )
    return UserProject(found, settings, app, Path(top.stdout.strip()).resolve())


def endpoints(user: UserApp, names: Sequence[str]) -> list[Workload]:
    """The workloads of the named endpoints (default: all, in the configuration's order)."""
    table = user.workloads
    unknown = [n for n in names if n not in table]
    if unknown:
        raise ConfigError(
            f"unknown endpoint(s) {', '.join(map(repr, unknown))}; {user.target.text} has "
            f"{', '.join(table)} (perf_endpoints)"
        )
    return [table[n] for n in (dict.fromkeys(names) if names else table)]


def cell(found: UserProject, variant: str | None) -> Cell:
    """The cell to gate: ``variant`` (one of the app's interface), else the first of perf_variants that runs here."""
    cells = user_cells(list(registry().values()), found.settings.variants, found.app.app, found.app.ready_path)
    by_name = {c.variant.name: c for c in cells}
    if variant is not None:
        if variant not in by_name:
            raise ConfigError(
                f"--variant {variant!r} is not a variant of {found.app.target.text} "
                f"({found.app.interface}) selected by perf_variants: use one of {', '.join(by_name)}"
            )
        return by_name[variant]
    for c in cells:
        if unavailable_reason(c.variant, c.app) is None:
            return c
    reasons = "; ".join(f"{c.variant.name}: {unavailable_reason(c.variant, c.app)}" for c in cells)
    raise ConfigError(f"no variant of perf_variants can run here ({reasons})")
