"""What a host says of itself (hosts.probe), asked here."""

from __future__ import annotations

import json
import socket

from serverbench.hosts import probe


def test_the_facts_name_the_environment_the_machine_and_the_tools():
    """Version, digests, cores, memory, kernel, tools and the package folder are all there."""
    facts = probe.facts()
    for key in ("version", "source", "packages", "cores", "memory_mb", "kernel", "tools", "modules", "package"):
        assert key in facts
    assert facts["cores"] >= 1 and len(facts["packages"]) == 16 and set(probe.TOOLS["load"]) <= set(facts["tools"])
    assert facts["source"] == probe.source_digest()


def test_the_round_trip_to_a_listener_and_to_nothing(capsys):
    """A connect to a loopback listener takes a round trip; a closed port gives None, not a number."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        port = listener.getsockname()[1]
        assert probe.main(["--rtt", f"127.0.0.1:{port}"]) == 0
        assert json.loads(capsys.readouterr().out)["rtt_ms"] > 0
    assert probe.connect_rtt_ms("127.0.0.1", port, tries=2) is None
    assert probe.main(["--bogus"]) == 2
