"""report.phases: a session's time summed by phase, and its slowest tests."""

from __future__ import annotations

from serverbench.report.phases import breakdown, cell_label, lines

TESTS = {
    "t.py::test_throughput[a-json-c64]": {"start": 2.0, "lead-in": 1.0, "window": 2.0},
    "t.py::test_throughput[b-json-c64]": {"lead-in": 8.0, "window": 16.0, "trail": 4.0},
    "t.py::test_throughput[c-json-c64]": {"window": 2.0, "other": 0.5},
}


def test_breakdown_sums_each_phase_and_orders_the_slowest():
    """Seconds per phase over every test; the slowest tests first, each with its own phases."""
    b = breakdown(TESTS, install_s=90.0, slowest=2)
    assert b.tests == 3
    assert b.by_phase == {"start": 2.0, "lead-in": 9.0, "window": 20.0, "trail": 4.0, "other": 0.5}
    assert b.total_s == 35.5
    assert [name for name, _, _ in b.slowest] == [
        "t.py::test_throughput[b-json-c64]",
        "t.py::test_throughput[a-json-c64]",
    ]
    assert b.slowest[0][1] == 28.0
    record = b.to_record()
    assert record["install_s"] == 90.0 and record["by_phase_s"]["window"] == 20.0
    assert record["tests"] == 3
    assert record["by_test"]["t.py::test_throughput[c-json-c64]"] == {"window": 2.0, "other": 0.5}


def test_lines_name_each_phase_with_its_share_and_the_slowest_cells():
    """The text says the total, each phase with its share, and the slowest tests by their cell."""
    text = "\n".join(lines(breakdown(TESTS, install_s=90.0), {n: cell_label(n) for n in TESTS}))
    assert "36 s in 3 tests (install 1 min 30 s before pytest)" in text
    assert "window 20 s (56%)" in text
    assert "slowest: b-json-c64 28 s (window 16 s, lead-in 8 s, trail 4 s)" in text


def test_no_tests_no_lines():
    """A session with no perf test prints no breakdown."""
    assert lines(breakdown({})) == []
