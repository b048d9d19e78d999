"""What `serverbench hosts check` prints (report.hosts)."""

from __future__ import annotations

from serverbench.hosts.check import HostCheck
from serverbench.hosts.inventory import Host
from serverbench.report.hosts import check_text

SERVER = Host("app", "server", "198.18.0.10", "/e")
LOAD = Host("load1", "load", "198.18.0.11", "/e")
FACTS = {
    "version": "0.1.0",
    "source": "s",
    "packages": "p",
    "cores": 2,
    "memory_mb": 1024,
    "kernel": "6.1",
    "tools": {"oha": "/bin/oha", "wrk": None},
    "modules": {"locust": "2.4"},
}


def test_each_host_gets_a_line_and_its_problems_follow():
    """A reached host with its facts, clock and round trip; an unreached one with its problem; a count at the end."""
    text = check_text(
        [
            HostCheck(SERVER, FACTS, clock_offset_ms=0.4, clock_uncertainty_ms=0.1),
            HostCheck(LOAD, None, "refused", problems=("host load1 cannot be reached",)),
        ]
    )
    lines = text.splitlines()
    assert lines[0].startswith("app (server, 198.18.0.10:22): reached") and "clock offset +0.4 ms (± 0.1)" in lines[0]
    assert "oha yes, wrk no" in lines[0] and "round trip" not in lines[0]
    assert lines[1] == "load1 (load, 198.18.0.11:22): NOT REACHED"
    assert lines[2] == "  problem: host load1 cannot be reached"
    assert lines[-1] == "1 of 2 hosts ready; 1 with problems"


def test_an_unmeasured_round_trip_says_so():
    """A load host whose round trip could not be measured reads 'not measured', never 0."""
    text = check_text([HostCheck(LOAD, FACTS)])
    assert "round trip to the server not measured" in text and "clock offset not measured" in text
