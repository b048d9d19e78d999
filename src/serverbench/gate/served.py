"""What a gate's two arms serve, and what each commit a bisection counts serves: :class:`Served`, a cell on its
workloads from one folder of a git checkout, resolved by :func:`served` for both doors, so that the same mistake
gets the same message from ``serverbench gate`` and ``serverbench bisect``.

In a checkout of serverbench (no pytest configuration naming ``perf_app``): a variant (``--variant``) serving a
reference app (``--app``, default the variant's own) on a reference workload (``--workload``, default json), from
``apps/``.  In a project naming ``perf_app`` (:mod:`.user`): its app from its ``perf_app_dir``, on its
``perf_endpoints`` by name (``--endpoint``), under one of its ``perf_variants``, with its ``perf_app_env``, its
backends under the names it reads them by, its ``perf_app_setup``, ``perf_app_reset`` and ``perf_cost_requests``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog.apps import APPS
from ..catalog.matrix import Cell
from ..catalog.userapp import AppTarget
from ..catalog.variants import registry
from ..catalog.workloads import WORKLOADS, Workload
from ..errors import ConfigError
from . import user

# What a reference cell needs that a project's configuration would give (argparse's words, as the gate says it).
REQUIRED_VARIANT = "--variant (or run it in a project whose pytest configuration names perf_app)"
# How each door names itself in the messages that send a user to --workload or --endpoint.
DOORS = {"gate": ("the gate", "compares"), "bisect": ("bisect", "counts")}


@dataclass(frozen=True)
class Served:
    """``cell`` on ``workloads`` (one decision, or one count, each), its app imported from ``app_folder`` of a
    checkout of ``top`` (``apps`` for the reference apps; a project's ``perf_app_dir``, relative to its git top).
    ``env``: the app's own variables; ``backend_vars``: the variable each backend's URL is handed to the app by
    (a project's ``perf_app_backends``; None: the registry's, :func:`serverbench.backends.base.env`).  ``setup``
    and ``reset``: a project's ``perf_app_setup`` and ``perf_app_reset``; ``cost_requests`` its
    ``perf_cost_requests`` (None: the door's own default); ``project``: the project (None: the reference apps)."""

    cell: Cell
    workloads: tuple[Workload, ...]
    top: Path
    app_folder: str = "apps"
    env: Mapping[str, str] = field(default_factory=dict)
    backend_vars: Mapping[str, str] | None = None
    setup: str | None = None
    reset: AppTarget | None = None
    cost_requests: int | None = None
    project: user.UserProject | None = None

    @property
    def backends(self) -> list[str]:
        """The backends the app needs started (or given by URL), in order."""
        if self.backend_vars is not None:
            return list(self.backend_vars)
        return list(dict.fromkeys(name for w in self.workloads for name in w.backends))

    def server_env(self, urls: Mapping[str, str]) -> dict[str, str]:
        """The app's own variables and each backend's URL (by backend name) under the variable the app reads."""
        named = {var: urls[name] for name, var in (self.backend_vars or {}).items() if name in urls}
        return {**self.env, **named}

    def app_dir(self, checkout: Path) -> Path:
        """The app's folder in ``checkout`` (the top or a worktree of it); a checkout without it is refused."""
        folder = Path(checkout) / self.app_folder
        if folder.is_dir():
            return folder
        if self.project is None:
            raise ConfigError(f"{checkout} has no apps/ folder to serve")
        raise ConfigError(
            f"the base ref has no {self.app_folder} folder (perf_app_dir of {self.project.config_file.path}): "
            "pick a ref where the app exists"
        )


def served(
    repo: Path,
    variant: str | None,
    app: str | None,
    workload: str | None,
    endpoints: Sequence[str],
    door: str,
) -> Served:
    """What ``repo`` serves under the names given, or a ConfigError with every problem (``door``: "gate" or
    "bisect", as the messages name it)."""
    found = user.project(Path(repo))
    if found is None:
        return _reference(Path(repo), variant, app, workload or "json", endpoints, door)
    if app is not None or workload is not None:
        name, verb = DOORS[door]
        raise ConfigError(
            f"{found.config_file.path} names perf_app = {found.app.target.text}: {name} {verb} your app; name its "
            "endpoints with --endpoint (--app and --workload are for the reference apps)"
        )
    return _project(found, variant, endpoints)


def _reference(
    repo: Path, variant: str | None, app: str | None, workload: str, endpoints: Sequence[str], door: str
) -> Served:
    variants = registry()
    problems = []
    if variant is None:
        problems.append(f"the following arguments are required: {REQUIRED_VARIANT}")
    elif variant not in variants:
        problems.append(f"unknown variant {variant!r}; known variants: {', '.join(variants)}")
    if app is not None and app not in APPS:
        problems.append(f"unknown app {app!r}; known apps: {', '.join(APPS)}")
    if endpoints:
        problems.append(
            f"--endpoint names a perf_app endpoint, and {repo.resolve()} has no pytest configuration naming "
            f"perf_app: use --workload, or run {DOORS[door][0]} in your project"
        )
    if workload not in WORKLOADS:
        problems.append(f"unknown workload {workload!r}; known workloads: {', '.join(WORKLOADS)}")
    if problems:
        raise ConfigError("\n".join(problems))
    chosen = variants[variant]
    cell = Cell(chosen, APPS[app] if app else chosen.default_app)
    return Served(cell, (WORKLOADS[workload],), repo.resolve())


def _project(found: user.UserProject, variant: str | None, endpoints: Sequence[str]) -> Served:
    workloads = user.endpoints(found.app, endpoints)
    return Served(
        user.cell(found, variant),
        tuple(workloads),
        found.git_top,
        str(found.app.directory.resolve().relative_to(found.git_top)),
        found.app.server_env({}),
        dict(found.app.backends),
        found.app.setup,
        found.app.reset,
        found.settings.cost_requests,
        found,
    )
