"""How ssh is asked (hosts.ssh): options that never prompt, commands quoted whole, unreachable hosts named."""

from __future__ import annotations

import shlex

from serverbench.hosts.inventory import Host
from serverbench.hosts.ssh import LOST_AFTER_S, remote_command, ssh_options, unreachable

HOST = Host("load1", "load", "198.18.0.11", "/e", 2222, "bench", "/k/id", "/k/known")


def test_ssh_never_prompts_and_notices_a_lost_link():
    """BatchMode, a bounded connect, keep-alives, the host's port, key and known_hosts, and the control socket."""
    options = ssh_options(HOST, "/tmp/c.sock")
    joined = " ".join(options)
    for expected in (
        "BatchMode=yes",
        "ConnectTimeout=",
        "ServerAliveInterval=",
        "-p 2222",
        "-i /k/id",
        "UserKnownHostsFile=/k/known",
        "StrictHostKeyChecking=yes",
        "ControlPath=/tmp/c.sock",
    ):
        assert expected in joined
    assert LOST_AFTER_S <= 5


def test_a_remote_command_is_quoted_whole_with_its_environment_and_folder():
    """Arguments with spaces and quotes survive the host's shell; env and cwd are set."""
    line = remote_command(["echo", "a b", "it's"], {"K": "v w"}, "/some dir")
    assert line.startswith("cd '/some dir' && exec env 'K=v w' echo")
    assert shlex.split(line.split("&& ", 1)[1])[-2:] == ["a b", "it's"]


def test_an_unreachable_host_is_named_with_what_ssh_said_and_the_fix():
    """The host's name, ssh's message, and the command to try by hand."""
    text = str(unreachable(HOST, "ssh: connect to host 198.18.0.11 port 2222: Connection refused\n"))
    assert "load1" in text and "Connection refused" in text and "ssh -p 2222 bench@198.18.0.11 true" in text
