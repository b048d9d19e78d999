"""The hosts of a run (hosts.connected): the session runs on the server host; what records say of the hosts."""

from __future__ import annotations

import pytest

from serverbench.errors import ConfigError
from serverbench.hosts.check import HostCheck
from serverbench.hosts.connected import ConnectedHosts, connected, local_addresses
from serverbench.hosts.inventory import parse

INVENTORY = parse(
    {
        "hosts": [
            {"name": "app", "role": "server", "address": "198.18.0.10", "env": "/e"},
            {"name": "load1", "role": "load", "address": "198.18.0.11", "env": "/e", "cores": [1]},
        ]
    },
    "hosts.toml",
)


def test_a_server_host_that_is_not_this_machine_is_refused_with_the_fix():
    """The server host's address is none of this machine's: refused before anything is asked, saying where to run."""
    with pytest.raises(ConfigError, match="hand it over to app themselves"):
        ConnectedHosts(INVENTORY).open(addresses={"127.0.0.1"})


def test_the_record_names_each_host_with_its_cores_kernel_and_round_trip():
    """Every host checked is in the record, the load host with its round trip to the server."""
    hosts = ConnectedHosts(INVENTORY)
    hosts.checks = (
        HostCheck(INVENTORY.server, {"cores": 2, "kernel": "6.1"}),
        HostCheck(INVENTORY.load[0], {"cores": 4, "kernel": "6.1"}, rtt_ms=0.04213, clock_offset_ms=0.02),
    )
    record = hosts.record()
    assert record["inventory"] == "hosts.toml" and record["controller"] is None
    assert record["hosts"][0] == {
        "name": "app",
        "role": "server",
        "address": "198.18.0.10",
        "cores": 2,
        "kernel": "6.1",
        "rtt_to_server_ms": None,
        "clock_offset_ms": None,
    }
    assert record["hosts"][1]["cores"] == 1 and record["hosts"][1]["rtt_to_server_ms"] == 0.0421


def test_no_inventory_is_this_machine_alone():
    """connected(None) is None; this machine has loopback among its addresses."""
    assert connected(None) is None
    assert "127.0.0.1" in local_addresses()


def test_a_session_handed_over_names_its_controller(monkeypatch):
    """Run on the server host for a controller elsewhere (SERVERBENCH_CONTROLLER set): the record names it."""
    monkeypatch.setenv("SERVERBENCH_CONTROLLER", "ci-runner-7")
    assert ConnectedHosts(INVENTORY).record()["controller"] == "ci-runner-7"
