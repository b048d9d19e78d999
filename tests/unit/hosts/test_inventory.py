"""The hosts inventory: read, validated in one pass, every problem with its fix."""

from __future__ import annotations

import pytest

from serverbench.errors import ConfigError
from serverbench.hosts.inventory import Inventory, load, parse, render

GOOD = """
[defaults]
user = "bench"
env = "/opt/sb/.venv"

[[hosts]]
name = "app"
role = "server"
address = "198.18.0.10"
checkout = "/srv/bench/app"

[[hosts]]
name = "load1"
role = "load"
address = "198.18.0.11"
port = 2222

[[hosts]]
name = "db"
role = "backends"
address = "198.18.0.12"
"""


def _hosts(*rows: str) -> dict:
    hosts = []
    for row in rows:
        name, role, address = row.split()
        hosts.append({"name": name, "role": role, "address": address, "env": "/e"})
    return {"hosts": hosts}


def test_a_good_inventory_names_its_roles(tmp_path):
    """The server, the load hosts and the backends host are read with the defaults applied."""
    path = tmp_path / "hosts.toml"
    path.write_text(GOOD)
    inventory = load(path)
    assert inventory.server.name == "app"
    assert [h.name for h in inventory.load] == ["load1"]
    assert inventory.backends is not None and inventory.backends.address == "198.18.0.12"
    assert inventory.load[0].port == 2222 and inventory.load[0].destination == "bench@198.18.0.11"
    assert inventory.server.python == "/opt/sb/.venv/bin/python"
    assert inventory.server.checkout == "/srv/bench/app" and inventory.load[0].checkout is None


def test_render_reads_back_to_the_same_hosts(tmp_path):
    """An inventory written by render() is loaded back to equal hosts."""
    path = tmp_path / "hosts.toml"
    path.write_text(GOOD)
    inventory = load(path)
    again = tmp_path / "again.toml"
    again.write_text(render(inventory))
    assert load(again).hosts == inventory.hosts


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (_hosts("a server 1.1.1.1", "b loader 1.1.1.2"), "unknown role 'loader'"),
        (_hosts("a server 1.1.1.1", "b load 1.1.1.1"), "duplicate address 1.1.1.1:22"),
        (_hosts("a load 1.1.1.1"), "no server hosts"),
        (_hosts("a server 1.1.1.1"), "no load host"),
        (_hosts("a server 1.1.1.1", "a load 1.1.1.2"), "duplicate name a"),
        ({"hosts": [{"name": "a", "role": "server", "address": "x"}]}, "no env"),
        ({"hosts": [{"name": "a", "role": "server", "address": "x", "env": "/e", "colour": 1}]}, "unknown key colour"),
        ({"host": []}, "unknown table host"),
        (
            {"hosts": [{"name": "a", "role": "server", "address": "x", "env": "/e", "checkout": "srv/app"}]},
            "checkout 'srv/app' is not an absolute path",
        ),
    ],
)
def test_bad_inventories_are_refused_with_the_fix(data, says):
    """Each kind of bad inventory is a ConfigError saying what is wrong."""
    with pytest.raises(ConfigError, match=says):
        parse(data, "hosts.toml")


def test_an_unreadable_key_is_refused(tmp_path):
    """An identity file that cannot be read is named, with its path."""
    data = _hosts("a server 1.1.1.1", "b load 1.1.1.2")
    data["hosts"][1]["identity"] = "missing_key"
    with pytest.raises(ConfigError, match=r"identity file .*missing_key cannot be read"):
        parse(data, str(tmp_path / "hosts.toml"))


def test_every_problem_is_told_at_once():
    """Two hosts with problems: both in one message."""
    data = {"hosts": [{"name": "a", "role": "nope", "address": "x", "env": "/e"}, {"name": "b", "role": "load"}]}
    with pytest.raises(ConfigError) as caught:
        parse(data, "hosts.toml")
    assert "unknown role 'nope'" in str(caught.value) and "no address" in str(caught.value)


def test_a_missing_or_broken_file_names_the_fix(tmp_path):
    """No file, or a file that is not TOML: a ConfigError naming the file."""
    with pytest.raises(ConfigError, match="cannot be read"):
        load(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[hosts]\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load(bad)


def test_named_finds_a_host_or_lists_them():
    """named() returns the host, or names the ones there are."""
    inventory = parse(_hosts("a server 1.1.1.1", "b load 1.1.1.2"))
    assert inventory.named("b").role == "load"
    with pytest.raises(ConfigError, match="has a, b"):
        inventory.named("c")
    assert isinstance(inventory, Inventory)
