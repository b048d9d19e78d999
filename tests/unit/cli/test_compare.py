"""The CPython-vs-PyPy side-by-side report: matching cells and refusing bad files (pure, no servers)."""

import json

from serverbench.cli.compare import load_records, main, rows
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
