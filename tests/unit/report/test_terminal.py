"""The end-of-session line for cells with no stored timed baseline: one line naming every way forward."""

from serverbench.config import options as cfg
from serverbench.pytest_plugin.session import PerfSession
from serverbench.report.terminal import missing_baseline_line, summary_table


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


# Merged from test_summary_skips.py: Skipped cells in the end-of-session summary: a row each, with the reason and its
# install line.
def test_skipped_cell_is_a_row_with_its_reason():
    """A cell skipped for every workload is one row marked skipped, its whole reason printed below the table."""
    reason = "uwsgi-p2t2/shop needs pyuwsgi which /venv/bin/python cannot import: `pip install pyuwsgi`"
    text = summary_table([], [], 120, skipped={("uwsgi-p2t2/shop", reason): ["home", "create"]})
    row = next(line for line in text.splitlines() if "uwsgi-p2t2/shop" in line and "skipped [1]" in line)
    assert "home,create" in row
    assert f"skipped [1] uwsgi-p2t2/shop: {reason}" in text


def test_session_records_each_skip_once_per_workload(tmp_path):
    """record_skip keeps the cell, its reason and each workload once, and hands the reason back for pytest.skip."""
    session = PerfSession(cfg.resolve({}, {}, tmp_path), {}, [], ("json",))
    for workload in ("json", "json", "plaintext"):
        assert session.record_skip("v/app", workload, "not installed: pip install v") == "not installed: pip install v"
    assert session.skipped == {("v/app", "not installed: pip install v"): ["json", "plaintext"]}
