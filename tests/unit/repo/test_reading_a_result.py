"""benchmarks/reading_a_result.py: docs/reading-a-result.md's samples are serverbench's own renderers' output on
committed runs (the session table, the gate's comment, the cost verdict), and the committed page is their render."""

import gzip
import json

from serverbench.records import decisions, results
from tests.unit.repo.benchmark_scripts import script, stale_lines
from tests.unit.report.sample_decisions import cost_record, counted
from tests.unit.sample_records import result

READING = script("reading_a_result.py")


def hand_made_results(tmp_path, cost=()):
    """TEST INPUT, made by hand (not a measurement): three results of two variants, one of them not in the sample,
    and ``cost`` records beside them."""
    path = tmp_path / "records.json"
    records = [
        result("test_closed::gunicorn-sync-w2/flask/json/c64", 3200.0),
        result("test_closed::aiohttp/aiohttp/json/c64", 7000.0),
        result("test_closed::uvicorn/raw-asgi/json/c64", 9800.0),
    ]
    results.write(path, {"id": "m1", "cpu": "a hand-made CPU", "cores": 2}, [(r, None) for r in records], [], "0")
    if cost:
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "cost": list(cost)}))
    return path


def test_the_session_sample_is_the_summary_table_of_the_chosen_servers(tmp_path):
    """Only SESSION_VARIANTS' rows, under the summary table's own header, with the no-baseline line pytest prints."""
    path = hand_made_results(tmp_path)
    block = READING.session_block(READING.read_results(path), path)
    assert "┃ variant" in block and "gunicorn-sync-w2/flask" in block and "aiohttp/aiohttp" in block
    assert "uvicorn" not in block
    assert "2 result(s) have no stored baseline for machine m1" in block
    assert "on a hand-made CPU, 2 cores" in block


def test_the_gate_sample_is_the_comment_on_the_decision_file(tmp_path):
    """The decision file's comment as `serverbench ci` posts it: its marker, the verdict heading, the signal table,
    the machine its windows name (none here: the machine unnamed), read from a gzipped file too."""
    path = tmp_path / "decision.json.gz"
    plain = tmp_path / "decision.json"
    decisions.write(plain, counted())
    path.write_bytes(gzip.compress(plain.read_bytes()))
    block = READING.gate_block(READING.read_decision(path), path)
    assert block.startswith("```markdown\n<!-- serverbench ci: . -->\n### serverbench gate: ✗ regression\n")
    assert "| instructions per request (counted) |" in block
    assert "measured an unrecorded date" in block


def test_the_cost_sample_is_each_records_verdict_or_says_none_is_committed(tmp_path):
    """A committed cost records file renders each cell's verdict line and message; none committed, the block says
    so and names the file to commit (never a sample typed in), not as a cited path a clone lacks."""
    path = hand_made_results(tmp_path, cost=[cost_record(112_400.0)])
    block = READING.cost_block(READING.read_results(path).cost, path)
    assert "✗ `list` under waitress-t4: +12.4% instructions per request" in block
    assert "cost rose beyond tolerance" in block
    none = READING.cost_block(None, tmp_path / "results" / "cost.json.gz")
    assert none.startswith("No `pytest -m cost` records are committed") and "in results/ as cost.json.gz" in none


def test_a_stale_block_is_named_by_page_and_line(tmp_path):
    """A page whose block differs from the render is named with the line of its first difference."""
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n<!-- BEGIN MEASURED: reading-cost (by `x`) -->\nold\n<!-- END MEASURED: reading-cost -->\n"
    )
    rendered = READING.render(page, write=False, cost=tmp_path / "none.json.gz")
    assert stale_lines(rendered) == [f"{page}:4"]


def test_the_committed_page_is_the_render_of_the_committed_files():
    """docs/reading-a-result.md's blocks are what the committed records, decision file and cost records render."""
    stale = stale_lines(READING.render(write=False))
    assert not stale, f"stale: {', '.join(stale)}: run `{READING.COMMAND}` and commit the result"
