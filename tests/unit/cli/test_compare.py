"""The CPython-vs-PyPy side-by-side report: matching cells and refusing bad files (pure, no servers)."""

import json

from serverbench.cli.compare import load_records, main, markdown, render, rows
from tests.unit.sample_records import record


def _record(key, rps, impl="cpython", warm=()):
    return record(key, rps, impl=impl, warm=warm)


def _write(path, records):
    path.write_text(json.dumps({"schema": 2, "created": "2026-11-10T00:00:00+00:00", "results": records}))
    return path


def test_cells_are_matched_by_key_and_missing_ones_shown(tmp_path):
    """A cell on both sides gets a ratio; a cell on one side only is kept with None on the other."""
    a = _write(
        tmp_path / "a.json",
        [_record("t::gunicorn-sync-w2/flask/json/c64", 4000.0), _record("t::uwsgi-p2t2/flask/json/c64", 8000.0)],
    )
    b = _write(tmp_path / "b.json", [_record("t::gunicorn-sync-w2/flask/json/c64", 10000.0, "pypy", (5e3, 9e3, 9.9e3))])
    (la, left), (lb, right) = load_records(a), load_records(b)
    assert (la, lb) == ("cpython-3.11.7", "pypy-3.11.7")
    out = rows(left, right)
    assert [(k.split("::")[1], r) for k, _, _, r in out] == [
        ("gunicorn-sync-w2/flask/json/c64", 2.5),
        ("uwsgi-p2t2/flask/json/c64", None),
    ]


def test_main_prints_the_table_with_warmup_rounds(tmp_path, capsys):
    """The report shows both rps, the ratio and PyPy's warm-up rounds."""
    a = _write(tmp_path / "a.json", [_record("t::aiohttp/aiohttp/json/c64", 5000.0)])
    b = _write(tmp_path / "b.json", [_record("t::aiohttp/aiohttp/json/c64", 7500.0, "pypy", (3e3, 7e3, 7.2e3))])
    assert main([str(a), str(b), "--markdown", str(tmp_path / "m.md")]) == 0
    out = capsys.readouterr().out
    assert "1.50x" in out and "3: 3.0k 7.0k 7.2k" in out
    assert "| aiohttp/aiohttp/json/c64 | 5,000 | 7,500 | 1.50x |" in (tmp_path / "m.md").read_text()


def test_a_file_that_is_not_a_result_file_is_refused(tmp_path, capsys):
    """A corrupt or foreign JSON file is an error naming the file (exit 2), not a traceback."""
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main([str(bad), str(bad)]) == 2
    assert "bad.json is not a serverbench --perf-json file" in capsys.readouterr().err
    assert main([str(tmp_path / "none.json"), str(bad)]) == 2
    assert "no such file" in capsys.readouterr().err


def test_the_records_flags_are_shown_beside_their_rps(tmp_path, capsys):
    """A record's consistency flags (judge.checks) appear next to its throughput; an unflagged one shows none."""
    flagged = _record("t::gevent-pywsgi/flask/json/c64", 24.0)
    flagged["flags"] = [{"name": "stall", "reason": "server 2% busy, p50 40 ms"}]
    a = _write(tmp_path / "a.json", [flagged])
    b = _write(tmp_path / "b.json", [_record("t::gevent-pywsgi/flask/json/c64", 3000.0, "pypy")])
    assert main([str(a), str(b), "--markdown", str(tmp_path / "m.md")]) == 0
    assert "| gevent-pywsgi/flask/json/c64 | 24 stall | 3,000 | 125.00x |" in (tmp_path / "m.md").read_text()


# Merged from test_mutation_compare.py: The compare command's table and exit status, exactly (issue 22, mutation
# survivors of cli.compare).
LEFT, RIGHT = "t::aiohttp/aiohttp/json/c64", "t::uwsgi-p2t2/flask/json/c64"


def _sides(tmp_path):
    a = _write(tmp_path / "a.json", [record(LEFT, 5000.0), record(RIGHT, 0.0)])
    b = _write(
        tmp_path / "b.json",
        [
            record(LEFT, 7500.0, impl="pypy", warm=(3e3, 7e3)),
            record(RIGHT, 10.0),
            record("t::bjoern/flask/json/c64", 9000.0),
        ],
    )
    (la, left), (lb, right) = load_records(a), load_records(b)
    return (la, lb), rows(left, right)


def test_markdown_table_exactly(tmp_path):
    """One row per cell, left's first: both rps, the ratio; '-' for a side or a ratio that cannot be given."""
    labels, table = _sides(tmp_path)
    assert markdown(labels, table) == (
        "| cell | cpython-3.11.7 rps | pypy-3.11.7 rps | pypy-3.11.7 / cpython-3.11.7 |\n|---|---:|---:|---:|\n"
        "| aiohttp/aiohttp/json/c64 | 5,000 | 7,500 | 1.50x |\n"
        "| uwsgi-p2t2/flask/json/c64 | 0 | 10 | - |\n"
        "| bjoern/flask/json/c64 | - | 9,000 | - |\n"
    )


