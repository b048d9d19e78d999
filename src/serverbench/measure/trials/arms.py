"""The two arms of a same-session A/B measurement, and what its runner (:mod:`.ab`) reads of the plan that pairs them.

An :class:`Arm` is data: what differs between base and candidate.  The plan (:class:`serverbench.gate.plan.ABPlan`)
stands a floor above measurement: it validates itself against measurement's checks and the judge's policy.  The
runner names only the fields it reads, as the :class:`RunnerPlan` protocol here; the plan is one of those.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ...catalog.matrix import Cell
from ...catalog.userapp import AppTarget
from ...catalog.workloads import Workload


@dataclass(frozen=True)
class Arm:
    """What differs between base and candidate: interpreter, app code, environment.  ``reset``: a user's
    perf_app_reset (``module:function``, from this arm's own folder), run before each server and count."""

    label: str
    python: str = sys.executable
    apps_dir: Path = Path("apps")
    env: Mapping[str, str] = field(default_factory=dict)
    reset: AppTarget | None = None


class RunnerPlan(Protocol):
    """What the runner reads of an A/B plan (gate.plan.ABPlan, whose fields say what each is): the cell, the workload
    and the two arms; the schedule (mode, rounds), the saturated and fixed-rate windows' load; the backends' URLs and
    the counted runs' requests."""

    cell: Cell
    workload: Workload
    base: Arm
    candidate: Arm
    mode: str | None
    connections: int
    duration: int
    warmup: int
    rate: float | str | None
    load: float
    rate_duration: int | None
    rounds: int
    backend_env: Mapping[str, str]
    cost_requests: int
    hosts: str | None  # the hosts inventory: the generators on its load hosts (docs/hosts.md); None: this machine
