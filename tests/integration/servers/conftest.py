"""What the tests of real servers share: one trial of a freshly started server (served_trial)."""

from __future__ import annotations

from contextlib import nullcontext

import pytest

from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.measure.host.machine import python_info
from serverbench.measure.serving.servers import start_variant
from serverbench.measure.trials.trial import Trial, Warmup, run_trial

VARIANTS = registry()


@pytest.fixture
def served_trial(apps_dir):
    """``served_trial(variant, shape, driver)``: start ``variant`` (a name or a Variant) on the reference apps, run one
    trial of ``workload`` after ``warmup`` seconds of warm-up, stop the server on every exit path, return the Result.
    ``env``: the server's; ``machine``: the record's (none by default); ``during``: a context manager factory called
    with the running server, held around the trial (a test that kills the server mid-run)."""

    def run(variant, shape, driver, *, workload="json", warmup=0, env=None, machine=None, during=None):
        server = start_variant(VARIANTS[variant] if isinstance(variant, str) else variant, apps_dir=apps_dir, env=env)
        try:
            with (during or nullcontext)(server):
                return run_trial(
                    Trial(
                        server,
                        WORKLOADS[workload],
                        shape,
                        driver,
                        nodeid="t",
                        test="t",
                        machine=machine or {},
                        python=python_info(),
                    ),
                    Warmup(warmup),
                )
        finally:
            server.stop()

    return run
