"""A bisection's options resolved into its :class:`~serverbench.bisect.plan.BisectPlan`, before anything starts.

:class:`BisectOptions` are the values a door gives (``serverbench bisect``'s command line): the range, the cell, how
each commit is counted and built, and the gate that confirms each regression (its options as
:class:`~serverbench.gate.options.GateOptions`).  What the commits serve is resolved by the gate's own
:func:`serverbench.gate.served.served`, so an unknown variant, app, workload or endpoint gets the gate's message.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..backends import base as backends
from ..config.options import parse_option
from ..errors import ConfigError
from ..gate.options import GateOptions
from ..gate.served import served
from ..measure.trees import commits as git
from .plan import DEFAULT_REQUESTS, BisectPlan, threshold_of

REFERENCE_SYNC = "--extra apps --extra servers --group native"  # what the reference apps' servers need of uv.lock
USER_SYNC = "--all-extras"


@dataclass(frozen=True)
class BisectOptions:
    """One bisection as a door asks for it, every value as given: the range (``good`` .. ``bad``) in ``repo``, the
    cell (``variant``, ``app`` and ``workload`` of the reference apps, or a project's ``endpoint``), the step
    ``threshold`` (text; None: the cost test's tolerance), the ``requests`` per count, the environment (``python``,
    ``lock``, ``sync_args``), the backends given by URL (``urls``: the text of each backend's URL option, by option
    name), whether each regression is confirmed by the gate (``confirm``) and the gate's options (``gate``)."""

    good: str | None = None
    bad: str = "HEAD"
    repo: str = "."
    variant: str | None = None
    app: str | None = None
    workload: str | None = None
    endpoint: str | None = None
    threshold: str | None = None
    requests: int | None = None
    python: str = sys.executable
    lock: str | None = None
    sync_args: str | None = None
    urls: Mapping[str, str | None] = field(default_factory=dict)
    confirm: bool = True
    gate: GateOptions = field(default_factory=GateOptions)


def plan_of(options: BisectOptions) -> tuple[BisectPlan, list[str], str]:
    """The validated plan, the backends it needs, and the uv sync arguments; nothing has started yet."""
    if options.good is None:
        raise ConfigError("--good is required: the commit whose count is the old level (or --confirm BISECT.json)")
    endpoints = [options.endpoint] if options.endpoint is not None else []
    what = served(Path(options.repo), options.variant, options.app, options.workload, endpoints, "bisect")
    if what.project is None:
        top, project, requests = git.top(Path(options.repo)), Path("."), DEFAULT_REQUESTS
    else:
        top, requests = what.top, what.cost_requests
        project = what.project.config_file.rootdir.resolve().relative_to(top)
    lock = options.lock or (str(project / "uv.lock") if what.project is not None else "uv.lock")
    plan = BisectPlan(
        top,
        tuple(git.commit_range(top, options.good, options.bad, lock)),
        what.cell,
        what.workloads[0],
        threshold_of(options.threshold, what.cell),
        requests=options.requests or requests,
        app_folder=what.app_folder,
        python=options.python,
        lock_path=lock,
        env=what.env,
        setup=what.setup,
        reset=what.reset,
        backend_vars=what.backend_vars,
        user=what.project is not None,
        project=str(project),
    )
    return plan, what.backends, options.sync_args or (USER_SYNC if plan.user else REFERENCE_SYNC)


def urls_of(options: BisectOptions) -> dict[str, str | None]:
    """The backends given by URL, by backend name (each parsed by the option table)."""
    given = {}
    for b in backends.BACKENDS.values():
        raw = options.urls.get(b.url_option)
        given[b.name] = None if raw is None else parse_option(b.url_option, raw, "bisect")
    return given
