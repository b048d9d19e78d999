"""serverside.gunicorn_conf: the settings every gunicorn variant loads; gc.freeze() in the master only when the
variant asks for it with SERVERBENCH_GC_FREEZE=1 (called here in the test process; no gunicorn starts)."""

from __future__ import annotations

import gc

import pytest

from serverbench.serverside import gunicorn_conf


def test_the_control_socket_is_disabled():
    """gunicorn >= 25 would open a control socket in ~/.gunicorn; the config turns it off."""
    assert gunicorn_conf.control_socket_disable is True


@pytest.mark.parametrize("value, frozen", [("1", True), ("0", False), ("true", False), (None, False)])
def test_the_master_freezes_its_objects_only_when_told_with_exactly_1(value, frozen, monkeypatch):
    """SERVERBENCH_GC_FREEZE=1 moves the objects to the permanent generation; any other value or none leaves them."""
    if value is None:
        monkeypatch.delenv("SERVERBENCH_GC_FREEZE", raising=False)
    else:
        monkeypatch.setenv("SERVERBENCH_GC_FREEZE", value)
    gc.unfreeze()
    try:
        gunicorn_conf.when_ready(server=None)
        assert (gc.get_freeze_count() > 0) is frozen
    finally:
        gc.unfreeze()
