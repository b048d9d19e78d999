"""Connection reuse (report.sections.reuse): the same cell kept alive and closed after N requests, as bars of one
category, each setting's throughput as a share of keep-alive's."""

import dataclasses

from serverbench.catalog.shapes import LoadShape
from serverbench.report.charts import BarChart, Note
from serverbench.report.inputs import Inputs
from serverbench.report.sections.reuse import reuse_label
from tests.unit.report.sample_inputs import ids, run, section, shaped


def test_reuse_compares_keep_alive_with_a_connection_per_request():
    """Keep-alive and one request per connection of one cell become two bars of one category."""
    results = [shaped("a", 3000, LoadShape(64)), shaped("a", 1000, LoadShape(64, requests_per_connection=1))]
    s = section(Inputs((run("s", results),), ()), "reuse")
    chart = s.blocks[0]
    assert isinstance(chart, BarChart)
    assert [(b.group, b.value) for b in chart.bars] == [("keep-alive", 3000.0), ("1 request per connection", 1000.0)]
    assert "33% of keep-alive" in s.blocks[1].text


def test_reuse_labels():
    """No limit is keep-alive; one request is singular; more are counted."""
    assert [reuse_label(n) for n in (None, 1, 10)] == [
        "keep-alive",
        "1 request per connection",
        "10 requests per connection",
    ]


def test_settings_run_from_keep_alive_to_fewest_requests_per_connection():
    """Keep-alive, then 10, then 1 request per connection, whatever order they ran in; the note gives each as a share
    of keep-alive; a saturated generator's bar says SAT."""
    one = shaped("a", 1000, LoadShape(64, requests_per_connection=1))
    one = dataclasses.replace(one, generator=dataclasses.replace(one.generator, cpu_s=9.5))
    results = [one, shaped("a", 3000, LoadShape(64)), shaped("a", 2400, LoadShape(64, requests_per_connection=10))]
    chart, note = section(Inputs((run("s", results),), ()), "reuse").blocks
    assert [(b.label, b.group, b.value, b.note) for b in chart.bars] == [
        ("a/flask json c64", "keep-alive", 3000.0, ""),
        ("a/flask json c64", "10 requests per connection", 2400.0, ""),
        ("a/flask json c64", "1 request per connection", 1000.0, "SAT"),
    ]
    assert note == Note(
        "a/flask json c64: 10 requests per connection 80% of keep-alive, 1 request per connection 33% of keep-alive"
    )


def test_without_keep_alive_there_is_no_share_and_other_connection_counts_are_not_compared():
    """Two closing settings of one cell are bars with no note; keep-alive at c32 is not compared with closing at
    c64; one setting alone gives no section."""
    closing = [
        shaped("a", 1000, LoadShape(64, requests_per_connection=1)),
        shaped("a", 2000, LoadShape(64, requests_per_connection=10)),
    ]
    s = section(Inputs((run("s", closing),), ()), "reuse")
    assert len(s.blocks) == 1 and len(s.blocks[0].bars) == 2
    apart = [shaped("a", 3000, LoadShape(32)), closing[0]]
    assert "reuse" not in ids(Inputs((run("s", apart),), ()))
