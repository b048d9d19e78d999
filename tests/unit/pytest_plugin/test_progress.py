"""The live progress line wired into pytest (pytest_plugin.progress): what it plans and shows per perf test."""


def test_the_plan_counts_each_cells_sized_window_and_ohas_lead_in_and_trail(tmp_path, monkeypatch):
    """bjoern /upstream at 64 connections runs 16 s of lead-in, a 20 s window and a 7 s trail; /json 1 + 5 + 0.25; a
    closed run warms up in its lead-in (no warm-up round), a rate has none around its window but a warm-up round; an
    item with no cell plans the configured duration and a warm-up round."""
    import io
    from types import SimpleNamespace

    from serverbench.catalog.shapes import LoadShape
    from serverbench.catalog.variants import registry
    from serverbench.config import options as cfg
    from serverbench.drivers.oha import OhaDriver
    from serverbench.pytest_plugin.progress import ProgressLine
    from serverbench.session.perf import PerfSession

    monkeypatch.setattr(OhaDriver, "check", lambda self: None)
    session = PerfSession(
        cfg.resolve({"perf_closed_driver": "oha"}, {}, tmp_path), registry(), [], ("json", "upstream")
    )

    def item(n, **params):
        return SimpleNamespace(
            nodeid=f"t{n}", name=f"t{n}", fixturenames=("perf_trial",), callspec=SimpleNamespace(params=params)
        )

    items = [
        item(0, perf_variant="bjoern", perf_workload="upstream", perf_shape=LoadShape(64, 5)),
        item(1, perf_variant="bjoern", perf_workload="json", perf_shape=LoadShape(64, 5)),
        item(2, perf_variant="bjoern", perf_workload="json", perf_shape=LoadShape(64, 5, rate=100.0)),
        item(3),
    ]
    line = ProgressLine(None, session, io.StringIO())
    line.pytest_collection_finish(SimpleNamespace(items=items))
    start, warm = 2.0, session.config.warmup * session.warmup_rounds
    assert line._planned == [start + 16 + 20 + 7, start + 1 + 5 + 0.25, start + warm + 5, start + warm + 2]


def test_a_perf_test_is_described_by_its_cell_workload_and_shape():
    """variant/app workload shape; a --perf-target run has no app; a test with no cell is its name; only a test using
    perf_trial is a perf test."""
    from types import SimpleNamespace

    from serverbench.catalog.shapes import LoadShape
    from serverbench.pytest_plugin.progress import describe, is_perf

    def item(**params):
        return SimpleNamespace(
            name="test_x[...]", fixturenames=("perf_trial",), callspec=SimpleNamespace(params=params)
        )

    cell = dict(perf_variant="bjoern", perf_workload="json", perf_shape=LoadShape(64, 5, rate=200.0))
    assert describe(item(perf_app="flask", **cell)) == "bjoern/flask json r200"
    assert describe(item(perf_app="", **cell)) == "bjoern json r200"
    assert describe(SimpleNamespace(name="test_plain")) == "test_plain"
    assert is_perf(item()) and not is_perf(SimpleNamespace(name="test_plain", fixturenames=("tmp_path",)))


def test_a_terminal_that_went_away_turns_the_line_off_instead_of_failing_the_test():
    """Writing to a closed terminal stream drops the stream; nothing is drawn with no perf test running."""
    import io

    from serverbench.pytest_plugin.progress import ProgressLine

    closed = io.StringIO()
    closed.close()
    line = ProgressLine(None, None, closed)
    line._write("text")
    assert line._out is None
    quiet = io.StringIO()
    ProgressLine(None, None, quiet).draw()
    assert line.status() is None and quiet.getvalue() == ""
