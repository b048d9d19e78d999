"""benchmarks/memory.py: the memory tables of docs/memory.md are rendered from its summary, and what a tree's sample
keeps of its processes."""

from tests.unit.repo.benchmark_scripts import script, stale_renders


def test_the_committed_memory_tables_are_the_rendered_ones():
    """Rendering docs/memory.md from benchmarks/results/memory-summary.json changes nothing: no figure of its
    tables was typed by hand or left behind by a newer run."""
    stale = stale_renders(script("memory.py"))
    assert not stale, f"{stale}: run `python benchmarks/memory.py render` and commit the result"


def test_a_tree_keeps_its_masters_pages_and_its_median_workers():
    """The master (the parent) keeps its PSS and USS; the workers their median RSS, PSS and USS; one process or no
    parent gives nothing to show."""
    processes = script("memory.py").processes
    rows = [
        {"parent": True, "pss_mb": 12.4, "uss_mb": 3.0, "rss_mb": 56.0},
        {"parent": False, "pss_mb": 14.0, "uss_mb": 6.0, "rss_mb": 49.3},
        {"parent": False, "pss_mb": 11.7, "uss_mb": 3.0, "rss_mb": 48.8},
        {"parent": False, "pss_mb": 11.8, "uss_mb": 2.9, "rss_mb": 48.7},
    ]
    assert processes(rows) == {
        "master": {"pss_mb": 12.4, "uss_mb": 3.0},
        "worker": {"rss_mb": 48.8, "pss_mb": 11.8, "uss_mb": 3.0},
    }
    assert processes(rows[:1]) == {}
    assert processes(rows[1:]) == {}
