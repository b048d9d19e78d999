"""`serverbench hosts`: check an inventory (text or JSON, exit 1 when a host is not ready), bad input named."""

from __future__ import annotations

import json
import socket

from serverbench.cli import hosts


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _inventory(tmp_path, port: int) -> str:
    path = tmp_path / "hosts.toml"
    path.write_text(
        '[defaults]\nenv = "/nonexistent/env"\n'
        f'[[hosts]]\nname = "app"\nrole = "server"\naddress = "127.0.0.1"\nport = {port}\n'
        f'[[hosts]]\nname = "load1"\nrole = "load"\naddress = "127.0.0.2"\nport = {port}\n'
    )
    return str(path)


def test_an_unreachable_host_is_reported_and_the_check_fails(tmp_path, capsys):
    """Nothing listens on the hosts' SSH port: each NOT REACHED with ssh's message, exit 1."""
    assert hosts.main(["check", _inventory(tmp_path, _closed_port())]) == 1
    out = capsys.readouterr().out
    assert "app (server, 127.0.0.1" in out and "NOT REACHED" in out and "0 of 2 hosts ready" in out


def test_the_check_prints_json_when_asked(tmp_path, capsys):
    """--json: a list with each host's name, role, reached and problems."""
    assert hosts.main(["check", _inventory(tmp_path, _closed_port()), "--json"]) == 1
    got = json.loads(capsys.readouterr().out)
    assert [h["name"] for h in got] == ["app", "load1"] and not any(h["reached"] for h in got)


def test_a_bad_inventory_is_a_usage_error_naming_the_fix(tmp_path, capsys):
    """An inventory with no load host: exit 2, one line saying what to add."""
    path = tmp_path / "hosts.toml"
    path.write_text('[[hosts]]\nname = "a"\nrole = "server"\naddress = "x"\nenv = "/e"\n')
    assert hosts.main(["check", str(path)]) == 2
    assert "no load host" in capsys.readouterr().err
