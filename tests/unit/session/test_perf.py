"""The perf session (session.perf): the drivers and windows it sizes per cell, the closed-model driver it picks,
the skips it records and what it reads from the environment."""

import pytest

from serverbench.catalog.shapes import LoadShape
from serverbench.catalog.variants import registry
from serverbench.config import options as cfg
from serverbench.drivers.oha import OhaDriver
from serverbench.session.perf import PerfSession

VARIANTS = registry()


def _session(tmp_path, closed="wrk"):
    return PerfSession(
        cfg.resolve({"perf_closed_driver": closed}, {}, tmp_path), VARIANTS, [], ("json", "upstream", "site")
    )


def test_the_session_gives_each_closed_cell_its_sized_driver(tmp_path, monkeypatch):
    """A closed cell's driver carries its cell's timeout from its own lead-in and trail (oha's sized to the queue, at
    least --perf-warmup's 1 s and 0.25 s; wrk none) and the shape's duration; a rate, an unnamed variant or a cell with no designed queue
    keeps 5 s."""
    monkeypatch.setattr(OhaDriver, "check", lambda self: None)
    session = _session(tmp_path, "oha")
    closed = LoadShape(64, 5)
    assert session.driver_for(closed, "upstream", "meinheld").timeout_s == 41  # 16 s lead-in + 5 + 7 s trail + 2 x 6.4
    assert session.driver_for(closed, "upstream", "meinheld").lead_s == 16
    assert session.driver_for(closed, "upstream", "meinheld").trail_s == 7
    assert session.driver_for(closed, "upstream", "meinheld").name == "oha"
    assert session.driver_for(LoadShape(64, 10), "upstream", "meinheld").timeout_s == 46
    assert session.driver_for(closed, "json", "meinheld").lead_s == 1  # --perf-warmup's 1 s
    assert session.driver_for(closed, "json", "meinheld").trail_s == 0.25
    assert session.driver_for(closed, "json", "meinheld").timeout_s == 5
    assert session.driver_for(closed, "upstream", "aiohttp").timeout_s == 5
    assert session.driver_for(closed, "upstream").timeout_s == 5  # the plugin's check of every driver
    assert session.driver_for(closed, "upstream", "target").timeout_s == 5  # a --perf-target server
    assert session.driver_for(LoadShape(64, 5, rate=100.0), "upstream", "meinheld").timeout_s == 5
    site = session.driver_for(closed, "site", "meinheld")
    assert site.name == "wrk" and site.timeout_s == 5
    wrk = _session(tmp_path, "wrk").driver_for(closed, "upstream", "bjoern")
    assert wrk.name == "wrk" and wrk.timeout_s == 18


def test_the_session_keeps_one_driver_per_size(tmp_path, monkeypatch):
    """Cells sized alike share one driver (it reads its binary's version once); another size is another driver, and a
    driver with nothing to size is the session's own for its kind."""
    monkeypatch.setattr(OhaDriver, "check", lambda self: None)
    session = _session(tmp_path, "oha")
    closed = LoadShape(64, 5)
    queued = session.driver_for(closed, "upstream", "meinheld")
    assert session.driver_for(closed, "upstream", "bjoern") is queued  # the same queue: the same sizes
    assert session.driver_for(LoadShape(64, 10), "upstream", "meinheld") is not queued
    assert session.driver_for(closed, "json", "aiohttp") is session.driver_for(closed)


def test_the_session_runs_a_closed_cell_for_its_sized_window_and_leaves_other_shapes_alone(tmp_path, monkeypatch):
    """cell_shape lengthens a closed model's window on a cell with a designed queue and nothing else: a rate, a locust
    shape, a cell with no queue and an unknown server keep the shape as asked (the same object)."""
    monkeypatch.setattr(OhaDriver, "check", lambda self: None)
    session = PerfSession(
        cfg.resolve({"perf_closed_driver": "oha"}, {}, tmp_path), VARIANTS, [], ("json", "upstream", "site")
    )
    closed = LoadShape(64, 5)
    assert session.cell_shape(closed, "upstream", "bjoern") == LoadShape(64, 20)
    assert session.cell_shape(LoadShape(64, 5, requests_per_connection=1), "upstream", "bjoern") == LoadShape(
        64, 20, requests_per_connection=1
    )
    for shape, workload, variant in (
        (closed, "json", "bjoern"),
        (closed, "upstream", "aiohttp"),
        (closed, "upstream", "target"),
        (LoadShape(64, 5, rate=10.0), "upstream", "bjoern"),
        (LoadShape(64, 5, workers=0), "upstream", "bjoern"),
    ):
        assert session.cell_shape(shape, workload, variant) is shape, (shape, workload, variant)
    sized = session.driver_for(session.cell_shape(closed, "upstream", "bjoern"), "upstream", "bjoern")
    assert (sized.lead_s, sized.trail_s, sized.timeout_s) == (16, 7, 56)  # 16 + 20 + 7 + 2 x 6.4 = 55.8
    warm = session.driver_for(closed, "json", "bjoern", warm=True)
    assert (warm.lead_s, session.driver_for(closed, "upstream", "bjoern", warm=True).lead_s) == (0.5, 16)
    assert session.driver_for(closed, "json", "bjoern") is session.driver_for(closed, "json", "aiohttp")


