"""benchmarks/refs_slice.py: a records file's cells as the slice reads them, and the comparison of two commits."""

from __future__ import annotations

import json

from tests.unit.repo.benchmark_scripts import script


def test_the_slice_reads_timed_cells_by_test_and_counted_cells_by_cell(tmp_path):
    """Timed results are keyed by variant/app/workload/test (a locust cell and a wrk cell of one workload apart) with
    their rate and flag names; counted ones by variant/app/workload with their instructions per request."""
    records = tmp_path / "r.json"
    records.write_text(
        json.dumps(
            {
                "results": [
                    {"variant": "v", "app": "a", "workload": "json", "test": "t1", "rps": 10.0, "flags": []},
                    {
                        "variant": "v",
                        "app": "a",
                        "workload": "json",
                        "test": "t2",
                        "rps": 5.0,
                        "flags": [{"name": "z"}],
                    },
                ],
                "cost": [{"variant": "v", "app": "a", "workload": "json", "instructions_per_request": 900.0}],
            }
        )
    )
    cells = script("refs_slice.py").cells
    assert cells(records) == {
        "v/a/json/t1": {"rps": 10.0, "flags": []},
        "v/a/json/t2": {"rps": 5.0, "flags": ["z"]},
    }
    assert cells(records, "cost") == {"v/a/json": {"instructions_per_request": 900.0}}


def test_the_comparison_is_b_over_a_of_the_medians_and_of_the_counts():
    """B/A of each commit's median rate over its rounds, and of the counted instructions; a cell only one commit ran
    has no ratio."""
    compare = script("refs_slice.py").compare
    timed = {
        "A": [
            {"c": {"rps": 100.0, "flags": []}},
            {"c": {"rps": 120.0, "flags": []}},
            {"c": {"rps": 90.0, "flags": []}},
        ],
        "B": [{"c": {"rps": 110.0, "flags": []}, "only": {"rps": 1.0, "flags": []}}],
    }
    counted = {"A": {"k": {"instructions_per_request": 1000.0}}, "B": {"k": {"instructions_per_request": 1010.0}}}
    out = compare(timed, counted, ["A", "B"])
    assert out["timed"]["c"]["ratio"] == 1.1 and out["timed"]["c"]["rps"] == {"A": [100.0, 120.0, 90.0], "B": [110.0]}
    assert out["timed"]["only"]["ratio"] is None
    assert out["counted"]["k"] == {"instructions_per_request": {"A": 1000.0, "B": 1010.0}, "ratio": 1.01}
