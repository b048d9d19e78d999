"""What the fuzz tests (test_fuzz_options, test_fuzz_records) share: Hypothesis settings and the census of inputs.

``SERVERBENCH_FUZZ_SCALE=10 pytest tests/unit/fuzz/test_fuzz_*.py -s`` tries ten times the inputs (the deep run
docs/lab/robustness.md reports); the default keeps both files to a few seconds of CPU.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, settings

SCALE = int(os.environ.get("SERVERBENCH_FUZZ_SCALE", "1"))


def fuzz(examples: int) -> settings:
    """Hypothesis settings: ``examples`` inputs (times the scale), no deadline, no example database in the tree.
    The default run is derandomized (the same inputs every run, so the suite's verdict does not depend on luck);
    the deep run (a scale above 1) draws new inputs each time."""
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        database=None,
        derandomize=SCALE == 1,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@pytest.fixture(scope="module")
def census():
    """Inputs tried per parser or reader, printed when the module's tests end (seen with -s)."""
    tried: Counter = Counter()
    yield tried
    print("\nfuzzed inputs: " + ", ".join(f"{k} {n}" for k, n in sorted(tried.items())))
