"""measure.bisect, counting one commit of a bisection: what it reads of the plan is the plan's."""

from __future__ import annotations

from dataclasses import fields

from serverbench.bisect.plan import BisectPlan
from serverbench.measure.bisect import Bisection


def test_a_count_reads_only_what_a_bisect_plan_holds():
    """Every field counting a commit reads (measure.bisect.Bisection, below the plan's floor) is a BisectPlan field,
    and the plan has the app_dir it calls: a renamed field fails here, not in a bisection's first count."""
    assert set(Bisection.__annotations__) <= {f.name for f in fields(BisectPlan)}
    assert callable(BisectPlan.app_dir)
