"""The end-of-session line for cells with no stored timed baseline: one line naming every way forward."""

from serverbench.report.terminal import missing_baseline_line


def test_the_line_names_saving_the_gate_and_the_cost_test():
    """It says the throughput went unjudged and names --perf-save-baseline, `serverbench gate` (not ./run, which only
    this repository has) and -m cost."""
    line = missing_baseline_line(3, "amd-epyc-2c")
    assert line.startswith("3 result(s) have no stored baseline for machine amd-epyc-2c")
    assert "not judged" in line
    for way in ("--perf-save-baseline", "`serverbench gate`", "pytest -m cost", "travel"):
        assert way in line
    assert "./run" not in line
    assert "\n" not in line
