"""The hosts of a run (hosts.connected): where the backends run, a session apart, what records say of the hosts."""

from __future__ import annotations

import pytest

from serverbench.errors import HostError
from serverbench.hosts.check import HostCheck
from serverbench.hosts.connected import ConnectedHosts, HostedService, connected, group_cpu_s, local_addresses
from serverbench.hosts.inventory import parse
from serverbench.hosts.procstat import parse as parse_stats
from serverbench.hosts.ssh import Connections

INVENTORY = parse(
    {
        "hosts": [
            {"name": "app", "role": "server", "address": "198.18.0.10", "env": "/e"},
            {"name": "load1", "role": "load", "address": "198.18.0.11", "env": "/e", "cores": [1]},
        ]
    },
    "hosts.toml",
)


def test_a_session_apart_without_a_backends_host_runs_the_backends_on_the_server_host():
    """Apart from the server host and no backends host in the inventory: the backends go to the server host, and the
    record says they shared it; on the server host itself they run here, which is the server host too."""
    hosts = ConnectedHosts(INVENTORY, apart=True)
    assert hosts.backends_host == INVENTORY.server
    assert hosts.record()["backends"] == {"host": "app", "shared_with_server": True}
    assert hosts.record()["session"] == "apart from the server host"
    here = ConnectedHosts(INVENTORY)
    assert here.backends_host is None and here.record()["backends"]["shared_with_server"] is True


def test_a_backends_host_runs_the_backends_whether_the_session_is_apart_or_not():
    """With a backends host, the backends run there, not shared with the server, wherever the session runs."""
    inventory = parse(
        {
            "hosts": [
                {"name": "app", "role": "server", "address": "198.18.0.10", "env": "/e"},
                {"name": "load1", "role": "load", "address": "198.18.0.11", "env": "/e"},
                {"name": "db", "role": "backends", "address": "198.18.0.12", "env": "/e"},
            ]
        }
    )
    for apart in (True, False):
        hosts = ConnectedHosts(inventory, apart=apart)
        assert hosts.backends_host.name == "db"
        assert hosts.record()["backends"] == {"host": "db", "shared_with_server": False}


def test_an_unreachable_server_host_is_refused_before_anything_starts_naming_it_and_the_fix(tmp_path):
    """A session apart checks every host first: a server host ssh cannot reach stops it with its name and the check
    command that says more, and nothing is started."""
    inventory = parse(  # loopback addresses that are not this machine's interfaces', on a port nothing listens on
        {
            "hosts": [
                {"name": "app", "role": "server", "address": "127.0.0.2", "port": 1, "env": "/e"},
                {"name": "load1", "role": "load", "address": "127.0.0.3", "port": 1, "env": "/e"},
            ]
        },
        "hosts.toml",
    )
    hosts = ConnectedHosts(inventory, connections=Connections(str(tmp_path / "ssh")))
    with pytest.raises(HostError, match=r"app .*serverbench hosts check hosts.toml"):
        hosts.open(addresses={"127.0.0.1"})
    assert hosts.services is None and hosts.places == ()


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


STATS = "\n".join(
    [
        # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        "101 (nginx: master) S 1 101 101 0 -1 4194560 10 0 0 0 30 20 0 0 20 0 1 0",
        "102 (nginx: worker) S 101 101 101 0 -1 4194560 10 0 0 0 150 50 0 0 20 0 1 0",
        "201 (python3 (x) y) S 1 201 201 0 -1 4194560 10 0 0 0 7 3 0 0 20 0 1 0",
        "301 (bash) S 1 301 301 0 -1 4194560 10 0 0 0 999 999 0 0 20 0 1 0",
        "garbage",
    ]
)


def test_group_cpu_sums_every_process_of_a_group():
    """nginx's master and worker add up in its group; a name with spaces and parentheses parses; others are left."""
    stats = parse_stats(STATS).stats.values()
    assert group_cpu_s(stats, {101, 201}, 100) == {101: 2.5, 201: 0.1}
    assert group_cpu_s(stats, {999}, 100) == {}


def test_a_service_without_a_backends_host_reads_no_cpu():
    """A hosted service whose name has no pid on the backends host reads None (never 0): its own fields pass through."""

    class Service:
        url, kind, pid = "redis://198.18.0.12:6379/0", "redis-server", None

    hosted = HostedService(Service(), ConnectedHosts(INVENTORY), "redis")
    assert hosted.cpu_s() is None and hosted.url.startswith("redis://") and hosted.pid is None
