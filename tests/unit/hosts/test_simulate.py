"""The simulated hosts' plan (hosts.simulate): names, addresses in 198.18.0.0/15, cores, sshd settings, preflight."""

from __future__ import annotations

import ipaddress

import pytest

from serverbench.errors import ConfigError
from serverbench.hosts import simulate
from serverbench.hosts.simulate import free_subnet, plan, split_cores, sshd_config


def test_the_server_gets_the_first_half_of_the_cores_and_the_load_hosts_the_rest():
    """Two cores: the server core 0, the load hosts and the backends core 1 (never the server's); one core: shared."""
    assert split_cores([0, 1], 2, True) == {"server": (0,), "load": (1,), "backends": (1,)}
    assert split_cores([0, 1, 2, 3], 1, True)["backends"] == (2, 3)
    assert split_cores([0, 1, 2, 3], 1, False) == {"server": (0, 1), "load": (2, 3)}
    assert split_cores([0], 1, False) == {"server": (0,), "load": (0,)}


def test_a_plan_names_every_host_with_its_own_address_in_the_benchmarking_range():
    """One server, N load hosts, an optional backends host; unique addresses in 198.18.0.0/15 and short links."""
    hosts = plan(3, True, "ab12", 100, [0, 1])
    assert [h.name for h in hosts] == ["server", "load1", "load2", "load3", "backends"]
    addresses = [ipaddress.ip_address(h.address) for h in hosts]
    assert len(set(addresses)) == 5 and all(a in ipaddress.ip_network("198.18.0.0/15") for a in addresses)
    assert all(len(h.veth) + 1 <= 15 for h in hosts)  # the peer's name (veth + "p") fits IFNAMSIZ
    assert {h.namespace for h in hosts} == {f"sbab12-{h.name}" for h in hosts}


def test_bad_host_counts_are_refused():
    """No load host, or more than a subnet holds: a ConfigError naming the limit."""
    with pytest.raises(ConfigError, match="at least one load host"):
        plan(0, False, "ab12", 100, [0, 1])
    with pytest.raises(ConfigError, match="at most 200"):
        plan(201, False, "ab12", 100, [0, 1])


def test_a_free_subnet_avoids_the_ones_in_use():
    """198.18.100.0/24 in use: the next free third octet."""
    assert free_subnet("2: eth0 inet 10.0.0.2 24") == 100
    assert free_subnet("5: br inet 198.18.100.1 24 6: br2 inet 198.18.101.1 24") == 102


def test_the_sshd_takes_only_the_simulations_key_on_its_address(tmp_path):
    """The sshd listens on the host's address and accepts keys only from the simulation's own file."""
    host = plan(1, False, "ab12", 100, [0, 1])[1]
    config = sshd_config(host, tmp_path)
    assert f"ListenAddress {host.address}" in config
    assert f"AuthorizedKeysFile {tmp_path / 'authorized_keys'}" in config
    assert "PasswordAuthentication no" in config


def test_preflight_names_what_is_missing(monkeypatch):
    """Not root and no sshd: one message naming both and how to run without namespaces."""
    monkeypatch.setattr(simulate.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(simulate, "SSHD", "/nonexistent/sshd")
    with pytest.raises(ConfigError) as caught:
        simulate.preflight()
    text = str(caught.value)
    assert "as root" in text and "openssh-server" in text and "without simulated hosts" in text


def test_a_simulation_without_a_command_is_refused():
    """`hosts simulate` with nothing after --: a ConfigError before any namespace is made."""
    with pytest.raises(ConfigError, match="needs a command"):
        simulate.run(1, False, [])


def test_the_command_runs_on_the_first_load_host_by_default_apart_from_the_server(tmp_path):
    """By default in load1's namespace on the load hosts' cores; --on-server in the server's; --apart here as given."""
    simulation = simulate.Simulation(2, folder=tmp_path)
    simulation.hosts = plan(2, False, "ab12", 100, [0, 1])
    assert simulation.command(["pytest"]) == ["ip", "netns", "exec", "sbab12-load1", "taskset", "-c", "1", "pytest"]
    on_server = simulation.command(["pytest"], simulate.SERVER)
    assert on_server == ["ip", "netns", "exec", "sbab12-server", "taskset", "-c", "0", "pytest"]
    assert simulation.command(["pytest"], simulate.HERE) == ["pytest"]
