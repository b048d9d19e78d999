"""serverside.appentry: a user's app loaded inside the server, as an object or a factory's result named by
SERVERBENCH_APP (no server)."""

from __future__ import annotations

import sys

from serverbench.catalog.userapp import TARGET_ENV
from serverbench.serverside import appentry
from serverbench.serverside.appentry import load


def test_entry_module_loads_objects_and_factories(tmp_path, monkeypatch):
    """serverbench.serverside.appentry.load returns the object, or the factory's result for `()`."""
    (tmp_path / "entrymod.py").write_text("made = []\ndef create():\n    made.append(1)\n    return 'app'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load("entrymod:create()") == "app" and load("entrymod:made") == [1]
    sys.modules.pop("entrymod", None)


def test_the_factory_loads_the_app_named_by_the_environment_once(tmp_path, monkeypatch):
    """factory() loads SERVERBENCH_APP's target, calling a factory once however often a server asks for the app."""
    (tmp_path / "entryfactory.py").write_text("made = []\ndef create():\n    made.append(1)\n    return object()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(TARGET_ENV, "entryfactory:create()")
    appentry.factory.cache_clear()
    try:
        first = appentry.factory()
        assert appentry.factory() is first
        assert sys.modules["entryfactory"].made == [1]
    finally:
        appentry.factory.cache_clear()
        sys.modules.pop("entryfactory", None)
