"""serverbench compare: N results files side by side, ratios to a reference, and bad input refused (no servers)."""

import json

import pytest

from serverbench.cli.compare import load, main, markdown, render
from serverbench.report.sidebyside import file_sides
from tests.unit.sample_records import record

LEFT, RIGHT = "t::aiohttp/aiohttp/json/c64", "t::uwsgi-p2t2/flask/json/c64"


def _write(path, records, version="3.11.7", **extra):
    data = {"schema": 2, "created": "2026-11-10T00:00:00+00:00", "results": records, **extra}
    for r in records:
        r["python"]["version"] = version
    path.write_text(json.dumps(data))
    return path


def _three(tmp_path):
    """3.11 (the first), 3.13 and PyPy; uwsgi does not run on PyPy (stored as skipped), 3.13 counted instructions."""
    a = _write(tmp_path / "py311.json", [record(LEFT, 5000.0), record(RIGHT, 4000.0)])
    cost = {"variant": "aiohttp", "app": "aiohttp", "workload": "json", "instructions": 3_000_000, "requests": 10}
    b = _write(tmp_path / "py313.json", [record(LEFT, 6000.0), record(RIGHT, 2000.0)], "3.13.0", cost=[cost])
    skip = {"cell": "uwsgi-p2t2/flask", "workload": "json", "reason": "uwsgi-p2t2 does not run on pypy"}
    c = _write(tmp_path / "pypy3.json", [record(LEFT, 7500.0, impl="pypy")], "3.9.18", skipped=[skip])
    return a, b, c


def test_every_file_is_a_side_and_ratios_are_to_the_first(tmp_path, capsys):
    """Three files: one line per cell and file, each figure's ratio to the first file's, 'ref' on the first's."""
    files = _three(tmp_path)
    assert main([str(f) for f in files]) == 0
    out = capsys.readouterr().out
    assert out.startswith("serverbench: cpython-3.11.7 vs cpython-3.13.0 vs pypy-3.9.18; ratios to cpython-3.11.7")
    ref = next(line for line in out.splitlines() if "cpython-3.11.7 (ref)" in line)
    assert "5,000" in ref and "ref" in ref.split("│")[4]
    py313 = [line.split("│") for line in out.splitlines() if line.startswith("│") and "cpython-3.13.0 " in line]
    assert [cells[3].strip() for cells in py313] == ["6,000", "2,000"] and py313[0][4].strip() == "1.20x"
    assert py313[0][9].strip() == "300,000"  # the cost record's instructions per request


def test_a_cell_an_interpreter_cannot_run_keeps_its_row_with_the_reason(tmp_path):
    """uwsgi on PyPy: a dash for each figure and the reason the run stored."""
    runs, _ = load(_three(tmp_path), missing_ok=False)
    text = markdown(file_sides(runs), 0)
    row = next(line for line in text.splitlines() if line.startswith("|  | pypy-3.9.18 |") and "not run on" in line)
    assert row.split(" | ")[2:4] == ["-", "-"] and row.endswith("uwsgi-p2t2 does not run on pypy |")


