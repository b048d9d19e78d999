"""What one bisection runs, resolved and validated in one place before anything starts: the :class:`BisectPlan`.

The range (every commit from the good end to the bad one, each with its lock file's id), the cell (a
variant serving the reference app or the user's ``perf_app``, on one workload or endpoint), the threshold
and how many requests each count covers.  :mod:`serverbench.measure.counting.bisect` counts commits of it,
:mod:`serverbench.judge.bisect` says which to count next and what was found.  Every problem is reported
at once, each naming its fix.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog.matrix import Cell
from ..catalog.userapp import AppTarget
from ..catalog.workloads import Workload
from ..config.options import OPTIONS_BY_NAME
from ..errors import ConfigError
from ..measure.counting.callgrind import valgrind_missing
from ..measure.serving.servers import unavailable_reason
from ..measure.trees.commits import Commit
from ..processes.executors import missing_modules_in

DEFAULT_THRESHOLD = OPTIONS_BY_NAME["perf_cost_tolerance"].default  # the cost gate's: 2%
DEFAULT_REQUESTS = OPTIONS_BY_NAME["perf_cost_requests"].default


def default_threshold(cell: Cell) -> float:
    """The cost gate's tolerance, with the variant's own floor (a variant whose A/A spread needs a wider one)."""
    return max(DEFAULT_THRESHOLD, cell.variant.cost_tolerance or 0.0)


def threshold_of(text: str | None, cell: Cell) -> float:
    """``--threshold`` as given (None: :func:`default_threshold`), a fraction in (0, 1)."""
    if text is None:
        return default_threshold(cell)
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise ConfigError(bad_threshold(text))
    return value


def bad_threshold(given: object) -> str:
    return f"--threshold {given!r}: give a fraction in (0, 1), such as 0.02 for 2%"


@dataclass(frozen=True)
class BisectPlan:
    """One bisection: ``commits[0]`` the good end, ``commits[-1]`` the bad end, each counted in a worktree of
    ``repo`` with the app imported from ``app_folder`` (relative to the checkout: ``apps`` for the reference
    apps, the user's ``perf_app_dir``).  ``env``: the app's own variables (a user's ``perf_app_env``); the
    backends' URLs are added when they are started, under the names ``backend_vars`` gives them.  ``setup`` and
    ``reset``: a user's ``perf_app_setup`` and ``perf_app_reset``, run in each commit's own folder before its server.  ``user``: the cell is the user's app (its pytest configuration in ``project``)."""

    repo: Path
    commits: tuple[Commit, ...]
    cell: Cell
    workload: Workload
    threshold: float
    requests: int = DEFAULT_REQUESTS
    app_folder: str = "apps"
    python: str = sys.executable
    lock_path: str = "uv.lock"
    env: Mapping[str, str] = field(default_factory=dict)
    setup: str | None = None
    reset: AppTarget | None = None
    backend_vars: Mapping[str, str] | None = (
        None  # a user's perf_app_backends (backend -> variable); None: the registry's
    )
    user: bool = False
    project: str = "."  # the folder of the user's pytest configuration, relative to the checkout

    def __post_init__(self) -> None:
        problems = self.problems()
        if len(problems) == 1:
            raise ConfigError(problems[0])
        if problems:
            raise ConfigError(f"the bisection has {len(problems)} problems:\n  " + "\n  ".join(problems))

    @property
    def last(self) -> int:
        return len(self.commits) - 1

    @property
    def name(self) -> str:
        """The cell as records name it: ``gunicorn-sync-w2/flask json``."""
        return f"{self.cell.name} {self.workload.name}"

    def app_dir(self, checkout: Path) -> Path:
        return Path(checkout) / self.app_folder

    def problems(self) -> list[str]:
        out = []
        if not (isinstance(self.threshold, float) and 0 < self.threshold < 1):
            out.append(bad_threshold(self.threshold))
        try:
            OPTIONS_BY_NAME["perf_cost_requests"].parse(str(self.requests))
        except ValueError as exc:
            out.append(f"--requests {self.requests!r}: {exc}")
        if len(self.commits) < 2:
            out.append("the range holds no commit after the good end: give a --bad newer than --good")
        return out + self._cell_problems()

    def _cell_problems(self) -> list[str]:
        """Whether this cell can be counted here at all: valgrind, a Python server, its packages in --python."""
        variant, app = self.cell.variant, self.cell.app
        missing = valgrind_missing()
        if missing:
            return [f"instructions cannot be counted here: {missing}"]
        if app.runtime != "python":
            return [
                f"{self.cell.name}: a {app.runtime} app; instructions are counted for Python servers only: "
                "bisect a Python variant (--variant)"
            ]
        out = []
        if not variant.serves(app):
            out.append(
                f"{variant.name} loads {variant.interface} apps and {app.name} is {app.interface}: pick another --variant"
            )
        if self.workload.mix:
            out.append(f"workload {self.workload.name} is a mix of URLs; a count sends one: pick a one-URL --workload")
        unserved = app.lacks(e.name for e in self.workload.specs)
        if unserved:
            out.append(f"{app.name} does not serve {', '.join(unserved)}: pick another --workload")
        reason = unavailable_reason(variant, app)
        if reason and (variant.unsupported or variant.programs):
            out.append(reason)
        try:
            lacking = missing_modules_in(self.python, list(dict.fromkeys(variant.requires + app.requires)))
        except ConfigError as exc:
            return out + [str(exc)]
        if lacking:
            out.append(
                f"{self.python} cannot import {', '.join(lacking)}, which {self.cell.name} needs: install them "
                f"there ({variant.install or 'pip install ' + ' '.join(lacking)}) or give --python an environment "
                "that has them"
            )
        return out
