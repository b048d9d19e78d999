"""measure.trials.arms: an A/B measurement's two arms, and what its runner reads of the plan that pairs them."""

from __future__ import annotations

from dataclasses import fields

from serverbench.gate import plan
from serverbench.measure.trials.arms import Arm, RunnerPlan


def test_the_runner_reads_only_what_an_ab_plan_holds():
    """Every field the runner reads (measure.trials.arms.RunnerPlan, below the plan's floor) is a gate.plan.ABPlan field: a
    renamed field fails here, not in a gate's first block."""
    assert set(RunnerPlan.__annotations__) <= {f.name for f in fields(plan.ABPlan)}


def test_the_plan_pairs_the_runners_arms():
    """The gate's plan holds the runner's Arm (one class, not a copy), with its defaults: this interpreter, apps/."""
    assert plan.Arm is Arm
    arm = Arm("base")
    assert (arm.label, arm.apps_dir.name, dict(arm.env), arm.reset) == ("base", "apps", {}, None)
