"""benchmarks/hosts_matrix.py: the whole matrix across hosts against loopback, counted and paired cell by cell."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import script, stale_renders


def _record(key: str, rps: float, cpu: float | None, flags=(), requests: int = 100, duration: float = 2.0) -> dict:
    return {
        "key": key,
        "rps": rps,
        "requests": requests,
        "duration_s": duration,
        "server": {"cpu_s": cpu},
        "flags": [{"name": f, "message": "m"} for f in flags],
    }


def test_the_committed_block_is_the_rendered_one():
    """docs/hosts.md's hosts-matrix block is what the results files render."""
    stale = stale_renders(script("hosts_matrix.py"))
    assert not stale, f"{stale}: run `python benchmarks/hosts_matrix.py render` and commit the result"


def test_counts_name_failures_skips_the_watched_flags_and_a_zero_cpu_only_where_the_cell_served():
    """A server CPU of 0 is counted only on a cell that served requests (None is not 0); each watched flag is
    counted once per cell that raised it."""
    file = {
        "results": [
            _record("a", 100, 0.0, ("neighbours", "stall")),
            _record("b", 100, 0.0, requests=0),
            _record("c", 100, None, ("neighbours",)),
            _record("d", 100, 1.0, ("generator-saturated", "littles-law")),
        ],
        "failures": [{"cell": "x"}],
        "skipped": [{"cell": "y"}, {"cell": "z"}],
    }
    said = script("hosts_matrix.py").counts(file)
    assert said == {
        "results": 4,
        "failures": 1,
        "skipped": 2,
        "generator-saturated": 1,
        "neighbours": 2,
        "stall": 1,
        "zero_cpu": ["a"],
        "over_errors": [],
    }


def test_cells_are_paired_by_key_and_listed_only_beyond_a_quarter_apart():
    """Cells pair by their key (a cell in one mode only is left out); a ratio within 25% is not listed; the listed
    ones come lowest ratio first, with the server's loopback cores (CPU s per window s) and each mode's flags."""
    loopback = {
        "results": [
            _record("k1", 1000, 3.0, duration=2.0),
            _record("k2", 1000, 1.0),
            _record("k3", 1000, 1.0),
            _record("only-here", 1000, 1.0),
        ]
    }
    across = {
        "results": [
            _record("k1", 400, 1.0, ("stall",)),
            _record("k2", 1200, 1.0),
            _record("k3", 1300, 1.0),
            _record("only-there", 10, 1.0),
        ]
    }
    rows = script("hosts_matrix.py").apart(loopback, across)
    assert [(r["key"], r["ratio"], r["loopback_cores"], r["across_flags"]) for r in rows] == [
        ("k1", 0.4, 1.5, ["stall"]),
        ("k3", 1.3, 0.5, []),
    ]


def test_a_cell_above_the_error_limit_is_named_and_cells_the_cores_explain_are_only_counted():
    """A record whose error rate is above the default limit is named as failed by it (at the limit it is not); of the
    cells apart, one whose server used more than one core on loopback is counted, not listed."""
    mod = script("hosts_matrix.py")
    over, at = _record("over", 10, 1.0), _record("at", 10, 1.0)
    over["error_rate"], at["error_rate"] = mod.ERROR_LIMIT * 1.5, mod.ERROR_LIMIT
    assert mod.counts({"results": [over, at]})["over_errors"] == ["over"]
    loopback = {"results": [_record("busy", 1000, 3.0), _record("calm", 1000, 1.0)]}
    across = {"results": [_record("busy", 400, 1.0), _record("calm", 400, 1.0)]}
    times = {"loopback": 60.0, "across": 90.0}
    text = mod.table(loopback, across, times)
    assert "In 1 of them the server used more than" in text
    assert "| calm |" in text and "| busy |" not in text


def test_flags_are_todays_judges_read_from_the_kept_records():
    """The committed default run with its flags taken off gets back the flags its session wrote, record by record:
    the render re-judges the kept records rather than trusting stored flags."""
    mod = script("hosts_matrix.py")
    kept = mod.read(mod.LOOPBACK)
    bare = {**kept, "results": [{**r, "flags": []} for r in kept["results"]]}
    again = mod.judged(bare)["results"]
    assert [mod.flag_names(r) for r in again] == [mod.flag_names(r) for r in kept["results"]]
    assert any(mod.flag_names(r) for r in again)
