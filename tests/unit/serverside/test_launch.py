"""serverside.launch: the command line of `python -m serverbench.serverside.launch` and the servers it knows (no
server starts: each entry is started by tests/integration/servers)."""

from __future__ import annotations

import os.path

import pytest

from serverbench.catalog.variants import VARIANTS
from serverbench.serverside import launch


def test_every_variant_launched_here_names_a_server_the_launcher_knows():
    """A command template running this module names one of its SERVERS, so no variant fails at start on a typo."""
    named = {
        v.command[v.command.index("serverbench.serverside.launch") + 1]
        for v in VARIANTS
        if "serverbench.serverside.launch" in v.command
    }
    assert named and named <= set(launch.SERVERS)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["werkzeug", "127.0.0.1", "8000"],
        ["no-such-server", "127.0.0.1", "8000", "app:app"],
    ],
)
def test_a_short_command_line_or_an_unknown_server_exits_with_the_usage(argv):
    """Fewer than four arguments or an unknown server: exit with the usage line, the servers and what was given."""
    with pytest.raises(SystemExit) as info:
        launch.main(argv)
    message = str(info.value.code)
    assert message.startswith("usage: python -m serverbench.serverside.launch {werkzeug|wsgiref|gevent-pywsgi|")
    assert "HOST PORT MODULE:CALLABLE [key=value ...]" in message and message.endswith(f"got {argv!r}")


def test_the_command_line_reaches_the_server_with_an_int_port_and_its_options(monkeypatch):
    """Host, port (as an int), target and key=value options (split at the first '=') reach the named server."""
    calls = []
    monkeypatch.setitem(launch.SERVERS, "wsgiref", lambda *args: calls.append(args))
    launch.main(["wsgiref", "127.0.0.1", "8123", "app:app", "threads=4", "header=a=b"])
    assert calls == [("127.0.0.1", 8123, "app:app", {"threads": "4", "header": "a=b"})]


def test_a_target_is_loaded_as_module_colon_attribute():
    """MODULE:CALLABLE imports the module and returns the attribute."""
    assert launch._load("os.path:join") is os.path.join
