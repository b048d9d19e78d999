"""The rate ladder (report.sections.rates): latency percentiles against the offered rate with the knee marked, and
achieved against offered beside the line of keeping up."""

from serverbench.catalog.shapes import LoadShape
from serverbench.report.charts import LineChart, Note, Series
from serverbench.report.inputs import Inputs
from tests.unit.report.sample_inputs import ids, run, section, shaped


def test_rate_ladder_marks_the_knee():
    """p99 jumps past 3x the lowest rate's at 400 req/s: the knee mark is there, percentiles are lines."""
    results = [
        shaped("a", rate, LoadShape(256, rate=rate), p99=p99)
        for rate, p99 in ((100, 2.0), (200, 2.5), (400, 9.0), (800, 50.0))
    ]
    s = section(Inputs((run("s", results),), ()), "rates")
    ladder = [b for b in s.blocks if isinstance(b, LineChart)][1]
    assert [m.x for m in ladder.marks] == [400]
    assert [x.name for x in ladder.series] == ["p50", "p90", "p99", "p999"]


def test_achieved_against_offered_and_the_knee_of_a_server_that_falls_behind():
    """The offered line (dashed, grey) runs through every rate offered; each cell is a line of achieved rps; a cell
    that keeps up has no knee and no mark, one achieving under 95% of 400 req/s has its knee there."""
    results = [shaped("a", rate, LoadShape(64, rate=rate), p99=2.0) for rate in (100, 200, 400)]
    results += [shaped("b", got, LoadShape(64, rate=rate), p99=2.0) for rate, got in ((100, 100), (400, 300))]
    s = section(Inputs((run("s", results),), ()), "rates")
    achieved, a, b, note = s.blocks
    assert achieved.series == (
        Series("offered (keeping up)", ((100, 100), (200, 200), (400, 400)), dashed=True, muted=True),
        Series("a/flask json", ((100, 100.0), (200, 200.0), (400, 400.0))),
        Series("b/flask json", ((100, 100.0), (400, 300.0))),
    )
    assert a.title == "Latency against offered rate: a/flask json" and a.marks == ()
    assert [(m.x, m.label) for m in b.marks] == [(400, "knee 400 req/s")]
    assert note == Note("a/flask json: no knee up to 400 req/s; b/flask json: knee at 400 req/s")


def test_a_single_rate_is_no_ladder():
    """A cell run at one offered rate (and closed-model runs) gives no rates section."""
    results = [shaped("a", 100, LoadShape(64, rate=100)), shaped("a", 900, LoadShape(64))]
    assert "rates" not in ids(Inputs((run("s", results),), ()))