def test_the_reference_is_named_by_interpreter_or_file(tmp_path):
    """--reference 3.13 (a prefix of a label's version) or the file's name moves 'ref' and the ratios to it."""
    files = [str(f) for f in _three(tmp_path)]
    runs, _ = load(_three(tmp_path), missing_ok=False)
    sides = file_sides(runs)
    for name in ("3.13", "cpython-3.13.0", "py313.json", files[1]):
        assert main([*files, "--reference", name, "--markdown", str(tmp_path / "m.md")]) == 0
        lines = (tmp_path / "m.md").read_text().splitlines()
        assert "| aiohttp/aiohttp/json/c64 | cpython-3.11.7 | 5,000 | 0.83x |" in lines[2]
    assert "ratios to cpython-3.13.0" in render(sides, 1).splitlines()[0]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        ([], "compare takes two or more --perf-json files, got 0"),
        (["A"], "compare takes two or more --perf-json files, got 1"),
        (
            ["A", "B", "--reference", "3.12"],
            "--reference '3.12' names no side; give one of: cpython-3.11.7, cpython-3.13.0",
        ),
        (["A", "BAD"], "BAD.json is not a serverbench --perf-json file"),
        (["A", "NONE"], "NONE.json: no such file; write one with `pytest -m perf --perf-json"),
    ],
)
def test_bad_input_is_one_line_naming_the_fix_and_exit_2(tmp_path, capsys, argv, said):
    """Fewer than two files, an unknown reference, a file that is not a records file, a missing one: exit 2."""
    a, b, _ = _three(tmp_path)
    (tmp_path / "BAD.json").write_text("{not json")
    paths = {"A": str(a), "B": str(b), "BAD": str(tmp_path / "BAD.json"), "NONE": str(tmp_path / "NONE.json")}
    assert main([paths.get(x, x) for x in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and said in err and err.count("\n") == 1


def test_a_file_not_written_is_named_not_compared_with_missing_ok(tmp_path, capsys):
    """--missing-ok: a tox env skipped for a missing interpreter wrote no file; it is named under the title."""
    a, b, _ = _three(tmp_path)
    absent = tmp_path / "perf-py314.json"
    assert main([str(a), str(b), str(absent), "--missing-ok"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].rstrip() == f"not compared: {absent} (not written: its run was skipped)"
    assert lines[2].strip() == f"cpython-3.11.7: {a}, written 2026-11-10T00:00:00+00:00"  # a stale file shows its age
    assert main([str(absent), str(tmp_path / "perf-py315.json"), "--missing-ok"]) == 2
    assert "none of the 2 files was written" in capsys.readouterr().err


def test_two_files_of_one_interpreter_are_told_apart_by_their_names(tmp_path):
    """A dependency bump: the same interpreter twice, each side labelled with its file's name too."""
    a = _write(tmp_path / "before.json", [record(LEFT, 5000.0)])
    b = _write(tmp_path / "after.json", [record(LEFT, 4000.0)])
    runs, _ = load([a, b], missing_ok=False)
    assert [s.label for s in file_sides(runs)] == ["cpython-3.11.7 (before)", "cpython-3.11.7 (after)"]


def test_flags_and_the_gil_turned_on_are_shown_beside_the_cell(tmp_path):
    """A record's flags follow its rps; a free-threaded run whose GIL came back names the module that did it."""
    flagged = record(LEFT, 24.0)
    flagged["flags"] = [{"name": "stall", "message": "server 2% busy"}]
    free = record(LEFT, 3000.0)
    free["python"]["free_threaded"] = True
    free["gil"] = {"enabled": True, "enabled_by": ["httptools.parser.parser"], "processes": 1}
    a, b = _write(tmp_path / "a.json", [flagged]), _write(tmp_path / "b.json", [free], "3.13.0")
    runs, _ = load([a, b], missing_ok=False)
    text = markdown(file_sides(runs), 0)
    assert "| 24 stall | ref |" in text
    assert "| cpython-3.13.0t |" in text and "GIL on (httptools.parser.parser) |" in text


def test_an_unwritable_markdown_file_is_exit_2(tmp_path, capsys):
    """--markdown naming a folder is an error naming it (exit 2), after the table was printed."""
    a, b, _ = _three(tmp_path)
    assert main([str(a), str(b), "--markdown", str(tmp_path)]) == 2
    assert f"error: --markdown {tmp_path}: cannot write the table there" in capsys.readouterr().err


def test_a_narrow_terminal_never_cuts_a_number(tmp_path):
    """At 80 columns headers wrap between words; every figure stays whole and nothing is cut to '…'."""
    runs, _ = load(_three(tmp_path), missing_ok=False)
    text = render(file_sides(runs), 0, width=80)
    assert "…" not in text and "7,500" in text and "1.50x" in text


def test_help_names_the_command_and_says_what_it_does(capsys):
    """`serverbench compare --help`: usage under the command's own name, and the module's first line."""
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: serverbench compare ") and "Side by side: the same cells from N --perf-json" in out
