"""The terminal summary (report.terminal): the end-of-session line for cells with no stored timed baseline (one line
naming every way forward), skipped cells, each record's flags, a latency known wrong, and a table whole at any width."""

from serverbench.judge.verdict import Verdict
from serverbench.report.terminal import SUMMARY_COLUMNS, missing_baseline_line, summary_table
from tests.unit.sample_records import default_run
from tests.unit.synthetic import record


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


def test_terminal_summary_shows_each_records_flags_and_what_they_mean():
    """The summary table has a flags column, and one line under it per flag raised."""
    stalled = record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=0.1)
    verdict = Verdict("no-baseline", "no baseline", None, None)
    text = summary_table([(record(), verdict), (stalled, verdict)], [], 200)
    rows = [line for line in text.splitlines() if "v/flask" in line]
    assert "stall" not in rows[0] and "stall" in rows[1]
    assert "stall: server, backends and generator each less than half busy" in text and "docs/checks.md" in text


def test_the_summary_hides_a_latency_the_littles_law_check_knows_is_wrong():
    """gunicorn-sync-w2 on /sleep at c64 (19.6 rps x 2.21 s = 0.68 of the connections, no outside cause): its row shows
    "?" for the latency, and a line under the table says why."""
    r = record(rps=19.6, connections=64, mean=2210.0, server_cpu_s=0.1, gen_cpu_s=0.05, workload="sleep")
    text = summary_table([(r, Verdict("no-baseline", "no baseline", None, None))], [], 200)
    row = next(line for line in text.splitlines() if "v/flask" in line)
    assert "2210" not in row.replace(",", "") and "?" in row and "?: a latency the littles-law check" in text


def test_a_latency_shown_beside_the_littles_law_flag_gets_no_question_mark_line():
    """Little's law off with a cause outside the harness (the kernel dropped connection attempts): the row keeps its
    latency and the littles-law flag, and no line explains a "?" that no row shows."""
    r = record(rps=19.6, connections=64, mean=2210.0, server_cpu_s=0.1, gen_cpu_s=0.05, kernel={"listen_overflows": 9})
    text = summary_table([(r, Verdict("no-baseline", "no baseline", None, None))], [], 200)
    row = next(line for line in text.splitlines() if "v/flask" in line)
    assert "2210.00" in row and "littles-law" in row
    assert "?: a latency" not in text and "littles-law: " in text


def _cells(line: str, rule: str) -> list[str]:
    return [cell.strip() for cell in line.split(rule)[1:-1]]


def test_a_default_runs_summary_is_whole_at_any_width():
    """At 80, 120 and 200 columns and outside a terminal, a default run's 182 rows show every rps, percentile, error
    count and CPU figure whole (no "…"), and every header whole."""
    results = default_run()
    for width in (80, 120, 200, None):
        lines = summary_table(results, [], width).splitlines()
        rows = [_cells(line, "│") for line in lines if line.startswith("│")]
        firsts = [row for row in rows if row[0]]  # a result's first line (a wrapped text column continues below)
        assert len(firsts) == len(results)
        for (r, _), row in zip(results, firsts):
            rps, p50, p99, errors, srv, gen = row[3:9]
            assert rps.startswith(f"{r.rps:,.0f}") and "…" not in "".join(row[3:9])
            assert p50 in ("?", f"{r.load.latency_ms['p50']:.2f}") and p99 in ("?", f"{r.load.latency_ms['p99']:.2f}")
            assert errors.split()[0] == str(sum(r.load.errors.values())) and srv == f"{r.server_cpu_s:.1f}"
            assert gen.startswith(f"{r.generator.cpu_pct:.0f}%")
        heads = [_cells(line, "┃") for line in lines if line.startswith("┃")]
        assert [" ".join(h[i] for h in heads if h[i]) for i in range(len(SUMMARY_COLUMNS))] == [
            c.header for c in SUMMARY_COLUMNS
        ]
        assert "…" not in "".join(lines)
