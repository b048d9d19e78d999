"""The kernel's listen counters (measure.host.kernel): read from netstat's text, and their rise over a window."""

from __future__ import annotations

from serverbench.measure.host.kernel import parse_netstat, window


def test_kernel_listen_counters_are_read_from_netstat_text():
    """ListenOverflows and ListenDrops come from the TcpExt lines; the window is their rise."""
    text = "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 7 9\nIpExt: InNoRoutes\nIpExt: 0\n"
    before = parse_netstat(text)
    assert before == {"listen_overflows": 7, "listen_drops": 9}
    assert window(before, {"listen_overflows": 10, "listen_drops": 13}) == {"listen_overflows": 3, "listen_drops": 4}
    assert parse_netstat("IpExt: InNoRoutes\nIpExt: 0\n") == {}
