import pytest

from serverbench.errors import ConfigError
from serverbench.variants import VARIANTS, Variant, registry, validate


def _variant(**changes):
    base = dict(name="x-server", server="gunicorn", worker="sync", app="flask",
                command=("{python}", "-b", "{host}:{port}", "{target}"), requires=(), install="pip install x")
    base.update(changes)
    return Variant(**base)


def test_declared_variants_are_valid():
    """The shipped variant table passes validation."""
    assert validate(VARIANTS) == []
    assert set(registry()) >= {"werkzeug-threaded", "gunicorn-sync-w2", "gunicorn-gthread-t10",
                               "gunicorn-gthread-t100", "gunicorn-gevent-w2", "uwsgi-p2t2", "aiohttp"}


def test_validation_reports_every_problem_in_one_pass():
    """Unknown app, unknown template field, bad interpreter and a duplicate are all listed together."""
    bad = [
        _variant(app="nope"),
        _variant(name="y", command=("{python}", "{colour}")),
        _variant(name="z", interpreters=("jython",)),
        _variant(name="z"),
    ]
    problems = validate(bad)
    text = "\n".join(problems)
    assert "unknown app 'nope'" in text
    assert "{colour}" in text
    assert "jython" in text
    assert "declared twice" in text


def test_server_must_speak_the_apps_interface():
    """A WSGI server cannot serve the aiohttp app."""
    problems = validate([_variant(app="aiohttp")])
    assert any("cannot serve aiohttp app" in p for p in problems)


def test_registry_raises_config_error():
    """Invalid declarations stop the run with a ConfigError listing them."""
    with pytest.raises(ConfigError, match="invalid variant declarations"):
        registry([_variant(name="Bad Name")])


def test_argv_fills_settings_and_standard_fields():
    """Settings and standard fields are substituted into the command template."""
    v = _variant(command=("{python}", "-w", "{workers}", "{host}:{port}"), settings={"workers": 3})
    assert v.argv(python="py", host="127.0.0.1", port=9000) == ["py", "-w", "3", "127.0.0.1:9000"]


def test_variant_settings_are_read_only():
    """A variant is data: its settings cannot be changed after declaration."""
    v = _variant(settings={"workers": 2})
    with pytest.raises(TypeError):
        v.settings["workers"] = 4


def test_missing_package_gives_a_skip_reason_with_the_install_command():
    """A variant whose module cannot be imported is skipped with the pip command, never an ImportError."""
    from serverbench.servers import unavailable_reason

    reason = unavailable_reason(_variant(requires=("no_such_server_xyz",), install="pip install no-such-server"))
    assert "no_such_server_xyz" in reason and "-m pip install no_such_server_xyz" in reason
    assert "pip install no-such-server" in reason


def test_unsupported_interpreter_gives_a_skip_reason():
    """A variant that does not declare the running interpreter is skipped, saying which it supports."""
    from serverbench.servers import interpreter, unavailable_reason

    other = "pypy" if interpreter() == "cpython" else "cpython"
    assert f"does not run on {interpreter()}" in unavailable_reason(_variant(interpreters=(other,)))