def test_the_session_refuses_a_ceiling_under_a_selected_cells_queue_before_anything_starts(tmp_path):
    """gunicorn-sync-w2 on /upstream at 64 connections queues 3.2 s (a pool: a window of two queues, 6.4 s): a 3 s
    --perf-window-max is a usage error naming the cell and the fix; 5 s is a notice; 7 s says nothing."""
    from serverbench.catalog.matrix import Cell
    from serverbench.errors import ConfigError

    cells = [Cell(VARIANTS["gunicorn-sync-w2"], VARIANTS["gunicorn-sync-w2"].default_app)]

    def session(ceiling: int) -> PerfSession:
        config = cfg.resolve({"perf_window_max": str(ceiling)}, {}, tmp_path)
        return PerfSession(config, VARIANTS, cells, ("json", "upstream"))

    with pytest.raises(
        ConfigError,
        match=r"--perf-window-max 3 s is shorter than the designed queue of "
        r"gunicorn-sync-w2/flask upstream c64 \(queue 3\.2 s\).*--perf-connections",
    ):
        session(3).check_ceiling()
    capped = session(5)
    capped.check_ceiling()
    assert capped.notices == [
        "--perf-window-max 5 s is shorter than the windows sized to the designed queues of gunicorn-sync-w2/flask "
        "upstream c64 (queue 3.2 s, window 5 s): their windows' edges weigh more (docs/load-shapes.md)"
    ]
    fine = session(7)
    fine.check_ceiling()
    assert fine.notices == []


def test_auto_runs_the_closed_model_on_oha_when_it_is_installed(tmp_path, monkeypatch):
    """The default (auto) picks oha when found; a URL mix (site) still runs on wrk, and the machine id names oha."""
    from serverbench.catalog.shapes import LoadShape

    monkeypatch.setattr(OhaDriver, "check", lambda self: None)
    monkeypatch.setattr(OhaDriver, "version", "1.16.0")
    session = _session(tmp_path, "auto")
    assert session.closed_driver == "oha" and not session.notices
    assert session.driver_for(LoadShape(64, 5), "json").name == "oha"
    assert session.driver_for(LoadShape(64, 5), "site").name == "wrk"
    assert session.machine["id"].endswith("-oha-1.16.0")


def test_auto_without_oha_runs_wrk_and_says_so(tmp_path, monkeypatch):
    """Without oha, auto falls back to wrk and leaves a notice naming oha's install and what wrk's window shows."""
    from serverbench.catalog.shapes import LoadShape
    from serverbench.errors import MissingBinaryError

    def missing(self):
        raise MissingBinaryError("oha (the open-model load generator)", fix="cargo install oha --locked")

    monkeypatch.setattr(OhaDriver, "check", missing)
    session = _session(tmp_path, "auto")
    assert session.driver_for(LoadShape(64, 5), "json").name == "wrk"
    assert len(session.notices) == 1 and "cargo install oha" in session.notices[0] and "'?'" in session.notices[0]


def test_an_explicit_closed_driver_is_not_second_guessed(tmp_path, monkeypatch):
    """--perf-closed-driver wrk keeps wrk even with oha installed (a wrk baseline stays comparable)."""
    from serverbench.catalog.shapes import LoadShape

    monkeypatch.setattr(OhaDriver, "check", lambda self: None)
    assert _session(tmp_path, "wrk").driver_for(LoadShape(64, 5), "json").name == "wrk"


def test_session_records_each_skip_once_per_workload(tmp_path):
    """record_skip keeps the cell, its reason and each workload once, and hands the reason back for pytest.skip."""
    session = PerfSession(cfg.resolve({}, {}, tmp_path), {}, [], ("json",))
    for workload in ("json", "json", "plaintext"):
        assert session.record_skip("v/app", workload, "not installed: pip install v") == "not installed: pip install v"
    assert session.skipped == {("v/app", "not installed: pip install v"): ["json", "plaintext"]}


def test_a_session_whose_every_cell_was_skipped_still_writes_its_file_with_the_reasons(tmp_path):
    """A server that does not run on this interpreter keeps its row: --perf-json holds each skip, its reason and the
    session's interpreter, with no result."""
    from serverbench.records import results

    out = tmp_path / "perf.json"
    session = PerfSession(cfg.resolve({"perf_json": str(out)}, {}, tmp_path), {}, [], ("json",))
    session.record_skip("meinheld/flask", "json", "meinheld does not run on CPython 3.13 or later")
    session.finish()
    written = results.read(out)
    assert written.results == () and written.python == session.python
    assert [(s.cell, s.workload, s.reason) for s in written.skipped] == [
        ("meinheld/flask", "json", "meinheld does not run on CPython 3.13 or later")
    ]


def test_the_install_time_is_read_from_run_only_when_it_is_a_number_of_seconds(monkeypatch):
    """SERVERBENCH_INSTALL_S gives the install time ./run measured; unset, not a number or negative, there is none."""
    from serverbench.session.perf import INSTALL_VAR, install_seconds

    monkeypatch.delenv(INSTALL_VAR, raising=False)
    assert install_seconds() is None
    for raw, seconds in (("12.5", 12.5), ("0", 0.0), ("soon", None), ("-1", None), ("", None)):
        monkeypatch.setenv(INSTALL_VAR, raw)
        assert install_seconds() == seconds, raw


def test_warmup_rounds_are_the_settings_else_one_on_cpython(tmp_path):
    """--perf-warmup-rounds decides; without it CPython warms up for one round (PyPy's JIT for ten)."""
    assert PerfSession(cfg.resolve({"perf_warmup_rounds": "3"}, {}, tmp_path), {}, [], ()).warmup_rounds == 3
    import platform

    unset = PerfSession(cfg.resolve({}, {}, tmp_path), {}, [], ()).warmup_rounds
    assert unset == (10 if platform.python_implementation() == "PyPy" else 1)
