"""The attribution a failing cost test prints, for one injected regression.

    flock -s /tmp/serverbench-load.lock .venv/bin/python benchmarks/cost_attribution.py gunicorn-sync-w2 3000

Counts the variant's reference app with the apps' work knob (SERVERBENCH_WORK_ITERS, apps/injected_work.py)
at 1 iteration as the baseline and at 1 + N iterations as the candidate, each with its Python-level
profile, and prints the verdict exactly as ``pytest -m cost`` would.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from cost_detect import BASE_ITERS, ROOT

from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.judge.cost import judge_cost
from serverbench.measure.counting.cost import CostPlan, measure_cost
from serverbench.measure.counting.pytrace import profile_python
from serverbench.records.cost import CostBaseline


def counted(variant: str, iters: int):
    v = registry()[variant]
    plan = CostPlan(
        v, v.default_app, WORKLOADS["json"], apps_dir=ROOT / "apps", env={"SERVERBENCH_WORK_ITERS": str(iters)}
    )
    return replace(measure_cost(plan), python_functions=profile_python(plan))


def main(variant: str, iters: int) -> None:
    base, candidate = counted(variant, BASE_ITERS), counted(variant, BASE_ITERS + iters)
    baseline = CostBaseline(
        base.key,
        base.per_request,
        base.packages,
        base.functions,
        base.python_functions,
        base.timestamp,
        base.python_per_request,
    )
    verdict = judge_cost(candidate, baseline, tolerance=0.02)
    print(
        f"{candidate.key}: SERVERBENCH_WORK_ITERS={BASE_ITERS + iters} against a baseline at {BASE_ITERS}: "
        f"{verdict.status}"
    )
    print(verdict.report())


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
