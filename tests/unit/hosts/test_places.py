"""A load host as a place (hosts.places): this controller's paths become the host's, only set variables travel."""

from __future__ import annotations

import os
import sys

import pytest

from serverbench.errors import HostError
from serverbench.hosts.inventory import Host
from serverbench.hosts.places import PACKAGE, HostPlace, lost
from serverbench.hosts.ssh import Connections

HOST = Host("load1", "load", "198.18.0.11", "/opt/sb/.venv", cores=(1,))


def _place(**facts) -> HostPlace:
    return HostPlace(HOST, Connections(), {"package": "/opt/sb/pkg", "tools": {"oha": "/h/oha", "wrk": None}, **facts})


def test_the_interpreter_the_package_and_the_tools_are_the_hosts():
    """sys.executable, a path in the serverbench package and a tool become the host's own."""
    place = _place()
    argv = place.argv([sys.executable, "-m", "locust", "-f", f"{PACKAGE}/locustfiles/bookshop.py"])
    assert argv == ["/opt/sb/.venv/bin/python", "-m", "locust", "-f", "/opt/sb/pkg/locustfiles/bookshop.py"]
    assert place.argv(["/here/bin/oha", "-z", "1s"]) == ["/h/oha", "-z", "1s"]
    with pytest.raises(HostError, match="has no wrk"):
        place.argv(["/usr/bin/wrk", "-c", "8"])


def test_only_the_variables_a_driver_set_go_to_the_host(monkeypatch):
    """This process's environment stays here; NO_COLOR and the gap folder the driver added are sent."""
    monkeypatch.setenv("SECRET_HERE", "x")
    monkeypatch.delenv("NO_COLOR", raising=False)
    env = {**os.environ, "NO_COLOR": "1", "SERVERBENCH_LOCUST_GAPS": "/tmp/g"}
    assert HostPlace.env(env) == {"NO_COLOR": "1", "SERVERBENCH_LOCUST_GAPS": "/tmp/g"}


def test_its_cores_kernel_and_round_trip_come_from_the_inventory_and_its_check():
    """The inventory's cores win over the probe's; kernel and round trip are the check's."""
    place = _place(cores=8, kernel="6.1", rtt_ms=0.2)
    assert place.cores == 1 and place.kernel == "6.1" and place.rtt_ms == 0.2 and place.address == "198.18.0.11"


def test_a_lost_host_is_named_with_when():
    """The message names the host, the seconds into the run, and what to check."""
    text = lost(HOST, 2.5, "/h/oha")
    assert "load1" in text and "2.5 s into the run of oha" in text and "serverbench hosts check" in text


def test_a_folder_is_made_by_the_next_command_sent_to_its_host(monkeypatch):
    """No round trip of its own: while a folder is open, each command there makes it first; closed, it is removed
    by a command not waited for; outside it, commands go unchanged."""
    place = _place()
    spawned = []
    monkeypatch.setattr(place.connections, "spawn", lambda host, command: spawned.append((host.name, command)))
    assert place.made("true") == "true"
    with place.folder("serverbench-locust-") as folder:
        assert folder.startswith("/tmp/serverbench-locust-") and len(folder) == len("/tmp/serverbench-locust-") + 16
        assert place.made("cat > x") == f"mkdir -p -m 700 {folder} && cat > x"
        with place.folder() as other:
            assert other != folder and place.made("true") == f"mkdir -p -m 700 {folder} {other} && true"
    assert place.made("true") == "true"
    assert spawned == [("load1", f"rm -rf {other}"), ("load1", f"rm -rf {folder}")]
