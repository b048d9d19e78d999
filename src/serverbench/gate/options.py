"""What a door asks of the gate, before anything is checked: :class:`GateOptions`, the values as given, and the
arguments that read how a gate measures and judges, declared once for every door that passes them
(``serverbench gate``'s command line and ``serverbench bisect --gate-args``).

:mod:`serverbench.gate.resolve` checks each value and turns them into a plan; nothing here judges a value beyond
its type, so the same mistake gets the same message whichever door it came through.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..backends import base as backends
from ..config.options import OPTIONS_BY_NAME, hosts_from
from ..judge.ab import GATE_BLOCKS, GATE_POLICY
from .plan import DEFAULT_LOAD, ABPlan

COST_REPEATS = 1  # counted runs per arm, both at once (a second each when the first pair is ambiguous)

# Options the gate shares with the pytest session: declared once in the option table, the gate's own
# defaults given in the same rows (config.Option.context_defaults).
SHARED = (
    "perf_duration",
    "perf_warmup",
    "perf_connections",
    "perf_max_error_rate",
    *(b.url_option for b in backends.BACKENDS.values()),
)


@dataclass(frozen=True)
class GateOptions:
    """One gate as a door asks for it, every value as given: the cell (``variant``, ``app`` and ``workload`` of the
    reference apps, or a project's ``endpoints``), where each arm's code (``repo``, ``base_ref``), interpreter and
    environment (``NAME=VALUE`` items) come from, and how it is measured and judged.  ``shared``: the text of each
    option the gate shares with the pytest session, by its name in the option table (None: the gate's default);
    ``rate``: ``auto``, ``off`` or requests/s; ``alpha``, ``cells``, ``min_effect`` and ``cost_repeats`` None:
    the default (with ``--rejudge``: the stored one).  ``hosts``: the hosts inventory (docs/hosts.md) the door
    resolved (config.options.hosts_from); None: this machine alone."""

    variant: str | None = None
    app: str | None = None
    workload: str | None = None
    endpoints: tuple[str, ...] = ()
    repo: str = "."
    base_ref: str | None = None
    base_python: str = sys.executable
    cand_python: str = sys.executable
    base_env: tuple[str, ...] = ()
    cand_env: tuple[str, ...] = ()
    mode: str | None = None
    blocks: int = GATE_BLOCKS
    rounds: int = ABPlan.rounds
    shared: Mapping[str, str | None] = field(default_factory=dict)
    rate: str = "auto"
    load: float = DEFAULT_LOAD
    alpha: float | None = None
    cells: int | None = None
    min_effect: float | None = None
    retries: int = 0
    cost_repeats: int | None = None
    hosts: Path | None = None

    @classmethod
    def of(cls, args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> GateOptions:
        """The options a parser read: this module's arguments (:func:`add_arguments`) and those of the door's own
        it has (the cell, where the arms' code comes from; ``endpoint``, repeatable, the endpoints); the hosts
        inventory from ``environ`` (SERVERBENCH_HOSTS), read here, once, as the pytest options read it."""
        given = vars(args)
        named = {f.name: given[f.name] for f in fields(cls) if f.name in given}
        for name in ("base_env", "cand_env"):
            named[name] = tuple(named.get(name, ()))
        return cls(
            **named,
            endpoints=tuple(given.get("endpoint") or ()),
            shared={name: given[name] for name in SHARED if given.get(name) is not None},
            hosts=hosts_from(environ),
        )


def add_arguments(p: argparse.ArgumentParser) -> None:
    """How the arms run, the options shared with the pytest session, and how the gate judges."""
    _add_arm_options(p)
    _add_shared_options(p)
    _add_judge_options(p)


def _add_arm_options(p: argparse.ArgumentParser) -> None:
    """Each arm's environment, simultaneous or sequential, and the blocks."""
    for flag, arm in (("--base-python", "base"), ("--cand-python", "candidate")):
        p.add_argument(
            flag,
            default=sys.executable,
            metavar="PYTHON",
            help=f"the {arm} arm's interpreter: a venv's bin/python, or a version (3.13, 3.13t, pypy3.10) whose "
            "environment serverbench makes from the project's uv.lock with uv, caches and reuses (docs/interpreters.md)",
        )
    p.add_argument("--base-env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--cand-env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--mode", choices=("simultaneous", "sequential"))
    p.add_argument(
        "--blocks",
        type=int,
        default=GATE_BLOCKS,
        help="the most fresh-server blocks (one pair each when simultaneous, two when sequential); the judge looks "
        "after the fewest that can show a regression at half of alpha, and after all of them",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=ABPlan.rounds,
        help="rounds per block and phase, both arms at once on their own cores (default 2: the cores swap within each "
        "block; 1 alternates them from block to block, half the windows)",
    )


def _add_shared_options(p: argparse.ArgumentParser) -> None:
    """The options the gate shares with the pytest session (SHARED), each with the gate's own default."""
    for name in SHARED:
        option = OPTIONS_BY_NAME[name]
        default = option.default_in("gate")
        here = (
            f" Here: one count, default {default[0]}."
            if isinstance(default, tuple)
            else ""
            if default is None
            else f" Default here: {default}."
        )
        p.add_argument(
            option.command_flag, dest=name, metavar=name.removeprefix("perf_").upper(), help=option.help + here
        )


def _add_judge_options(p: argparse.ArgumentParser) -> None:
    """What is measured and how it is judged: the fixed rate, alpha, cells, the smallest effect, retries and
    the counted cost's repeats."""
    p.add_argument(
        "--rate",
        default="auto",
        help="requests/s per arm of the latency and CPU-per-request windows: 'auto' "
        "(--load x the base throughput), a number, or 'off'",
    )
    p.add_argument(
        "--load",
        type=float,
        default=DEFAULT_LOAD,
        help="the fixed rate as a fraction of the base arm's saturated throughput (auto rate)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        help=f"family-wise false-failure budget of the whole suite run "
        f"(default {GATE_POLICY.alpha:g}; with --rejudge: the stored one)",
    )
    p.add_argument(
        "--cells",
        type=int,
        help="how many cells this suite run gates (alpha is split between them; "
        "default 1; with --rejudge: the stored number)",
    )
    p.add_argument(
        "--min-effect",
        type=float,
        help=f"smallest change that fails (default {GATE_POLICY.min_effect:g}; with --rejudge: the stored one)",
    )
    p.add_argument(
        "--retries",
        type=int,
        default=0,
        help="measure a too-noisy or inconclusive decision again this many times (alpha is split between the attempts)",
    )
    p.add_argument(
        "--cost-repeats",
        type=int,
        default=None,
        help="fresh counted runs (valgrind, instructions per request) per arm, before any timed block: 1 counts "
        "each arm once (twice when ambiguous), 2 or more gate against their own A/A spread; 0: none "
        f"(default {COST_REPEATS} when valgrind is installed, else 0)",
    )