def test_rendered_table_has_every_column(tmp_path):
    """The terminal table names both sides' rps, p99 and warm-up rounds and the ratio, one cell per line."""
    labels, table = _sides(tmp_path)
    lines = render(labels, table).splitlines()
    assert lines[0].rstrip() == "serverbench: cpython-3.11.7 vs pypy-3.11.7"
    header = next(line for line in lines if "cell" in line)
    for column in (
        "cpython-3.11.7 rps",
        "p99 ms",
        "warm-up rounds (rps)",
        "pypy-3.11.7 rps",
        "pypy-3.11.7 / cpython-3.11.7",
    ):
        assert column in header
    row = next(line for line in lines if "aiohttp/aiohttp/json/c64" in line).split()
    assert row[2:] == [
        "│",
        "5,000",
        "│",
        "12.5",
        "│",
        "-",
        "│",
        "7,500",
        "│",
        "12.5",
        "│",
        "2:",
        "3.0k",
        "7.0k",
        "│",
        "1.50x",
        "│",
    ]
    assert "t::" not in "".join(lines)


def test_a_generator_saturated_record_is_marked_once(tmp_path):
    """A saturated generator shows 'SAT' once, not again as its flag."""
    rec = record(LEFT, 5000.0)
    rec["generator"]["cpu_s"] = rec["generator"]["wall_s"] * rec["generator"]["cores"]
    rec["flags"] = [{"name": "generator-saturated", "reason": "x"}]
    a, b = _write(tmp_path / "a.json", [rec]), _write(tmp_path / "b.json", [record(LEFT, 5000.0)])
    (la, left), (lb, right) = load_records(a), load_records(b)
    assert (
        markdown((la, lb), rows(left, right)).splitlines()[2]
        == "| aiohttp/aiohttp/json/c64 | 5,000 SAT | 5,000 | 1.00x |"
    )


def test_an_unwritable_markdown_file_is_exit_2(tmp_path, capsys):
    """--markdown naming a folder is an error naming it (exit 2), after the table was printed."""
    a = _write(tmp_path / "a.json", [record(LEFT, 5000.0)])
    assert main([str(a), str(a), "--markdown", str(tmp_path)]) == 2
    assert f"error: --markdown {tmp_path}: cannot write the table there" in capsys.readouterr().err
    assert main([str(a), str(a)]) == 0
    assert main([str(a), str(tmp_path / "none.json")]) == 2


def test_the_terminal_table_exactly(tmp_path):
    """The title flush left, the column heads, numbers right-aligned under them, warm-up rounds left-aligned."""
    labels, table = _sides(tmp_path)
    assert [line.rstrip() for line in render(labels, table, width=140).splitlines()] == [
        "serverbench: cpython-3.11.7 vs pypy-3.11.7",
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┓",
        "┃                           ┃   cpython-3.11.7 ┃        ┃ warm-up       ┃   pypy-3.11.7 ┃        ┃ warm-up       ┃         pypy-3.11.7 / ┃",
        "┃ cell                      ┃              rps ┃ p99 ms ┃ rounds (rps)  ┃           rps ┃ p99 ms ┃ rounds (rps)  ┃        cpython-3.11.7 ┃",
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━┩",
        "│ aiohttp/aiohttp/json/c64  │            5,000 │   12.5 │ -             │         7,500 │   12.5 │ 2: 3.0k 7.0k  │                 1.50x │",
        "│ uwsgi-p2t2/flask/json/c64 │                0 │   12.5 │ -             │            10 │   12.5 │ -             │                     - │",
        "│ bjoern/flask/json/c64     │                - │      - │ -             │         9,000 │   12.5 │ -             │                     - │",
        "└───────────────────────────┴──────────────────┴────────┴───────────────┴───────────────┴────────┴───────────────┴───────────────────────┘",
    ]


def test_a_narrow_terminal_never_wraps_a_cell_name(tmp_path):
    """At 60 columns the headers and warm-up rounds wrap between words; each cell's name, rps, p99 and ratio stays
    whole on its line, and nothing is cut to "…"."""
    labels, table = _sides(tmp_path)
    lines = render(labels, table, width=60).splitlines()
    for name in ("aiohttp/aiohttp/json/c64", "uwsgi-p2t2/flask/json/c64", "bjoern/flask/json/c64"):
        assert any(line.startswith(f"│ {name} ") for line in lines)
    row = next(line for line in lines if "aiohttp/aiohttp" in line).split("│")
    assert [row[i].strip() for i in (2, 3, 5, 6, 8)] == ["5,000", "12.5", "7,500", "12.5", "1.50x"]
    assert "…" not in "".join(lines)


def test_help_names_the_command_and_says_what_it_does(capsys):
    """`serverbench compare --help`: usage under the command's own name, and the module's first line."""
    import pytest

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: serverbench compare ") and "Side by side: the same cells from two --perf-json" in out


def test_labels_too_long_for_200_columns_are_printed_whole():
    """Labels long enough for a wider table: at 200 columns each header keeps its label whole (the table grows past
    200 rather than cut one to "…")."""
    long = ("cpython-" + "x" * 60, "pypy-" + "y" * 60)
    text = render(long, [("t::a/b/json/c64", None, None, None)], 200)
    assert "…" not in text and all(label in text for label in long)


def test_warm_up_rounds_are_shown_in_thousands_to_one_place(tmp_path):
    """Warm-up rounds of 3,052 and 940 rps read '2: 3.1k 0.9k' in the terminal table."""
    a = _write(tmp_path / "a.json", [record(LEFT, 5000.0, warm=(3052.0, 940.0))])
    (la, left), (lb, right) = load_records(a), load_records(a)
    row = next(line for line in render((la, lb), rows(left, right)).splitlines() if "aiohttp" in line)
    assert "2: 3.1k 0.9k" in row
