"""The reference apps as data (catalog.apps): interfaces, default apps, targets and the endpoints each serves."""

from pathlib import Path

from serverbench.catalog.apps import APPS, DEFAULT_APPS, INTERFACE_RUNTIMES, INTERFACES, PYTHON_APPS, App
from serverbench.catalog.contract import ENDPOINTS
from serverbench.catalog.variants import VARIANTS

APPS_DIR = Path(__file__).resolve().parents[3] / "apps"


def test_python_apps_need_no_installed_files():
    """Only an app of another runtime names files its install creates; Python apps are found by import."""
    assert all(not a.installed_files for a in PYTHON_APPS.values())
    assert App("x", "wsgi", "x_app", "app", (), "-").target == "x_app:app"


def test_every_interface_has_a_reference_app_and_a_server():
    """Each interface has a default app of that interface and at least one variant that loads it."""
    for interface in INTERFACES:
        assert APPS[DEFAULT_APPS[interface]].interface == interface
        assert any(v.interface == interface for v in VARIANTS)


def test_each_app_is_filed_under_its_name_and_serves_only_endpoints_of_the_contract():
    """APPS is keyed by each app's own name, and every endpoint an app says it serves is one of the contract's, once."""
    assert all(key == app.name for key, app in APPS.items())
    for app in APPS.values():
        assert set(app.endpoints) <= set(ENDPOINTS), (app.name, set(app.endpoints) - set(ENDPOINTS))
        assert len(set(app.endpoints)) == len(app.endpoints), app.name


def test_each_app_is_in_the_apps_folder_and_its_install_names_what_it_needs():
    """A Python app's module is a file under apps/ and its install line installs every module it requires; an app of
    another runtime names its folder's files and the files its install creates."""
    for app in PYTHON_APPS.values():
        assert (APPS_DIR / f"{app.module}.py").is_file(), app.name
        assert app.install.startswith("pip install ") and set(app.requires) <= set(app.install.split()[2:]), app.name
    for app in set(APPS.values()) - set(PYTHON_APPS.values()):
        assert (APPS_DIR / app.module).exists() and app.installed_files and not app.requires, app.name


def test_the_interface_tables_cover_every_interface_and_each_app_is_of_its_interfaces_runtime():
    """INTERFACE_RUNTIMES and DEFAULT_APPS have one entry per interface, and an app's runtime is its interface's."""
    assert list(INTERFACE_RUNTIMES) == list(DEFAULT_APPS) == list(INTERFACES)
    assert all(INTERFACE_RUNTIMES[app.interface] == app.runtime for app in APPS.values())


def test_a_target_without_a_callable_is_the_module_and_lacks_keeps_the_order_asked():
    """node's target is its file alone (no ':'); lacks lists the endpoints not served in the order they were asked."""
    assert APPS["node"].target == "node/server.js" and APPS["play"].target == "play"
    assert APPS["flask"].target == "flask_app:app"
    assert APPS["play"].lacks(["site-js", "json", "redis", "upstream"]) == ["site-js", "redis", "upstream"]
