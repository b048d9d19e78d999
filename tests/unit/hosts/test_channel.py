"""One shell kept open on a host (hosts.channel.StatChannel), run here: each line sent is one sample answered."""

from __future__ import annotations

import os

from serverbench.hosts.channel import StatChannel
from serverbench.hosts.inventory import Host


class Here:
    """Connections whose every command runs in a shell on this machine (no ssh)."""

    def argv(self, host: Host, command: str) -> list[str]:
        return ["sh", "-c", command]


def test_each_ask_is_one_sample_from_the_same_shell_and_a_closed_channel_answers_none():
    """Two asks: this process among every process, each core's ticks, the same shell both times; closed: None."""
    channel = StatChannel(Here(), Host("here", "server", "127.0.0.1", "/e"))
    try:
        first, second = channel.ask(), channel.ask()
    finally:
        channel.close()
    assert os.getpid() in first.stats and os.getpid() in second.stats
    assert "cpu" in first.cpus and first.shell is not None and first.shell == second.shell
    assert first.sshd is not None and first.sshd != first.shell  # its parent: an sshd on a host, this process here
    assert channel.ask(timeout=1.0) is None
