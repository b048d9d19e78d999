"""Who owns a module or a shared object, which extras count, the ISA level (measure.trees.packages)."""

from serverbench.measure.trees.packages import Owners, isa_level


def test_owners_name_package_and_role():
    """Modules and shared objects map to the server, framework, driver, app, stdlib, interpreter or system."""
    owners = Owners.of(["gunicorn"], ["flask_app", "sitedata"], ["flask", "redis", "pymongo"])
    assert owners.of_module("gunicorn.http.message") == ("gunicorn", "server")
    assert owners.of_module("werkzeug.routing.map") == ("werkzeug", "framework")
    assert owners.of_module("redis.client") == ("redis", "driver")
    assert owners.of_module("flask_app") == ("flask_app", "app")
    assert owners.of_module("json.encoder") == ("json", "standard library")
    assert owners.of_object("/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0") == ("cpython", "interpreter")
    assert owners.of_object("/x/lib/python3.11/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so") == (
        "_json",
        "standard library",
    )
    assert owners.of_object("/v/lib/python3.11/site-packages/markupsafe/_speedups.cpython-311.so") == (
        "markupsafe",
        "framework",
    )
    assert owners.of_object("/usr/lib/x86_64-linux-gnu/libc.so.6")[1] == "system"


def test_isa_level_is_a_level_not_a_model():
    """The counting environment names an x86-64 level (or the machine), never a CPU model."""
    assert isa_level().startswith("x86-64") or "x86" not in isa_level()


def test_only_runtime_extras_key_a_cost_baseline():
    """A runtime extra's requirement counts; test, development, meta and other-platform extras do not
    (twisted's lists hypothesis and pyflakes, which never run in a server)."""
    from packaging.requirements import Requirement

    from serverbench.measure.trees.packages import _applies

    extras = ["tls", "http2", "dev", "dev-release", "test", "all-non-platform", "windows-platform", "mypy"]
    assert _applies(Requirement("pyopenssl; extra == 'tls'"), extras)
    assert _applies(Requirement("h2; extra == 'http2'"), extras)
    for extra in extras[2:]:
        assert not _applies(Requirement(f"hypothesis; extra == '{extra}'"), extras), extra
    assert _applies(Requirement("click"), [])


def test_installed_metadata_is_read_once_for_every_closure(monkeypatch):
    """A count's closures (its bytecode's and environment's, its attribution's three roles) read the installed
    distributions' metadata once a process, not once each: the same answers, at a tenth of the harness's CPU."""
    import importlib.metadata as metadata
    import sys

    from serverbench.measure.trees import packages

    reads = []
    every = metadata.distributions
    monkeypatch.setattr(metadata, "distributions", lambda: reads.append(1) or every())
    for cached in (packages._installed, packages._module_owners, packages.installed_versions):
        cached.cache_clear()
    try:
        versions = packages.installed_versions(sys.executable, ("gunicorn", "flask"))
        owners = Owners.of(["gunicorn"], [], ["flask", "redis"])
        assert "gunicorn" in versions and "flask" in versions
        assert "gunicorn" in owners.server and "werkzeug" in owners.framework and "redis" in owners.driver
        assert len(reads) == 2  # the map by name, and packages_distributions' own read (8 when each closure read)
    finally:
        for cached in (packages._installed, packages._module_owners, packages.installed_versions):
            cached.cache_clear()


def test_another_interpreter_lists_the_same_packages_through_the_probe():
    """An interpreter named by another path (a counted server's, a gate arm's) is asked in a child process, which
    imports this module from this source tree: the same closure as in this process.  With measure/ split into
    sub-packages the probe put src/serverbench first on sys.path, and serverbench/bisect hid the standard library's
    bisect ("cannot import name 'bisect'")."""
    import sys
    from pathlib import Path

    from serverbench.measure.trees import packages

    here = Path(sys.executable)
    elsewhere = f"{here.parent}/./{here.name}"  # the same venv's interpreter, named by another string
    assert elsewhere != sys.executable
    assert packages.installed_versions(elsewhere, ("flask",)) == packages._closure(("flask",))
