"""Skipped cells in the end-of-session summary: a row each, with the reason and its install line."""

from serverbench.config import options as cfg
from serverbench.pytest_plugin.session import PerfSession
from serverbench.report.terminal import summary_table


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
