"""The summary section (report.sections.summary): one sortable row per result and per failure, with its precision,
verdict, flags and error classes; the stored consistency flags; the runs the results came from."""

import dataclasses
from pathlib import Path

from serverbench.catalog.shapes import LoadShape
from serverbench.judge.checks import check
from serverbench.records.results import Failure, ResultsFile, Stored
from serverbench.records.schema import BackendUsage
from serverbench.report.charts import Fold, Note, Table
from serverbench.report.inputs import Inputs
from serverbench.report.sections import select
from serverbench.report.sections.summary import FLAGS_NOTE
from tests.unit.report.sample_inputs import run, section, shaped
from tests.unit.synthetic import record


def test_summary_rows_carry_flags_errors_and_failures():
    """The summary has one sortable row per result and per failure; SAT and error classes are shown."""
    r = shaped("a", 1000, LoadShape(64))
    saturated = dataclasses.replace(r.generator, cpu_s=9.5)  # 95% of 2 cores busy over 5 s
    errors = dataclasses.replace(r.load, errors={**r.load.errors, "timeout": 3, "status": 2})
    r = dataclasses.replace(r, generator=saturated, load=errors)
    failure = Failure("t::x", "b", "flask", "json", 64, "server died")
    table = section(Inputs((run("s", [r], failures=[failure]),), ()), "summary").blocks[0]
    assert isinstance(table, Table) and table.sortable and len(table.rows) == 2
    row = {c.name: cell for c, cell in zip(table.columns, table.rows[0])}
    assert row["flags"].text == "SAT" and row["error classes"].text == "timeout 3, status 2"
    assert table.rows[1][-1].text == "error"


def test_html_summary_shows_the_stored_flags_with_their_messages():
    """A stored record's flags are named in the summary's flags column and listed with their messages."""
    stalled = record(rps=200, connections=8, server_cpu_s=0.3, gen_cpu_s=0.1)
    flags = [f.to_record() for f in check(stalled)]
    run = ResultsFile(
        Path("s.json"),
        2,
        "2026-11-23T00:00:00+00:00",
        {"id": "m"},
        (Stored(stalled, None, stalled.to_record(None, flags)),),
        (),
    )
    summary = next(s for s in select(Inputs((run,), ())) if s.id == "summary")
    table = summary.blocks[0]
    row = {c.name: cell for c, cell in zip(table.columns, table.rows[0])}
    assert row["flags"].text == "stall"
    fold = next(b for b in summary.blocks if isinstance(b, Fold))
    assert fold.blocks[0].rows[0][-1].text == flags[0]["message"]


def summary_row(stored: Stored) -> dict:
    """The summary's first row of one results file holding ``stored``, by column name."""
    file = ResultsFile(Path("s.json"), 2, "2026-11-10T00:00:00+00:00", {"id": "m1"}, (stored,), ())
    table = section(Inputs((file,), ()), "summary").blocks[0]
    return {c.name: cell for c, cell in zip(table.columns, table.rows[0])}


def test_precision_and_verdict_cells_say_what_the_record_holds():
    """Precision shows as '±rps / ±mean' sorted by the rps part, a dash for a side the driver could not tell; a
    stored verdict with a ratio shows its change and a fail is flagged; none gives dashes."""
    r = shaped("a", 1000, LoadShape(64))
    measured = dataclasses.replace(r, load=dataclasses.replace(r.load, precision={"rps": 0.012, "latency_mean": None}))
    row = summary_row(Stored(measured, {"status": "fail", "ratio": 0.9}))
    assert (row["± rps / mean"].text, row["± rps / mean"].sort) == ("±1.2% / -", 0.012)
    assert (row["verdict"].text, row["verdict"].flag) == ("fail (-10.0%)", "fail")
    row = summary_row(Stored(r, {"status": "pass", "ratio": 1.05}))
    assert (row["verdict"].text, row["verdict"].flag) == ("pass (+5.0%)", "")
    row = summary_row(Stored(r, None))
    assert (row["± rps / mean"].text, row["verdict"].text) == ("-", "-")


def test_flags_name_a_bound_backend_and_an_unsettled_warm_up_once_each():
    """A bound backend is 'BND <name>' and an unsettled warm-up 'unsettled'; the stored backend-bound flag is not
    named twice, another stored flag is; the row is marked and the flags are explained."""
    r = shaped("a", 1000, LoadShape(64))
    redis = BackendUsage("redis", "redis", 4.8, 5.0, 1, None)  # 96% of its one core
    r = dataclasses.replace(r, backends=(redis,), warmup_settled=False)
    flags = [{"name": "backend-bound", "message": "redis busy"}, {"name": "stall", "message": "slow"}]
    row = summary_row(Stored(r, None, r.to_record(None, flags)))
    assert (row["flags"].text, row["flags"].flag) == ("BND redis unsettled stall", "sat")
    file = ResultsFile(Path("s.json"), 2, "2026-11-10T00:00:00+00:00", {"id": "m1"}, (Stored(r, None),), ())
    assert Note(FLAGS_NOTE) in section(Inputs((file,), ()), "summary").blocks


def test_several_files_add_a_source_column_and_every_run_is_listed():
    """With two results files each row starts with its source; the last table lists each run's time, machine,
    results and failures; with no flag there is no flags note."""
    first = run("n1", [shaped("a", 1000, LoadShape(64))])
    failure = Failure("t::x", "b", "flask", "json", 64, "server died")
    second = run("n2", [], created="2026-11-11T00:00:00+00:00", machine="m2", failures=[failure])
    s = section(Inputs((first, second), ()), "summary")
    table, runs = s.blocks
    assert table.columns[0].name == "source" and [r[0].text for r in table.rows] == ["n1", "n2"]
    assert table.rows[1][1].text == "b/flask" and table.rows[1][3].text == "c64"
    assert [[c.text for c in r] for r in runs.rows] == [
        ["n1", "2026-11-10T00:00:00+00:00", "m1", "1", "0"],
        ["n2", "2026-11-11T00:00:00+00:00", "m2", "0", "1"],
    ]
    one = section(Inputs((first,), ()), "summary").blocks[0]
    assert one.columns[0].name == "cell"
