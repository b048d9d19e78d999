"""A gate's options resolved into its :class:`GatePlan`, every value checked before anything starts.

The one place a door's :class:`~serverbench.gate.options.GateOptions` become a plan: what the arms serve
(:mod:`.served`), the options shared with the pytest session (parsed by the option table), the policy, the fixed
rate, enough blocks to ever reach the policy's significance level, the counted cost's repeats and each arm's
environment.  ``serverbench gate`` and ``serverbench bisect`` (its confirmation, and its ``--gate-args`` before it
counts) both call :func:`resolve`, so a mistake is refused with the same message from either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..backends import base as backends
from ..catalog.workloads import Workload
from ..config.options import OPTIONS_BY_NAME, parse_option
from ..errors import ConfigError
from ..judge.ab import GATE_POLICY, min_blocks
from ..judge.decision import Policy
from ..measure.counting.callgrind import valgrind_missing
from ..measure.host.interpreter import describe_of
from ..measure.serving.interpreters import Maker, is_version, lock_of
from ..measure.trials.arms import Arm
from ..report import gate as report
from .options import COST_REPEATS, SHARED, GateOptions
from .plan import ABPlan, default_mode, pairs_per_block
from .served import Served, served


@dataclass(frozen=True)
class GatePlan:
    """Every decision one gate runs, resolved before anything starts: what both arms serve (one decision per
    workload), the git ref the base arm's code comes from (None: the working tree, as the candidate's), each arm's
    interpreter and the environment given it (its app folder is known once the base is checked out), the backends
    given by URL (by name; None: started), and ``settings``, the :class:`~serverbench.gate.plan.ABPlan` fields
    every decision shares."""

    served: Served
    base_ref: str | None
    base: Arm
    candidate: Arm
    urls: Mapping[str, str | None]
    settings: Mapping[str, Any]

    def arms(self, base_root: Path, urls: Mapping[str, str]) -> tuple[Arm, Arm]:
        """Base and candidate serving the app's folder of ``base_root`` and of the working tree, each with the app's
        environment (the started backends' ``urls`` under its names) and its own, and the app's reset."""
        return tuple(
            replace(
                arm,
                apps_dir=self.served.app_dir(root),
                env={**self.served.server_env(urls), **arm.env},
                reset=self.served.reset,
            )
            for arm, root in ((self.base, base_root), (self.candidate, self.served.top))
        )

    def decision(self, workload: Workload, arms: tuple[Arm, Arm], backend_env: Mapping[str, str]) -> ABPlan:
        """The plan of the decision on ``workload`` (validated there: the arms' interpreters, the variant's packages)."""
        return ABPlan(self.served.cell, workload, *arms, backend_env=backend_env, **self.settings)


def resolve(options: GateOptions) -> GatePlan:
    """The plan ``options`` ask for, or a ConfigError naming each mistake and its fix; nothing is started."""
    what = served(Path(options.repo), options.variant, options.app, options.workload, options.endpoints, "gate")
    return plan_for(what, options)


def plan_for(what: Served, options: GateOptions) -> GatePlan:
    """The gate of ``what`` under ``options``: its policy split between the workloads (unless ``cells`` is
    given), every value checked in the order a person reads the command line."""
    shared = shared_options(options)
    policy = policy_of(options, replace(GATE_POLICY, cells=len(what.workloads)))
    rate = rate_of(options.rate)
    check_blocks(options, policy, rate)
    settings = {
        "mode": options.mode,
        "blocks": options.blocks,
        "rounds": options.rounds,
        "connections": shared["perf_connections"][0],
        "duration": shared["perf_duration"],
        "warmup": shared["perf_warmup"],
        "rate": rate,
        "load": options.load,
        "policy": policy,
        "retries": options.retries,
        "max_error_rate": shared["perf_max_error_rate"],
        "cost_repeats": cost_repeats(options, what),
        "cost_requests": ABPlan.cost_requests if what.cost_requests is None else what.cost_requests,
        "hosts": None if options.hosts is None else str(options.hosts),
    }
    base_python, cand_python = arm_pythons(what, options)
    return GatePlan(
        what,
        options.base_ref,
        Arm("base", base_python, env=env_of(options.base_env)),
        Arm("candidate", cand_python, env=env_of(options.cand_env)),
        {b.name: shared[b.url_option] for b in backends.BACKENDS.values()},
        settings,
    )


def arm_pythons(what: Served, options: GateOptions, maker: Maker | None = None) -> tuple[str, str]:
    """Each arm's interpreter: a path as given (checked to be an interpreter), or for a version (``3.13``) the
    environment made from the project's lock for it (the base arm's from the lock at --base-ref), cached and reused.
    Every arm is checked (installed, the lock resolves for it) before either environment is made."""
    given = (("--base-python", options.base_python, options.base_ref), ("--cand-python", options.cand_python, None))
    versions = [(flag, text, ref) for flag, text, ref in given if is_version(text)]
    for flag, text, _ in given:
        if not is_version(text):
            try:
                describe_of(text)
            except ConfigError as exc:  # a path that is not an interpreter: the message names what to give
                raise ConfigError(f"{flag} {exc}") from None
    if not versions:
        return options.base_python, options.cand_python
    maker = maker if maker is not None else Maker(Path(options.repo))
    folder = next((f for f in (Path(options.repo), what.top) if (f / "uv.lock").exists()), Path(options.repo))
    locks = {flag: lock_of(folder, ref) for flag, _, ref in versions}
    for flag, text, _ in versions:
        maker.check(text, flag, locks[flag])
    made = {flag: maker.environment(text, flag, locks[flag]) for flag, text, _ in versions}
    return made.get("--base-python", options.base_python), made.get("--cand-python", options.cand_python)


def env_of(items: Sequence[str]) -> dict[str, str]:
    """``--base-env`` / ``--cand-env`` items, ``NAME=VALUE`` each (split at the first ``=``)."""
    bad = [i for i in items if "=" not in i]
    if bad:
        raise ConfigError(f"--base-env / --cand-env settings must look like NAME=VALUE, got {bad}")
    return dict(i.split("=", 1) for i in items)


def rate_of(text: str) -> float | str | None:
    """``--rate``: ``auto``, ``off`` (None) or requests/s > 0."""
    if text in ("auto", "off"):
        return None if text == "off" else "auto"
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (value > 0 and math.isfinite(value)):
        raise ConfigError(f"--rate {text!r}: give requests/s > 0 per arm (finite), 'auto' or 'off'")
    return value


def cost_repeats(options: GateOptions, what: Served) -> int:
    """--cost-repeats, else the default when valgrind can count here (and a note when it cannot)."""
    if options.cost_repeats is not None:
        if options.cost_repeats < 0:
            raise ConfigError(
                f"--cost-repeats {options.cost_repeats}: use 0 (no cost signal), 1 (one count per arm, a second when "
                "ambiguous) or 2 or more (each arm's own A/A spread sets the limit)"
            )
        return options.cost_repeats
    if what.cell.app.runtime != "python":
        report.no_cost_signal("instructions are counted for Python servers only")
        return 0
    missing = valgrind_missing()
    if missing:
        report.no_cost_signal(missing)
        return 0
    return COST_REPEATS


def shared_options(options: GateOptions) -> dict[str, Any]:
    """The shared options' values: given (parsed by the table's parser), else the gate's default.  Every bad
    value is reported at once."""
    values, problems = {}, []
    for name in SHARED:
        raw = options.shared.get(name)
        try:
            values[name] = OPTIONS_BY_NAME[name].default_in("gate") if raw is None else parse_option(name, raw, "gate")
        except ConfigError as exc:
            problems.append(str(exc))
    if not problems and len(values["perf_connections"]) != 1:
        problems.append(
            f"--connections takes one count in the gate (both arms at once), "
            f"got {','.join(map(str, values['perf_connections']))}"
        )
    if problems:
        raise ConfigError("\n".join(problems))
    return values


def policy_of(options: GateOptions, policy: Policy) -> Policy:
    """``policy`` with the limits given (``--alpha``, ``--cells``, ``--min-effect``)."""
    given = {"alpha": options.alpha, "cells": options.cells, "min_effect": options.min_effect}
    try:
        return replace(policy, **{k: v for k, v in given.items() if v is not None})
    except ValueError as exc:
        raise ConfigError(f"--alpha / --cells / --min-effect: {exc}") from None


def check_blocks(options: GateOptions, policy: Policy, rate: float | str | None) -> None:
    """Enough blocks to ever reach the split significance level (before anything starts)."""
    mode = options.mode or default_mode()
    policy = replace(policy, alpha=policy.alpha / (max(options.retries, 0) + 1))  # split between the attempts
    fewest = min_blocks(policy, rate is not None, pairs_per_block(mode))
    if options.blocks < fewest:
        raise ConfigError(
            f"--blocks {options.blocks} gives {pairs_per_block(mode) * options.blocks} pairs ({mode}), "
            "too few to ever reach the "
            f"significance level alpha {policy.alpha:g} / ({policy.cells} cells x gated signals): "
            f"use --blocks {fewest} or more (or a larger --alpha / fewer --cells)"
        )
