"""Memory kept per request read from a run of the cell's server without valgrind."""

import os

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.measure.counting.cost import CostPlan
from serverbench.measure.counting.keptmemory import anonymous, measure_kept


def test_a_processs_anonymous_memory_is_read_and_a_gone_one_is_none():
    """This process holds anonymous memory; a process that is gone has none to read."""
    assert anonymous(os.getpid()) > 0
    assert anonymous(2**22 + 1) is None


def test_a_leak_reads_as_its_bytes_per_request_and_no_leak_as_almost_none(apps_dir, monkeypatch):
    """waitress-t4 on flask's /json over 500 requests without valgrind: the leak knob's 2,000 bytes a request read
    about 2,000; with the knob off, less than the judge's 256-byte floor.  The server is stopped either way."""
    monkeypatch.delenv("SERVERBENCH_LEAK_BYTES", raising=False)
    plan = CostPlan(registry()["waitress-t4"], APPS["flask"], WORKLOADS["json"], requests=50, apps_dir=apps_dir)
    kept, absent = measure_kept(plan, requests=500)
    assert absent == "" and 0 <= kept < 256, kept
    leaked, _ = measure_kept(CostPlan(**{**vars(plan), "env": {"SERVERBENCH_LEAK_BYTES": "2000"}}), requests=500)
    assert 1800 < leaked < 2400, leaked


def test_a_run_that_fails_leaves_the_count_and_says_why_memory_kept_is_absent(apps_dir, tmp_path):
    """A server that cannot start without valgrind (gunicorn, its app folder empty: it exits at once): the count
    keeps its instructions and its memory kept is absent with the reason, never zero."""
    from serverbench.measure.counting.keptmemory import with_kept
    from serverbench.records.cost import CostRecord

    record = CostRecord(
        "n", "gunicorn-sync-w2", "flask", "json", "/json", 50, 1000, (), (), {}, 1.0, kept_per_request=9
    )
    plan = CostPlan(registry()["gunicorn-sync-w2"], APPS["flask"], WORKLOADS["json"], requests=50, apps_dir=tmp_path)
    kept = with_kept(record, plan, 100)
    assert kept.instructions == 1000 and kept.kept_per_request is None
    assert kept.kept_absent.startswith("the run without valgrind that reads memory kept failed: "), kept.kept_absent
