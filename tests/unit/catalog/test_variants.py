import pytest

from serverbench.catalog.variants import ENGINES, MODELS, ROW, VARIANTS, Engine, registry, validate
from serverbench.errors import ConfigError
from tests.unit.sample_variants import variant


def test_declared_variants_are_valid():
    """The shipped variant table passes validation."""
    assert validate(VARIANTS) == []
    assert set(registry()) >= {
        "werkzeug-threaded",
        "gunicorn-sync-w2",
        "gunicorn-gthread-t10",
        "gunicorn-gthread-t100",
        "gunicorn-gevent-w2",
        "gunicorn-asgi-w2",
        "uwsgi-p2t2",
        "aiohttp",
        "wsgiref",
        "gevent-pywsgi",
        "gevent-pywsgi-nodelay",
        "meinheld",
        "bjoern",
        "tornado",
        "cheroot-t10",
        "waitress-t4",
        "twisted-wsgi",
        "paste-t10",
        "uvicorn",
        "granian-wsgi",
        "granian-asgi",
        "hypercorn",
        "eventlet-wsgi",
    }
    assert {f"gunicorn-gthread-t{t}" for t in (10, 20, 50, 100, 200, 400, 800, 1000)} <= set(registry())


def test_validation_reports_every_problem_in_one_pass():
    """Unknown interface, unknown template field, bad interpreter and a duplicate are all listed together."""
    bad = [
        variant(interface="cgi"),
        variant(name="y", command=("{python}", "{colour}")),
        variant(name="z", interpreters=("jython",)),
        variant(name="z"),
    ]
    problems = validate(bad)
    text = "\n".join(problems)
    assert "interface 'cgi' is not one of" in text
    assert "{colour}" in text
    assert "jython" in text
    assert "declared twice" in text


def test_a_variant_serves_only_apps_of_its_interface():
    """A WSGI server serves flask and django but not the aiohttp or raw ASGI app."""
    from serverbench.catalog.apps import APPS

    v = variant()
    assert v.serves(APPS["flask"]) and v.serves(APPS["django"])
    assert not v.serves(APPS["aiohttp"]) and not v.serves(APPS["raw-asgi"])
    assert v.default_app.name == "flask"


def test_registry_raises_config_error():
    """Invalid declarations stop the run with a ConfigError listing them."""
    with pytest.raises(ConfigError, match="invalid variant declarations"):
        registry([variant(name="Bad Name")])


def test_argv_fills_settings_and_standard_fields():
    """Settings and standard fields are substituted into the command template."""
    v = variant(command=("{python}", "-w", "{workers}", "{host}:{port}"), settings={"workers": 3})
    assert v.argv(python="py", host="127.0.0.1", port=9000) == ["py", "-w", "3", "127.0.0.1:9000"]


def test_variant_settings_are_read_only():
    """A variant is data: its settings cannot be changed after declaration."""
    v = variant(settings={"workers": 2})
    with pytest.raises(TypeError):
        v.settings["workers"] = 4


def test_a_row_takes_its_engines_fields_and_overrides_only_what_it_names():
    """A row has its engine's server, interface, packages and command head, plus its options and its own fields."""
    engine = Engine("srv", ("{python}", "-m", "srv", "{host}:{port}"), interface="asgi", one_process=True)
    row = engine.variant("srv-w2", "asyncio", "-w", "{workers}", also=("uvloop",), settings={"workers": 2})
    assert (row.server, row.worker, row.interface, row.one_process) == ("srv", "asyncio", "asgi", True)
    assert row.command == ("{python}", "-m", "srv", "{host}:{port}", "-w", "{workers}")
    assert row.requires == ("srv", "uvloop") and row.install == "pip install srv uvloop"
    assert engine.variant("srv-old", "asyncio", interpreters=("cpython",), one_process=False).one_process is False


def test_a_rows_options_take_the_place_of_row_in_its_engines_command():
    """An engine's command may mark where its rows' options go (granian's --interface takes the row's value)."""
    engine = Engine("srv", ("srv", "--mode", ROW, "{target}"))
    assert engine.variant("srv-a", "w", "a").command == ("srv", "--mode", "a", "{target}")
    assert engine.variant("srv-b", "w", "b", "--fast").command == ("srv", "--mode", "b", "--fast", "{target}")


def test_every_engine_has_rows_and_every_row_its_engine():
    """Each engine is declared once and used; every variant's server is an engine of the table."""
    assert {v.server for v in VARIANTS} == set(ENGINES)


def test_a_variants_processes_are_its_workers_or_processes():
    """gunicorn's workers, uWSGI's processes, and one process for a server with neither setting."""
    v = registry()
    assert (v["gunicorn-sync-w4"].processes, v["uwsgi-p2t2"].processes, v["gevent-pywsgi"].processes) == (4, 2, 1)


def test_every_variant_has_a_worker_model():
    """Each variant's worker kind is in one model of MODELS (or its interface is another runtime's), so
    docs/choose-a-server.md puts no row under "unknown"."""
    unknown = [f"{v.name} ({v.worker})" for v in VARIANTS if v.model == "unknown"]
    assert not unknown, f"worker kinds in no model of catalog.variants.MODELS: {unknown}; add each to one"
    kinds = [k for ks in MODELS.values() for k in ks]
    assert len(kinds) == len(set(kinds)), "a worker kind is in two models"


def test_the_models_of_known_variants():
    """A sync worker, a thread pool, greenlets, asyncio, granian and node land in the models a reader expects."""
    by_name = {v.name: v.model for v in VARIANTS}
    assert by_name["gunicorn-sync-w2"] == "sync processes"
    assert by_name["waitress-t4"] == "threads"
    assert by_name["gunicorn-gevent-w2"] == "greenlets"
    assert by_name["uvicorn"] == "asyncio"
    assert by_name["granian-asgi"] == "Rust-core servers"
    assert by_name["node-http"] == "other runtimes"


def test_a_python_limit_reads_its_version_and_why_and_a_malformed_one_is_a_problem():
    """python_below "3.13: why" is ((3, 13), why); meinheld declares it; one without MAJOR.MINOR is reported."""
    from dataclasses import replace

    from serverbench.catalog.variants import VARIANTS, validate

    meinheld = next(v for v in VARIANTS if v.name == "meinheld")
    assert meinheld.python_limit()[0] == (3, 13) and "Py_TRASHCAN_SAFE_BEGIN" in meinheld.python_limit()[1]
    assert next(v for v in VARIANTS if v.name == "gunicorn-sync-w2").python_limit() is None
    assert validate([replace(meinheld, python_below="soon: x")]) == [
        "variant 'meinheld': python_below 'soon: x' must read 'MAJOR.MINOR: why'"
    ]


def test_every_meinheld_loop_keeps_its_connections_alive_longer_than_any_request_may_wait():
    """meinheld's keep-alive timer runs while a request waits unread behind its blocked loop: each row running it
    (standalone, and as gunicorn's worker) sets a keep-alive no shorter than the longest request timeout."""
    from serverbench.catalog.timeouts import MAX_TIMEOUT_S

    rows = [v for v in VARIANTS if "meinheld" in v.requires]
    assert {v.name for v in rows} >= {"meinheld", "gunicorn-meinheld-w2"}
    for row in rows:
        argv = row.argv(python="py", host="127.0.0.1", port=9000, target="app:app", apps_dir="apps", cores=2)
        said = [a.split("=", 1)[1] for a in argv if a.startswith("keepalive=")]
        if "--keep-alive" in argv:
            said.append(argv[argv.index("--keep-alive") + 1])
        assert said and all(int(s) >= MAX_TIMEOUT_S for s in said), (row.name, argv)
